// Fixture for scripts/testCounts.test.ts: its test passes, then its afterAll throws.
import { afterAll, expect, it } from 'vitest';

afterAll(() => {
  throw new Error('teardown broke');
});

it('passes', () => {
  expect(1).toBe(1);
});
