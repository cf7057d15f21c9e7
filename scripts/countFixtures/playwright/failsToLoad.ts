// Fixture for scripts/testCounts.test.ts: the spec throws while it is loaded.
import { expect, test } from '@playwright/test';

const settings = JSON.parse('{ this is not JSON') as unknown;

test('is never collected', () => {
  expect(settings).toBeDefined();
});
