// The chaos soak's short run (issue 6): three schedulers on one data directory under a supervisor, a
// coordinator and two workers, through 20 seeded cycles of kill -9, SIGSTOP, clean stops, storage stalls, EIO
// bursts and full disks (ENOSPC), worker kills and coordinator restarts. The long run is
// `npm run bench -- chaos --cycles 200`. Set DAGU_CHAOS_SEED to replay a seed a failure printed.

import { afterEach, beforeAll, describe, it } from 'vitest';
import { faultToolsAvailable } from '../../conformance/support/faults';
import { stopRunningSoaks } from '../../bench/chaos/soak';
import { expectSlotsRanAndLockMoved, runReportedSoak } from './chaosSupport';

const CYCLES = 20;

describe('chaos soak', () => {
  beforeAll(() => {
    const tools = faultToolsAvailable();
    if (!tools.ok) throw new Error(tools.message);
  });
  // A soak cleans up after itself; this is for one the test timeout abandoned.
  afterEach(() => stopRunningSoaks());

  it(`through ${CYCLES} cycles of faults, no slot runs twice or goes missing, nothing is dispatched past a lease and no run is left without an owner`, async () => {
    const soak = await runReportedSoak({ cycles: CYCLES });
    expectSlotsRanAndLockMoved(soak);
  }, 360_000);
});
