import { describe, expect, it } from 'vitest';
import { SECOND } from './units';
import { storeQueryTimeoutMs } from './storeQueryTimeout';

describe('storeQueryTimeoutMs', () => {
  it('is a quarter of the heartbeat stale threshold, within 2 s and 10 s', () => {
    expect(storeQueryTimeoutMs(20 * SECOND)).toBe(5 * SECOND);
    expect(storeQueryTimeoutMs(3 * SECOND)).toBe(2 * SECOND);
    expect(storeQueryTimeoutMs(45 * SECOND)).toBe(10 * SECOND);
  });
});
