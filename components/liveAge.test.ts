import { describe, expect, it } from 'vitest';
import { liveAgeMs, liveAgeSince } from './liveAge';

describe('liveAgeMs', () => {
  it('adds the time passed since the answer arrived to the age the server measured', () => {
    expect(liveAgeMs(1500, 10_000, 13_000)).toBe(4500);
  });

  it('keeps the server age before the browser knows the time (server rendering)', () => {
    expect(liveAgeMs(1500, 10_000, null)).toBe(1500);
  });

  it('does not let a browser clock that moved backwards shrink the age', () => {
    expect(liveAgeMs(1500, 10_000, 8000)).toBe(1500);
  });

  it('keeps an unknown age unknown', () => {
    expect(liveAgeMs(null, 10_000, 13_000)).toBeNull();
  });
});

describe('liveAgeSince', () => {
  it('measures against the server time of the answer, not the browser clock', () => {
    // The browser clock is far off (fetched at 5 s of its own epoch); only the 2 s passed since counts.
    const age = liveAgeSince('2026-11-30T01:00:00Z', '2026-11-30T01:00:03.500Z', 5000, 7000);
    expect(age).toBe(5500);
  });

  it('is null for a missing or unreadable time', () => {
    expect(liveAgeSince(null, '2026-11-30T01:00:00Z', 0, 0)).toBeNull();
    expect(liveAgeSince('yesterday', '2026-11-30T01:00:00Z', 0, 0)).toBeNull();
    expect(liveAgeSince('2026-11-30T01:00:00Z', 'now', 0, 0)).toBeNull();
  });
});
