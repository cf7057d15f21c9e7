// Fixture for scripts/testCounts.test.ts: a describe block whose beforeAll throws, as the fault suite's does
// when FUSE or faketime is missing. Vitest then marks its tests skipped, not failed.
import { beforeAll, describe, expect, it } from 'vitest';

describe('needs a tool', () => {
  beforeAll(() => {
    throw new Error('the tool is missing');
  });

  it('uses the tool', () => {
    expect(1).toBe(1);
  });

  it('uses the tool again', () => {
    expect(1).toBe(1);
  });
});
