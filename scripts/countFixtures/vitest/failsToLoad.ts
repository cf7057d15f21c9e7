// Fixture for scripts/testCounts.test.ts: the module throws while it is collected, so no test exists.
import { expect, it } from 'vitest';

const settings = JSON.parse('{ this is not JSON') as unknown;

it('is never collected', () => {
  expect(settings).toBeDefined();
});
