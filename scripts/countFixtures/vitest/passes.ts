// Fixture for scripts/testCounts.test.ts (run in a temp dir, never by the project's suites): all pass.
import { expect, it } from 'vitest';

it('adds', () => {
  expect(1 + 1).toBe(2);
});
