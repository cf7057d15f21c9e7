import { describe, expect, it } from 'vitest';
import { expectedIntervalMs } from './scheduleInterval';
import { parseAtSchedule, parseSchedule } from './schedule';
import type { ScheduleSpec } from './types';
import { DAY, HOUR, MINUTE, SECOND } from './units';

const cron = (e: string): ScheduleSpec => {
  const r = parseSchedule(e);
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
};
const FROM = Date.parse('2026-11-30T01:14:30Z'); // a Monday

describe('expectedIntervalMs', () => {
  it('is the period of a regular schedule', () => {
    expect(expectedIntervalMs([cron('*/5 * * * *')], FROM)).toBe(5 * MINUTE);
    expect(expectedIntervalMs([cron('*/2 * * * * *')], FROM)).toBe(2 * SECOND);
    expect(expectedIntervalMs([cron('0 3 * * *')], FROM)).toBe(DAY);
  });

  it('is the longest gap, not the average: a weekday schedule expects the weekend', () => {
    expect(expectedIntervalMs([cron('0 9 * * 1-5')], FROM)).toBe(3 * DAY);
    expect(expectedIntervalMs([cron('0 8,20 * * *')], FROM)).toBe(12 * HOUR);
    expect(expectedIntervalMs([cron('0 6,9 * * *')], FROM)).toBe(21 * HOUR);
  });

  it('merges several schedules, a slot they share counting once', () => {
    expect(expectedIntervalMs([cron('0 * * * *'), cron('30 * * * *')], FROM)).toBe(30 * MINUTE);
    expect(expectedIntervalMs([cron('0 * * * *'), cron('0 */2 * * *')], FROM)).toBe(HOUR);
  });

  it('follows the time zone of CRON_TZ across a change of daylight saving time', () => {
    const march = Date.parse('2026-03-25T00:00:00Z');
    // 02:30 Berlin does not exist on 2026-03-29: whatever the cron library makes of it, the gap stays a day or two.
    const gap = expectedIntervalMs([cron('CRON_TZ=Europe/Berlin 30 1 * * *')], march)!;
    expect(gap).toBeGreaterThanOrEqual(DAY);
    expect(gap).toBeLessThanOrEqual(DAY + HOUR);
  });

  it('has none without a cron schedule', () => {
    expect(expectedIntervalMs([], FROM)).toBeNull();
    const at = parseAtSchedule('2026-12-24T09:00:00+01:00');
    if (!at.ok) throw new Error(at.error);
    expect(expectedIntervalMs([at.schedule], FROM)).toBeNull();
  });
});
