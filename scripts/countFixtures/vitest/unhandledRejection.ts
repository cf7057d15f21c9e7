// Fixture for scripts/testCounts.test.ts: its test passes but leaves a rejected promise nobody handles.
import { expect, it } from 'vitest';

it('passes and leaves a rejection behind', () => {
  void Promise.reject(new Error('nobody awaited this'));
  expect(1).toBe(1);
});
