// Fixture for scripts/testCounts.test.ts, run with a global timeout shorter than its tests: the run stops
// before they end.
import { test } from '@playwright/test';

test('takes long', async () => {
  await new Promise((resolve) => setTimeout(resolve, 20_000));
});

test('never starts', () => {});
