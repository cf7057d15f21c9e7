import { describe, expect, it } from 'vitest';
import { GoDurationError, parseGoDuration } from './goDuration';

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['1s', 1000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2h45m', 9_900_000],
    ['1m30.5s', 90_500],
    ['.5s', 500],
    ['5.s', 5000],
    ['-1s', -1000],
    ['+2m', 120_000],
    ['1500us', 1.5],
    ['1µs', 0.001],
    ['1000000ns', 1],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['', 'is not a duration'],
    ['5', 'has a number without a unit'],
    ['5d', "has an unknown unit 'd'"],
    ['s', 'is not a duration'],
    ['1.5.3s', 'has a number without a unit'],
    ['1 s', "unknown unit ' s'"],
    ['3000000h', 'longer than a duration can be'],
  ])('refuses %j: %s', (text, reason) => {
    expect(() => parseGoDuration(text)).toThrow(GoDurationError);
    expect(() => parseGoDuration(text)).toThrow(reason);
  });
});
