import { describe, expect, it } from 'vitest';
import { ageSinceText, ageText, type LiveClock } from './liveClock';

// The answer was written at 12:00:00 server time and arrived at browser time 100 s; it is now 103.5 s.
const clock: LiveClock = { generatedAt: '2026-01-01T12:00:00Z', fetchedAtMs: 100_000, nowMs: 103_500 };

describe('ageText', () => {
  it('advances a server-measured age by the time since the answer arrived', () => {
    expect(ageText(clock, 2000)).toBe('5 s');
  });

  it('shows the server age as it was before the browser ticks (server rendering)', () => {
    expect(ageText({ ...clock, nowMs: null }, 2000)).toBe('2 s');
  });

  it('shows the fallback for an unknown age', () => {
    expect(ageText(clock, null)).toBe('—');
    expect(ageText(clock, null, 'never')).toBe('never');
  });
});

describe('ageSinceText', () => {
  it('measures a timestamp against the server time of the answer, not the browser clock', () => {
    expect(ageSinceText(clock, '2026-01-01T11:59:00Z')).toBe('1 min 3 s');
  });

  it('shows the fallback for a missing or unreadable timestamp', () => {
    expect(ageSinceText(clock, null)).toBe('—');
    expect(ageSinceText(clock, 'yesterday', 'unknown')).toBe('unknown');
  });
});
