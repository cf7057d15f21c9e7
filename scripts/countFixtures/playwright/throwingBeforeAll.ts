// Fixture for scripts/testCounts.test.ts: the file's beforeAll throws; Playwright fails the first test and
// reports the others as skipped.
import { expect, test } from '@playwright/test';

test.beforeAll(() => {
  throw new Error('the cluster did not start');
});

test('first', () => {
  expect(1).toBe(1);
});

test('second', () => {
  expect(1).toBe(1);
});
