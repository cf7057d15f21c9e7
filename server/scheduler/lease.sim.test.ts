// Deterministic simulation of the scheduler lock protocol: thousands of seeded schedules of crashes, pauses,
// stalls, storage errors, late writes, clean stops, restarts and clock drift, with invariants at every step.

import { describe, expect, it } from 'vitest';
import { runSchedule } from './sim/simCluster';

const single = process.env.DAGU_SIM_SEED;
const count = Number(process.env.DAGU_SIM_SCHEDULES ?? 10_000);
const firstSeed = Number(process.env.DAGU_SIM_FIRST_SEED ?? 1);

describe('the scheduler lock under simulated faults', () => {
  it(
    single
      ? `holds every invariant for seed ${single}`
      : `holds every invariant in ${count} seeded schedules`,
    async () => {
      const seeds = single ? [Number(single)] : Array.from({ length: count }, (_, i) => firstSeed + i);
      const failures: string[] = [];
      let takeovers = 0;
      let liveChecks = 0;
      for (const seed of seeds) {
        const r = await runSchedule(seed);
        takeovers += r.takeovers;
        liveChecks += r.liveChecks;
        if (r.violations.length > 0 && failures.length < 5) {
          failures.push(
            `seed ${seed}:\n  ${r.violations.join('\n  ')}\n  replay: ` +
              `DAGU_SIM_SEED=${seed} npx vitest run server/scheduler/lease.sim.test.ts`,
          );
        }
      }
      expect(failures.join('\n')).toBe('');
      // The schedules must actually exercise failover, or the invariants hold vacuously.
      expect(takeovers).toBeGreaterThan(seeds.length);
      if (!single) expect(liveChecks).toBeGreaterThan(seeds.length / 2);
    },
    120_000,
  );
});
