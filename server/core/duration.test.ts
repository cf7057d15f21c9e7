import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['2m', 120_000],
    ['1h30m', 5_400_000],
    ['0s', 0],
    ['0', 0],
    ['1.5s', 1500],
    ['250ms', 250],
    ['2d', 172_800_000],
    ['-5s', -5000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ok: true, ms });
  });

  it.each(['abc', '', '5', '5x', 's', '1h 30m', '--5s'])('refuses %j with a message', (text) => {
    const r = parseDuration(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/duration/);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [120_000, '2m0s'],
    [5_400_000, '1h30m0s'],
    [30_000, '30s'],
    [1500, '1.5s'],
    [500, '500ms'],
    [-5000, '-5s'],
    [3_600_000, '1h0m0s'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
