// `skip_if_successful`, as Dagu decides it, schedule by schedule: a slot of a cron schedule is skipped when the
// DAG's latest run succeeded (a partial success does not count) at or after that schedule's previous slot and
// before this one. The run's time is its schedule time when it has one (truncated to the minute); a run of
// another schedule (a time this schedule does not fire at) never suppresses the slot. A run without one (started
// by hand) counts from its queue or start time, whichever is earlier, truncated to the minute: so a manual run
// between two slots stands in for the next one. When several schedules fire at the same slot, it is skipped only
// if each of them would skip it (in Dagu each schedule plans its own run, and one of them runs).

import { dueSlots } from './schedule';
import type { DagSpec, RunState, ScheduleSpec } from './types';

const MINUTE = 60_000;

/** What the rule needs of the DAG's latest run. */
export interface LatestRun {
  run_id: string;
  status: RunState | 'corrupt';
  schedule_time: string | null;
  started_at: string | null;
  queued_at?: string | null;
}

/** Whether the cron schedule `s` fires at exactly `ms`. */
function firesAt(s: ScheduleSpec, ms: number): boolean {
  return s.at_ms === undefined && dueSlots(s, ms - 1, ms, 1)[0] === ms;
}

/** The newest slot of the cron schedule `s` strictly before `slotMs`, or null. */
export function previousSlotOf(s: ScheduleSpec, slotMs: number): number | null {
  if (s.at_ms !== undefined) return null;
  const [prev] = dueSlots(s, 0, slotMs - 1, 1);
  return prev ?? null;
}

/** A time to its minute; a schedule with a seconds field (not in Dagu) keeps the seconds. */
function toSlotPrecision(s: ScheduleSpec, ms: number): number {
  return s.has_seconds ? Math.floor(ms / 1000) * 1000 : Math.floor(ms / MINUTE) * MINUTE;
}

/** When a run without a schedule time counts from: the earlier of its queue and start times. */
function manualRunTime(latest: LatestRun): number | null {
  const started = latest.started_at === null ? NaN : Date.parse(latest.started_at);
  if (Number.isNaN(started)) return null;
  const queued = latest.queued_at ? Date.parse(latest.queued_at) : NaN;
  return !Number.isNaN(queued) && queued < started ? queued : started;
}

/** Whether the cron schedule `s` skips its slot at `slotMs` because `latest` (a success) stands in for it. */
function scheduleSkips(s: ScheduleSpec, slotMs: number, latest: LatestRun): boolean {
  const scheduled = latest.schedule_time === null ? NaN : Date.parse(latest.schedule_time);
  const raw = Number.isNaN(scheduled) ? manualRunTime(latest) : scheduled;
  if (raw === null) return false;
  const at = toSlotPrecision(s, raw);
  if (!Number.isNaN(scheduled) && !firesAt(s, at)) return false;
  const prev = previousSlotOf(s, slotMs);
  return prev !== null && at >= prev && at < slotMs;
}

/** Whether the slot at `slotMs` is skipped because `latest` already succeeded since the previous slot. */
export function skipsAsSucceeded(
  dag: Pick<DagSpec, 'schedule' | 'skip_if_successful'>,
  slotMs: number,
  latest: LatestRun | null,
): boolean {
  if (!dag.skip_if_successful || latest === null || latest.status !== 'succeeded') return false;
  const firing = dag.schedule.filter((s) => firesAt(s, slotMs));
  return firing.length > 0 && firing.every((s) => scheduleSkips(s, slotMs, latest));
}
