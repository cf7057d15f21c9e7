// Fixture for scripts/testCounts.test.ts: one test runs, one is skipped.
import { expect, it } from 'vitest';

it('runs', () => {
  expect(1).toBe(1);
});

it.skip('is skipped', () => {
  expect(1).toBe(1);
});
