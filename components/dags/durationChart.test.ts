import { describe, expect, it } from 'vitest';
import { median, niceCeiling, sparklinePath, trendGeometry, xAt, yScale } from './durationChart';

describe('median', () => {
  it('is the middle known value, or the mean of the two middle ones, ignoring gaps', () => {
    expect(median([3, null, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null])).toBeNull();
  });
});

describe('scales', () => {
  it('puts 0 ms at the bottom and the maximum at the top, inside the padding', () => {
    const y = yScale(100, 20, 2);
    expect(y(0)).toBe(18);
    expect(y(100)).toBe(2);
    expect(y(50)).toBe(10);
    expect(y(500)).toBe(2);
  });

  it('spreads points across the width and centres a single one', () => {
    expect([0, 1, 2].map((i) => xAt(i, 3, 104))).toEqual([2, 52, 102]);
    expect(xAt(0, 1, 100)).toBe(50);
  });
});

describe('sparklinePath', () => {
  it('draws the durations oldest left, the longest at the top', () => {
    expect(sparklinePath([10, 20], 104, 24)).toBe('M2 12 L102 2');
  });

  it('breaks the line at a run without a duration', () => {
    expect(sparklinePath([10, null, 10], 104, 24)).toBe('M2 2 M102 2');
  });

  it('is empty when no duration is known', () => {
    expect(sparklinePath([null, null], 100, 20)).toBe('');
    expect(sparklinePath([], 100, 20)).toBe('');
  });
});

describe('trendGeometry', () => {
  it('gives one bar per run with a duration, a median line and a round scale', () => {
    const g = trendGeometry([1000, null, 3000, 4000], 400, 100);
    expect(g.max).toBe(5000);
    expect(g.bars[1]).toBeNull();
    expect(g.bars[0]).toEqual({ x: 38, y: 80, width: 24, height: 20 });
    expect(g.median).toBe(3000);
    expect(g.medianY).toBe(40);
    expect(g.ticks).toEqual([0, 2500, 5000]);
  });

  it('rounds the scale up to 1, 2 or 5 times a power of ten', () => {
    expect(niceCeiling(1200)).toBe(2000);
    expect(niceCeiling(4999)).toBe(5000);
    expect(niceCeiling(5001)).toBe(10000);
    expect(niceCeiling(0)).toBe(1000);
  });
});
