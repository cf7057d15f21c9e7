// The chaos soak on PostgreSQL (issue 18), short: three schedulers, a coordinator and two workers on homes of
// their own that share only a throwaway PostgreSQL, each scheduler reaching it through a proxy the soak
// controls, through a few seeded cycles that deal each of the database's faults once (restart after an
// immediate stop, a stall past T, a scheduler's connections killed, the active cut off) and then pick from
// the whole menu. The long run is `npm run bench -- chaos --backend postgres --cycles 200`. Set
// DAGU_CHAOS_SEED to replay a seed a failure printed.

import { afterEach, describe, expect, it } from 'vitest';
import { PG_ACTION_KINDS } from '../../../bench/chaos/pgActions';
import { runSoak, stopRunningSoaks } from '../../../bench/chaos/soak';

const CYCLES = 8;

describe('chaos soak on PostgreSQL', () => {
  // A soak cleans up after itself; this is for one the test timeout abandoned.
  afterEach(() => stopRunningSoaks());

  it(`through ${CYCLES} cycles with the database's faults, no slot runs twice or goes missing, the database takes no write from a deposed scheduler and no run is left without an owner`, async () => {
    const seed = Number(process.env.DAGU_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const progress: string[] = [];
    const result = await runSoak({
      backend: 'postgres',
      cycles: CYCLES,
      seed,
      // A failure's temp tree (every process's log, the runs) stays for a post-mortem; its path is printed.
      keep: 'on-failure',
      log: (l) => progress.push(l),
    });
    const report = [
      ...progress,
      '',
      ...result.lines,
      ...result.skips.map((s) => `skipped by design: ${s}`),
    ].join('\n');
    // The failures come first, in the log and in the message: a shortened CI log still names them.
    if (result.failures.length > 0)
      console.log(`FAILED (seed ${seed}):\n${result.failures.map((f) => `  ${f}`).join('\n')}\n`);
    console.log(report);

    expect(result.failures, `seed ${seed}: ${result.failures.join('; ')}\n${report}`).toEqual([]);
    const { slots, cycles, fence } = result.figures;
    expect(cycles).toHaveLength(CYCLES);
    // Each of the database's faults was dealt, and the fence had writes to judge.
    expect(
      PG_ACTION_KINDS.filter((k) => !cycles.some((c) => c.kind === k)),
      report,
    ).toEqual([]);
    expect(fence?.checked ?? 0, report).toBeGreaterThan(0);
    // The soak proves nothing if the slots did not run: most of them must have, through all the faults.
    expect(slots.due, report).toBeGreaterThan(CYCLES);
    expect(slots.ran, report).toBeGreaterThanOrEqual(Math.ceil(slots.due * 0.7));
    // And the faults must have moved the lock at least once.
    const failovers = [...result.figures.failovers.byHow.values()].reduce(
      (n, g) => n + g.renewalGap.count,
      0,
    );
    expect(failovers, report).toBeGreaterThan(0);
  }, 240_000);
});
