import { describe, expect, it } from 'vitest';
import { parseSchedule } from './schedule';
import { previousSlotOf, skipsAsSucceeded, type LatestRun } from './skipIfSuccessful';
import type { ScheduleSpec } from './types';

const cron = (text: string) => {
  const r = parseSchedule(text);
  if (!r.ok) throw new Error(r.error);
  return r.schedule as ScheduleSpec;
};
const hourly = cron('0 * * * *');
const dag = { schedule: [hourly], skip_if_successful: true };
const slot = Date.UTC(2026, 11, 1, 10);
const run = (over: Partial<LatestRun>): LatestRun => ({
  run_id: 'r',
  status: 'succeeded',
  schedule_time: null,
  started_at: null,
  ...over,
});

describe('skip_if_successful', () => {
  it('finds the previous slot of the schedule', () => {
    expect(previousSlotOf(hourly, slot)).toBe(Date.UTC(2026, 11, 1, 9));
  });

  it('skips when the latest run succeeded at or after the previous slot', () => {
    expect(skipsAsSucceeded(dag, slot, run({ started_at: '2026-12-01T09:30:00Z' }))).toBe(true);
    expect(skipsAsSucceeded(dag, slot, run({ schedule_time: '2026-12-01T09:00:00Z' }))).toBe(true);
  });

  it('runs when the success is older, partial, failed, or the key is off', () => {
    expect(skipsAsSucceeded(dag, slot, run({ started_at: '2026-12-01T08:59:59Z' }))).toBe(false);
    expect(
      skipsAsSucceeded(dag, slot, run({ status: 'partially_succeeded', started_at: '2026-12-01T09:30:00Z' })),
    ).toBe(false);
    expect(skipsAsSucceeded(dag, slot, run({ status: 'failed', started_at: '2026-12-01T09:30:00Z' }))).toBe(
      false,
    );
    expect(
      skipsAsSucceeded(
        { ...dag, skip_if_successful: false },
        slot,
        run({ started_at: '2026-12-01T09:30:00Z' }),
      ),
    ).toBe(false);
    expect(skipsAsSucceeded(dag, slot, null)).toBe(false);
    // The schedule time counts before the start time: a 9:00 slot run that started late still counts.
    expect(
      skipsAsSucceeded(
        dag,
        slot,
        run({ schedule_time: '2026-12-01T08:00:00Z', started_at: '2026-12-01T09:10:00Z' }),
      ),
    ).toBe(false);
  });

  describe('each schedule by its own slots', () => {
    const twice = { schedule: [cron('0 9 * * *'), cron('0 17 * * *')], skip_if_successful: true };
    const five = Date.UTC(2026, 11, 1, 17);

    it('a run of another schedule does not suppress the slot', () => {
      expect(skipsAsSucceeded(twice, five, run({ schedule_time: '2026-12-01T09:00:00Z' }))).toBe(false);
      // The same schedule's previous slot does.
      expect(skipsAsSucceeded(twice, five, run({ schedule_time: '2026-11-30T17:00:00Z' }))).toBe(true);
    });

    it('a manual run counts from the previous slot of the firing schedule', () => {
      // 08:00 is after yesterday's 17:00 slot, though before today's 09:00 one.
      expect(skipsAsSucceeded(twice, five, run({ started_at: '2026-12-01T08:00:00Z' }))).toBe(true);
      expect(skipsAsSucceeded(twice, five, run({ started_at: '2026-11-30T16:59:00Z' }))).toBe(false);
    });

    it('a slot two schedules share is skipped only when both would skip it', () => {
      const both = { schedule: [cron('0 * * * *'), cron('0 */2 * * *')], skip_if_successful: true };
      const ten = Date.UTC(2026, 11, 1, 10);
      expect(skipsAsSucceeded(both, ten, run({ started_at: '2026-12-01T09:30:00Z' }))).toBe(true);
      expect(skipsAsSucceeded(both, ten, run({ schedule_time: '2026-12-01T09:00:00Z' }))).toBe(false);
      expect(skipsAsSucceeded(both, ten, run({ schedule_time: '2026-12-01T08:00:00Z' }))).toBe(false);
    });

    it('a slot no schedule fires at is not skipped', () => {
      expect(skipsAsSucceeded(dag, slot + 60_000, run({ started_at: '2026-12-01T09:30:00Z' }))).toBe(false);
    });
  });

  it('a manual run counts from the earlier of its queue and start times, to the minute', () => {
    // Queued 08:59:50, started 09:00:10: it counts as 08:59, before the 09:00 slot.
    expect(
      skipsAsSucceeded(
        dag,
        slot,
        run({ queued_at: '2026-12-01T08:59:50Z', started_at: '2026-12-01T09:00:10Z' }),
      ),
    ).toBe(false);
    expect(skipsAsSucceeded(dag, slot, run({ started_at: '2026-12-01T09:00:59Z' }))).toBe(true);
  });
});
