// Suspending a DAG's schedule against the real scheduler processes: the very next slot after
// `dagu suspend` does not run, an instance that becomes active meanwhile honours the flag and replays
// nothing, and after `dagu resume-schedule` the slots run again with none of the suspended period replayed.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dagu,
  eventually,
  logRecords,
  startService,
  waitForLog,
  type Service,
  homeWithServices,
  runsOf,
} from './harness';

const ctx = homeWithServices({ DAGU_LOG_LEVEL: 'debug' });

function scheduler() {
  const s = startService(['scheduler'], ctx.h.env);
  ctx.services.push(s);
  return s;
}

interface Run {
  run_id: string;
  status: string;
  trigger_type: string;
  schedule_time: string | null;
}

async function runs(dag: string): Promise<Run[]> {
  return runsOf<Run>(ctx.h.home, dag, 500);
}

/** The time of the newest event of `type` in the event log, in ms. */
function eventTime(type: string): number {
  const dir = path.join(ctx.h.home, 'data', 'events');
  const lines = readdirSync(dir).flatMap((f) => readFileSync(path.join(dir, f), 'utf8').trim().split('\n'));
  const times = lines
    .map((l) => JSON.parse(l) as { type: string; time: string })
    .filter((e) => e.type === type);
  return Date.parse(times[times.length - 1].time);
}

const skipped = (s: Service) =>
  logRecords(s.output(), /^Skipped a slot(: the DAG is suspended| of a suspended DAG)$/);

describe('a suspended schedule, on the real scheduler', () => {
  it('skips the next slots on the active instance and its successor, and replays none after the resume', async () => {
    const yaml = (extra: string) =>
      `schedule: "*/2 * * * * *"\n${extra}steps:\n  - name: s\n    command: "true"\n`;
    ctx.h.writeDag('tick', yaml(''));
    const a = scheduler();
    await eventually(
      async () => (await runs('tick')).filter((r) => r.status === 'succeeded').length >= 2,
      30_000,
    );
    // Now a catch-up window that covers the whole test (added once the scheduler has ticked, so a fresh home
    // does not replay the last hour): still nothing of the suspended period is replayed.
    ctx.h.writeDag('tick', yaml('catchup_window: 1h\n'));

    const suspend = await dagu(['suspend', 'tick'], ctx.h.env);
    expect(suspend.code).toBe(0);
    expect(suspend.stdout).toMatch(/^suspended the schedule of tick/);
    const suspendedAt = eventTime('dag.suspended');
    await waitForLog(a, /^Skipped a slot: the DAG is suspended$/, 10_000);
    await a.waitUntil(() => skipped(a).length >= 2, 10_000, 'two skipped slots');
    // `dagu ls` says so plainly.
    expect((await dagu(['ls'], ctx.h.env)).stdout).toMatch(/^tick\s+\*\/2 \* \* \* \* \*\s+suspended\s/m);

    // The active instance goes; the next one starts while the DAG is suspended: it replays nothing.
    expect(await a.stop()).toBe(0);
    const b = scheduler();
    await waitForLog(b, /^Missed slots of a suspended DAG are not replayed$/, 15_000);
    await b.waitUntil(() => skipped(b).length >= 2, 15_000, 'two skipped slots on the successor');

    const resume = await dagu(['resume-schedule', 'tick'], ctx.h.env);
    expect(resume.code).toBe(0);
    const resumedAt = eventTime('dag.resumed');
    await eventually(
      async () =>
        (await runs('tick')).filter(
          (r) => r.status === 'succeeded' && Date.parse(r.schedule_time!) > resumedAt,
        ).length >= 2,
      30_000,
    );

    const all = await runs('tick');
    // Every slot after the suspend and up to the resume was skipped: none ran, none was queued or replayed.
    const during = all.filter((r) => {
      const slot = Date.parse(r.schedule_time!);
      return slot > suspendedAt && slot <= resumedAt;
    });
    expect(during).toEqual([]);
    expect(all.filter((r) => r.trigger_type !== 'scheduler')).toEqual([]);
    for (const s of [...skipped(a), ...skipped(b)]) {
      const slot = Date.parse(String(s.fields.slot));
      expect(slot).toBeGreaterThan(suspendedAt);
      expect(slot).toBeLessThanOrEqual(resumedAt);
    }
    // Slots run again on the schedule: consecutive seconds slots after the resume, two seconds apart.
    const after = all
      .map((r) => Date.parse(r.schedule_time!))
      .filter((t) => t > resumedAt)
      .sort((x, y) => x - y);
    expect(after[1] - after[0]).toBe(2000);
    expect(after[0] - resumedAt).toBeLessThanOrEqual(2000);
  }, 90_000);
});
