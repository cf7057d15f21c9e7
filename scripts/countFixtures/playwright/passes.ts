// Fixture for scripts/testCounts.test.ts (run in a temp dir without a browser): all pass.
import { expect, test } from '@playwright/test';

test('adds', () => {
  expect(1 + 1).toBe(2);
});
