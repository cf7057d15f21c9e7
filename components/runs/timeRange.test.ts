import { describe, expect, it } from 'vitest';
import { fromLocalInput, isPreset, timeBounds, toLocalInput } from './timeRange';

const NOW = Date.UTC(2026, 2, 8, 12, 30, 45);

describe('timeBounds', () => {
  it('turns a preset into its start, rounded down to the minute', () => {
    expect(timeBounds({ range: '1h' }, NOW)).toEqual({ from: '2026-03-08T11:30:00.000Z' });
    expect(timeBounds({ range: '7d' }, NOW)).toEqual({ from: '2026-03-01T12:30:00.000Z' });
  });

  it('passes a custom range through, and nothing for no filter', () => {
    expect(timeBounds({ from: '2026-03-01T00:00:00Z', to: '' }, NOW)).toEqual({
      from: '2026-03-01T00:00:00Z',
      to: undefined,
    });
    expect(timeBounds({}, NOW)).toEqual({ from: undefined, to: undefined });
  });

  it('knows its presets', () => {
    expect(isPreset('24h')).toBe(true);
    expect(isPreset('custom')).toBe(false);
  });
});

describe('local inputs', () => {
  it('round-trips a time through a datetime-local value, to the minute', () => {
    const iso = '2026-03-01T10:15:00.000Z';
    expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
    expect(toLocalInput(undefined)).toBe('');
    expect(fromLocalInput('')).toBeUndefined();
    expect(fromLocalInput('not a time')).toBeUndefined();
  });
});
