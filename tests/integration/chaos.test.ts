// The chaos soak's short run (issue 6): three schedulers on one data directory under a supervisor, a
// coordinator and two workers, through 20 seeded cycles of kill -9, SIGSTOP, clean stops, storage stalls, EIO
// bursts and full disks (ENOSPC), worker kills and coordinator restarts. The long run is
// `npm run bench -- chaos --cycles 200`. Set DAGU_CHAOS_SEED to replay a seed a failure printed.

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { faultToolsAvailable } from '../../conformance/support/faults';
import { runSoak, stopRunningSoaks } from '../../bench/chaos/soak';

const CYCLES = 20;

describe('chaos soak', () => {
  beforeAll(() => {
    const tools = faultToolsAvailable();
    if (!tools.ok) throw new Error(tools.message);
  });
  // A soak cleans up after itself; this is for one the test timeout abandoned.
  afterEach(() => stopRunningSoaks());

  it(`through ${CYCLES} cycles of faults, no slot runs twice or goes missing, nothing is dispatched past a lease and no run is left without an owner`, async () => {
    const seed = Number(process.env.DAGU_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const progress: string[] = [];
    const result = await runSoak({ cycles: CYCLES, seed, log: (l) => progress.push(l) });
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
    const { slots, cycles } = result.figures;
    expect(cycles).toHaveLength(CYCLES);
    // The soak proves nothing if the slots did not run: most of them must have, through all the faults.
    expect(slots.due, report).toBeGreaterThan(CYCLES);
    expect(slots.ran, report).toBeGreaterThanOrEqual(Math.ceil(slots.due * 0.7));
    // And the faults must have moved the lock at least once.
    const failovers = [...result.figures.failovers.byHow.values()].reduce(
      (n, g) => n + g.renewalGap.count,
      0,
    );
    expect(failovers, report).toBeGreaterThan(0);
  }, 360_000);
});
