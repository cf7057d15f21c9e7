import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// The console's `@/` import alias (tsconfig paths), for tests that load route handlers.
const alias = { '@/': fileURLToPath(new URL('./', import.meta.url)) };

/** The files that start real processes: the integration, hostile-input and conformance tests. */
const INTEGRATION = [
  'tests/integration/**/*.test.ts',
  'tests/hostile/**/*.test.ts',
  'conformance/**/*.test.ts',
];

/**
 * Integration files that run alone: those whose assertions are about timing, which a second file beside them
 * could skew, and those that already run their cases concurrently and fill both cores by themselves.
 */
const ALONE = [
  'conformance/dagu_dag_language/language.test.ts',
  'conformance/dagu_1x/dagu1x.test.ts',
  'conformance/spec085_scheduler_ha/**/*.test.ts',
  'tests/integration/chaos.test.ts',
  'tests/integration/postgres/backend.test.ts',
  'tests/integration/postgres/chaos.test.ts',
  'tests/integration/postgres/faults.test.ts',
  'tests/integration/postgres/leaseFailover.test.ts',
];

/** What both projects of real-process files share: they wait on processes, so their timeouts are long. */
const PROCESS_FILES = { environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 } as const;

export default defineConfig({
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          // components/: the console's pure logic (no DOM: the project stays on node, without jsdom).
          include: ['server/**/*.test.ts', 'scripts/**/*.test.ts', 'components/**/*.test.ts'],
          environment: 'node',
          // Vitest's default is one worker fewer than the cores: on the 2-core CI machine one, and the unit files
          // ran one after another with a core idle. Two workers take that phase from about 245 s to 170 s.
          maxWorkers: 2,
          // Some unit files start real shells and step processes; on a loaded machine (CI beside a CPU hog)
          // Vitest's 5 s default has failed such a test that was only slow. A hang still fails, at 30 s.
          testTimeout: 30_000,
          hookTimeout: 30_000,
          // Unit files first, in parallel; the integration files after them, so that the lease simulations
          // do not compete for the 2 cores with real schedulers whose timing the integration tests measure.
          sequence: { groupOrder: 0 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          ...PROCESS_FILES,
          include: INTEGRATION,
          exclude: [...configDefaults.exclude, ...ALONE],
          // Real processes, but mostly waiting on them: two files at a time keep both cores busy. Run one after
          // another, these files took about 800 s of the CI's 30 minutes, half of it with a core idle.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'alone',
          ...PROCESS_FILES,
          include: ALONE,
          // Failover and fault tests measure how long the product takes (a takeover within its lease, a stall
          // noticed within its timeout); the language conformance files run five cases at once. One file after
          // another, after everything else.
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
