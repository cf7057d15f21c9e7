import { describe, expect, it } from 'vitest';
import { parseSchedule } from './schedule';
import { previousSlot, skipsAsSucceeded, type LatestRun } from './skipIfSuccessful';
import type { ScheduleSpec } from './types';

const hourly = (() => {
  const r = parseSchedule('0 * * * *');
  if (!r.ok) throw new Error(r.error);
  return r.schedule as ScheduleSpec;
})();
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
    expect(previousSlot(dag, slot)).toBe(Date.UTC(2026, 11, 1, 9));
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
});
