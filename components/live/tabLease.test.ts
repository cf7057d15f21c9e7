import { describe, expect, it } from 'vitest';
import { LEASE_STALE_MS, leaseDecision, parseLease } from './tabLease';

describe('the tab lease of the event stream', () => {
  it('is claimed when nobody holds it or the holder stopped renewing', () => {
    expect(leaseDecision(null, 'a', 1000)).toBe('claim');
    expect(leaseDecision({ tab: 'b', atMs: 1000 }, 'a', 1000 + LEASE_STALE_MS + 1)).toBe('claim');
    expect(leaseDecision({ tab: 'b', atMs: 1000 + 3 * LEASE_STALE_MS }, 'a', 1000)).toBe('claim');
  });

  it('is left to a holder that renews, and renewed by its holder', () => {
    expect(leaseDecision({ tab: 'b', atMs: 1000 }, 'a', 1000 + LEASE_STALE_MS)).toBe('wait');
    expect(leaseDecision({ tab: 'a', atMs: 0 }, 'a', 1000 + LEASE_STALE_MS * 10)).toBe('hold');
  });

  it('reads only a well-formed record', () => {
    expect(parseLease('{"tab":"a","atMs":5}')).toEqual({ tab: 'a', atMs: 5 });
    expect(parseLease('{"tab":1}')).toBeNull();
    expect(parseLease('nope')).toBeNull();
    expect(parseLease(null)).toBeNull();
  });
});
