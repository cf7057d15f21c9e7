import { describe, expect, it } from 'vitest';
import { formatAge, formatGap } from './durationText';

describe('formatGap', () => {
  it('writes seconds with one decimal and a space before the unit', () => {
    expect(formatGap(3400)).toBe('3.4 s');
    expect(formatGap(3449)).toBe('3.4 s');
    expect(formatGap(3450)).toBe('3.5 s');
    expect(formatGap(1000)).toBe('1.0 s');
  });

  it('writes sub-second gaps in whole milliseconds', () => {
    expect(formatGap(0)).toBe('0 ms');
    expect(formatGap(849.6)).toBe('850 ms');
    expect(formatGap(999.4)).toBe('999 ms');
  });

  it('switches to minutes where one decimal would round up to 60.0 s', () => {
    expect(formatGap(59_940)).toBe('59.9 s');
    expect(formatGap(59_960)).toBe('1 min 0 s');
    expect(formatGap(125_000)).toBe('2 min 5 s');
    expect(formatGap(125_600)).toBe('2 min 6 s');
    expect(formatGap(3_780_000)).toBe('1 h 3 min');
  });

  it('keeps the sign of a gap that clock skew made negative', () => {
    expect(formatGap(-1200)).toBe('-1.2 s');
    expect(formatGap(-40)).toBe('-40 ms');
  });

  it('says unknown when the gap was not measured', () => {
    expect(formatGap(null)).toBe('unknown');
    expect(formatGap(undefined)).toBe('unknown');
    expect(formatGap(Number.NaN)).toBe('unknown');
  });
});

describe('formatAge', () => {
  it('rounds down to whole seconds below a minute', () => {
    expect(formatAge(0)).toBe('0 s');
    expect(formatAge(999)).toBe('0 s');
    expect(formatAge(12_999)).toBe('12 s');
  });

  it('uses two units above a minute', () => {
    expect(formatAge(125_000)).toBe('2 min 5 s');
    expect(formatAge(3_780_000)).toBe('1 h 3 min');
    expect(formatAge(2 * 86_400_000 + 4 * 3_600_000)).toBe('2 d 4 h');
  });

  it('never shows a negative age', () => {
    expect(formatAge(-5000)).toBe('0 s');
  });
});
