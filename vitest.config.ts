import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The console's `@/` import alias (tsconfig paths), for tests that load route handlers.
const alias = { '@/': fileURLToPath(new URL('./', import.meta.url)) };

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
          include: [
            'tests/integration/**/*.test.ts',
            'tests/hostile/**/*.test.ts',
            'conformance/**/*.test.ts',
          ],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Real processes and real timings: keep files sequential so the 2 cores are not oversubscribed.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
