// Fixture for scripts/testCounts.test.ts: one test runs; one is skipped, one skips itself, one is fixme.
import { expect, test } from '@playwright/test';

test('runs', () => {
  expect(1).toBe(1);
});

test.skip('is skipped', () => {});

test('skips itself', () => {
  test.skip(true, 'a tool is missing');
});

test.fixme('is broken', () => {});
