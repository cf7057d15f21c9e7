import { describe, expect, it } from 'vitest';
import { isoTime } from './isoTime';

describe('isoTime', () => {
  it('prints what toISOString prints', () => {
    const times = [
      0,
      1,
      -1,
      Date.UTC(2026, 10, 30, 15, 4, 5, 123),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(0, 0, 1) - 1, // the last millisecond before year 0: extended year
      Date.UTC(10000, 0, 1), // year 10000: extended year
      -62167219200000, // 0000-01-01T00:00:00.000Z
      253402300799999, // 9999-12-31T23:59:59.999Z
      8.64e15,
      -8.64e15,
    ];
    // And a spread of times from 1900 to 2200.
    for (let i = 0; i < 2000; i++) times.push(-2208988800000 + i * 4733510400 + i * 7919);
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('throws for an invalid time, as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
