// The chaos soak on PostgreSQL (issue 18), short: three schedulers, a coordinator and two workers on homes of
// their own that share only a throwaway PostgreSQL, each scheduler reaching it through a proxy the soak
// controls, through a few seeded cycles that deal each of the database's faults once (restart after an
// immediate stop, a stall past T, a scheduler's connections killed, the active cut off) and then pick from
// the whole menu. The long run is `npm run bench -- chaos --backend postgres --cycles 200`. Set
// DAGU_CHAOS_SEED to replay a seed a failure printed.

import { afterEach, describe, expect, it } from 'vitest';
import { PG_ACTION_KINDS } from '../../../bench/chaos/pgActions';
import { stopRunningSoaks } from '../../../bench/chaos/soak';
import { expectSlotsRanAndLockMoved, runReportedSoak } from '../chaosSupport';

const CYCLES = 8;

describe('chaos soak on PostgreSQL', () => {
  // A soak cleans up after itself; this is for one the test timeout abandoned.
  afterEach(() => stopRunningSoaks());

  it(`through ${CYCLES} cycles with the database's faults, no slot runs twice or goes missing, the database takes no write from a deposed scheduler and no run is left without an owner`, async () => {
    const soak = await runReportedSoak({
      backend: 'postgres',
      cycles: CYCLES,
      // A failure's temp tree (every process's log, the runs) stays for a post-mortem; its path is printed.
      keep: 'on-failure',
    });
    const { figures } = soak.result;
    // Each of the database's faults was dealt, and the fence had writes to judge.
    expect(
      PG_ACTION_KINDS.filter((k) => !figures.cycles.some((c) => c.kind === k)),
      soak.report,
    ).toEqual([]);
    expect(figures.fence?.checked ?? 0, soak.report).toBeGreaterThan(0);
    expectSlotsRanAndLockMoved(soak);
  }, 240_000);
});
