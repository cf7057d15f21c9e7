import { describe, expect, it } from 'vitest';
import { formatCountdown, holdText } from './waitText';

describe('formatCountdown', () => {
  it('writes whole seconds under a minute, rounding up', () => {
    expect(formatCountdown(0)).toBe('0s');
    expect(formatCountdown(1)).toBe('1s');
    expect(formatCountdown(41_200)).toBe('42s');
  });

  it('writes minutes and seconds, hours and minutes, days and hours', () => {
    expect(formatCountdown(72_000)).toBe('1m 12s');
    expect(formatCountdown(59_999)).toBe('1m 0s');
    expect(formatCountdown(2 * 3600_000 + 5 * 60_000)).toBe('2h 5m');
    expect(formatCountdown(3 * 86_400_000 + 4 * 3600_000)).toBe('3d 4h');
  });

  it('never goes negative', () => {
    expect(formatCountdown(-5000)).toBe('0s');
    expect(formatCountdown(Number.NaN)).toBe('0s');
  });
});

describe('holdText', () => {
  it('counts down to the failure while the hold lasts', () => {
    expect(holdText(72_000)).toBe('fails in 1m 12s');
  });

  it('says how long ago the hold ran out once it is over', () => {
    expect(holdText(0)).toBe('hold ran out 0s ago');
    expect(holdText(-3000)).toBe('hold ran out 3s ago');
  });
});
