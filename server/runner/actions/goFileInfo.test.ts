import { afterEach, describe, expect, it } from 'vitest';
import { goFileMode, goFileType, goTime } from './goFileInfo';

describe('goFileMode', () => {
  it.each([
    [0o100644, '-rw-r--r--'],
    [0o100600, '-rw-------'],
    [0o040750, 'drwxr-x---'],
    [0o041777, 'dtrwxrwxrwx'],
    [0o120777, 'Lrwxrwxrwx'],
    [0o104755, 'urwxr-xr-x'],
    [0o102755, 'grwxr-xr-x'],
    [0o020666, 'Dcrw-rw-rw-'],
    [0o060660, 'Drw-rw----'],
    [0o010644, 'prw-r--r--'],
    [0o140755, 'Srwxr-xr-x'],
  ])('writes st_mode %o as Go does: %s', (mode, text) => {
    expect(goFileMode(mode)).toBe(text);
  });

  it('names the kinds Dagu distinguishes', () => {
    expect([0o100644, 0o040755, 0o120777, 0o010644].map(goFileType)).toEqual([
      'file',
      'directory',
      'symlink',
      'other',
    ]);
  });
});

describe('goTime', () => {
  const savedTz = process.env.TZ;
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('writes UTC with Z and drops trailing zeros of the nanoseconds', () => {
    process.env.TZ = 'UTC';
    expect(goTime(1_767_225_600_123_456_789n)).toBe('2026-01-01T00:00:00.123456789Z');
    expect(goTime(1_767_225_600_500_000_000n)).toBe('2026-01-01T00:00:00.5Z');
    expect(goTime(1_767_225_600_000_000_000n)).toBe('2026-01-01T00:00:00Z');
  });

  it('writes a local time with its offset', () => {
    process.env.TZ = 'Asia/Kolkata';
    expect(goTime(1_767_225_600_010_000_000n)).toBe('2026-01-01T05:30:00.01+05:30');
    process.env.TZ = 'America/New_York';
    expect(goTime(1_767_225_600_000_000_000n)).toBe('2025-12-31T19:00:00-05:00');
  });
});
