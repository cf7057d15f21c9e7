// A DAG saved through the console's API is what the scheduler runs from its next tick: the real `dagu server`
// and `dagu scheduler` on one temp DAGU_HOME.

import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { eventually, freePort, startService, homeWithServices, runsOf } from './harness';

const ctx = homeWithServices();

interface RunSummary {
  run_id: string;
  status: string;
  trigger_type: string;
  schedule_time: string | null;
}

async function runs(dag: string): Promise<RunSummary[]> {
  return runsOf<RunSummary>(ctx.h.home, dag, 100);
}

describe('saving a DAG through the API', () => {
  it('is picked up by the scheduler at its next tick: the new schedule and steps run', async () => {
    ctx.h.writeDag('edited', 'steps:\n  - name: old\n    run: echo old\n');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = startService(['server', '--host', '127.0.0.1', '--port', String(port)], ctx.h.env);
    const scheduler = startService(['scheduler'], ctx.h.env);
    ctx.services.push(server, scheduler);
    await eventually(async () => (await fetch(`${url}/api/v1/health`)).ok, 60_000, 200);
    await scheduler.waitFor(/Acquired the free scheduler lock/, 30_000);

    const spec = (await (await fetch(`${url}/api/v1/dags/edited/spec`)).json()) as { version: string };
    const next = 'schedule: "*/2 * * * * *"\nsteps:\n  - name: fresh\n    run: echo fresh\n';
    const res = await fetch(`${url}/api/v1/dags/edited/spec`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: url },
      body: JSON.stringify({ yaml: next, base_version: spec.version }),
    });
    expect(res.status).toBe(200);
    const events = (await (await fetch(`${url}/api/v1/events?type=dag.saved`)).json()) as {
      events: Array<{ time: string }>;
    };
    const savedAt = Date.parse(events.events[0].time);

    const first = await eventually(async () => {
      const done = (await runs('edited')).filter(
        (r) => r.trigger_type === 'scheduler' && r.status === 'succeeded',
      );
      return done.length > 0
        ? done.sort((a, b) => a.schedule_time!.localeCompare(b.schedule_time!))[0]
        : null;
    }, 30_000);
    // The scheduler sleeps at most 5 s without a due slot, then reloads the changed file; the first slot of
    // the new schedule is the next even second after that tick at the latest.
    const slot = Date.parse(first.schedule_time!);
    expect(slot).toBeGreaterThan(savedAt - 7_000);
    expect(slot).toBeLessThanOrEqual(savedAt + 7_000);
    const { FileRunStore } = await import('../../server/store/fileRunStore');
    const store = new FileRunStore({
      dataDir: path.join(ctx.h.home, 'data'),
      logDir: path.join(ctx.h.home, 'logs'),
    });
    const read = await store.readStatus(first.run_id);
    expect(read.kind === 'ok' && read.status.steps.map((s) => s.name)).toEqual(['fresh']);
  });
});
