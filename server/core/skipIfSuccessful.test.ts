import { describe, expect, it } from 'vitest';
import { parseSchedule } from './schedule';
import {
  planSkipResets,
  previousSlotOf,
  skipsAsSucceeded,
  startedByHandSince,
  type LatestRun,
} from './skipIfSuccessful';
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

describe("Dagu's edit reset and the run started by hand", () => {
  const dag = { name: 'etl', schedule: [cron('0 * * * *')], skip_if_successful: true };
  const success = {
    run_id: 'r',
    status: 'succeeded' as const,
    schedule_time: null,
    started_at: '2026-12-01T09:30:00Z',
    finished_at: '2026-12-01T09:40:00Z',
  };
  const ten = Date.parse('2026-12-01T10:00:00Z');

  it('does not count a success that ended before the schedule was last edited', () => {
    expect(skipsAsSucceeded(dag, ten, success, Date.parse('2026-12-01T09:45:00Z'))).toBe(false);
    expect(skipsAsSucceeded(dag, ten, success, Date.parse('2026-12-01T09:35:00Z'))).toBe(true);
    expect(skipsAsSucceeded(dag, ten, success, null)).toBe(true);
  });

  it('takes a slot as done when the latest run was started by hand in its minute or later', () => {
    const byHand = { ...success, status: 'failed' as const, started_at: '2026-12-01T10:00:59Z' };
    expect(startedByHandSince(ten, byHand)).toBe(true);
    expect(startedByHandSince(ten, { ...byHand, started_at: '2026-12-01T09:59:59Z' })).toBe(false);
    expect(startedByHandSince(ten, { ...byHand, queued_at: '2026-12-01T09:59:00Z' })).toBe(false);
    expect(startedByHandSince(ten, { ...byHand, schedule_time: '2026-12-01T10:00:00Z' })).toBe(false);
    expect(startedByHandSince(ten, null)).toBe(false);
  });

  it('resets when the cron expressions or the flag change, not when they are reordered or first seen', () => {
    const two = { ...dag, schedule: [cron('0 * * * *'), cron('30 * * * *')] };
    const seen = planSkipResets([two], {}, 1000);
    expect(seen).toEqual({
      resets: { etl: { fingerprint: 'skip:true|cron:0 * * * *,cron:30 * * * *', reset_at_ms: null } },
      changed: true,
    });
    const reordered = { ...two, schedule: [...two.schedule].reverse() };
    expect(planSkipResets([reordered], seen.resets, 2000)).toEqual({ resets: seen.resets, changed: false });
    expect(planSkipResets([dag], seen.resets, 3000).resets.etl.reset_at_ms).toBe(3000);
    expect(planSkipResets([{ ...two, skip_if_successful: false }], seen.resets, 4000).resets.etl).toEqual({
      fingerprint: 'skip:false|cron:0 * * * *,cron:30 * * * *',
      reset_at_ms: 4000,
    });
    expect(planSkipResets([{ ...dag, schedule: [] }], seen.resets, 5000)).toEqual({
      resets: {},
      changed: true,
    });
    expect(planSkipResets([], seen.resets, 5000)).toEqual({ resets: {}, changed: true });
  });
});
