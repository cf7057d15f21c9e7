// One-off `at` schedule entries through the real scheduler process. A slot a minute ahead would make the test
// wait that minute, so it starts from a state file that says which one-off slots a previous scheduler saw
// pending, as a scheduler restarted after the slot passed finds it.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { eventually, startService, homeWithServices, runsOf } from './harness';

const ctx = homeWithServices();

interface RunSummary {
  run_id: string;
  status: string;
  trigger_type: string;
  schedule_time: string | null;
}

async function runs(dag: string): Promise<RunSummary[]> {
  return runsOf<RunSummary>(ctx.h.home, dag, 500);
}

/** `ms` as an RFC 3339 time in +01:00, as a Dagu user would write it. */
function plusOne(ms: number): string {
  return `${new Date(ms + 3_600_000).toISOString().slice(0, 19)}+01:00`;
}

const stateFile = () => path.join(ctx.h.home, 'data', 'scheduler', 'tick-state.json');

describe('dagu scheduler: one-off at entries', () => {
  it('runs a pending slot missed while it was down once, never an unseen past one, and keeps a future one', async () => {
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const missed = minute - 3 * 60_000;
    const future = minute + 24 * 3_600_000;
    const dag = (at: string) => `schedule:\n  - at: "${at}"\nsteps:\n  - name: s\n    command: "true"\n`;
    ctx.h.writeDag('missed', dag(plusOne(missed)));
    ctx.h.writeDag('unseen', dag(plusOne(missed)));
    ctx.h.writeDag(
      'later',
      `schedule:\n  - "0 0 1 1 *"\n  - {kind: at, at: "${plusOne(future)}"}\nsteps:\n  - run: "true"\n`,
    );
    mkdirSync(path.dirname(stateFile()), { recursive: true });
    writeFileSync(
      stateFile(),
      JSON.stringify({
        version: 1,
        last_tick_ms: missed - 60_000,
        dags: {},
        pending_at: { missed: [missed] },
      }),
    );
    const s = startService(['scheduler'], ctx.h.env);
    ctx.services.push(s);

    const [run] = await eventually(async () => {
      const r = (await runs('missed')).filter((x) => x.status === 'succeeded');
      return r.length > 0 ? r : null;
    }, 30_000).catch(async (err: Error) => {
      throw new Error(
        `${err.message}\nruns: ${JSON.stringify(await runs('missed'))}\nscheduler: ${s.output()}`,
      );
    });
    expect(run.trigger_type).toBe('scheduler');
    expect(run.schedule_time).toBe(new Date(missed).toISOString().replace('.000Z', 'Z'));
    expect(run.run_id).toMatch(/^sched-[0-9a-f]{12}-\d{8}T\d{4}Z$/);

    // The tick that ran it also wrote the pending slots: the missed one is done, the future one is kept.
    const state = await eventually(async () => {
      const st = JSON.parse(readFileSync(stateFile(), 'utf8')) as { pending_at?: Record<string, number[]> };
      return st.pending_at?.missed === undefined ? st : null;
    }, 10_000);
    expect(state.pending_at).toEqual({ later: [future] });
    expect(await runs('unseen')).toEqual([]);
    expect(await runs('missed')).toHaveLength(1);
  });
});
