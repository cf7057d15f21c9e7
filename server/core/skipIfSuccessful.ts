// `skip_if_successful`, as Dagu decides it, schedule by schedule: a slot of a cron schedule is skipped when the
// DAG's latest run succeeded (a partial success does not count) at or after that schedule's previous slot and
// before this one. The run's time is its schedule time when it has one (truncated to the minute); a run of
// another schedule (a time this schedule does not fire at) never suppresses the slot. A run without one (started
// by hand) counts from its queue or start time, whichever is earlier, truncated to the minute: so a manual run
// between two slots stands in for the next one. When several schedules fire at the same slot, it is skipped only
// if each of them would skip it (in Dagu each schedule plans its own run, and one of them runs).
//
// Two more of Dagu's guards (upstream internal/service/scheduler/tick_planner.go:shouldRun): a success from
// before the DAG's cron schedules (or its skip_if_successful) were last edited does not skip a slot (the
// scheduler keeps a fingerprint of them and the time it saw them change: planSkipResets); and, whatever
// skip_if_successful says, a slot does not run when the DAG's latest run was started by hand in the slot's
// minute or later (its earlier queue or start time, to the minute), as if that run were the slot's.

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
  finished_at?: string | null;
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

/**
 * Whether the slot at `slotMs` is skipped because `latest` already succeeded since the previous slot. A
 * success that ended (else started) before `resetAtMs`, when the schedules were last edited, does not count.
 */
export function skipsAsSucceeded(
  dag: Pick<DagSpec, 'schedule' | 'skip_if_successful'>,
  slotMs: number,
  latest: LatestRun | null,
  resetAtMs: number | null = null,
): boolean {
  if (!dag.skip_if_successful || latest === null || latest.status !== 'succeeded') return false;
  if (resetAtMs !== null) {
    const at = successTime(latest);
    if (at !== null && at < resetAtMs) return false;
  }
  const firing = dag.schedule.filter((s) => firesAt(s, slotMs));
  return firing.length > 0 && firing.every((s) => scheduleSkips(s, slotMs, latest));
}

/** When a success counts from for the edit reset: its end, else its start (Dagu's latestSuccessReferenceTime). */
function successTime(latest: LatestRun): number | null {
  for (const t of [latest.finished_at, latest.started_at]) {
    const ms = t ? Date.parse(t) : NaN;
    if (!Number.isNaN(ms)) return ms;
  }
  return null;
}

/**
 * Whether the DAG's latest run was started by hand (it has no schedule time) in the minute of the slot at
 * `slotMs` or later: Dagu then takes the slot as done and does not run it, whatever its status.
 */
export function startedByHandSince(slotMs: number, latest: LatestRun | null): boolean {
  if (latest === null || latest.schedule_time !== null) return false;
  const at = manualRunTime(latest);
  return at !== null && Math.floor(at / MINUTE) * MINUTE >= slotMs;
}

/** Per DAG: the fingerprint of its cron schedules and skip_if_successful, and when it last changed. */
export type SkipResets = Record<string, { fingerprint: string; reset_at_ms: number | null }>;

/** What a change of resets a DAG's past successes: its cron expressions (in any order) and the flag. */
export function scheduleFingerprint(dag: Pick<DagSpec, 'schedule' | 'skip_if_successful'>): string {
  const crons = dag.schedule
    .filter((s) => s.at_ms === undefined)
    .map((s) => `cron:${s.expression.trim()}`)
    .sort();
  return crons.length === 0 ? '' : `skip:${dag.skip_if_successful === true}|${crons.join(',')}`;
}

/**
 * The resets after seeing `dags` at `nowMs`, as Dagu's scheduler keeps them: a DAG seen for the first time is
 * recorded without a reset; a changed fingerprint resets at `nowMs`; a DAG without cron schedules, or gone,
 * is dropped. `changed` says whether the result is worth persisting.
 */
export function planSkipResets(
  dags: ReadonlyArray<Pick<DagSpec, 'name' | 'schedule' | 'skip_if_successful'>>,
  previous: SkipResets,
  nowMs: number,
): { resets: SkipResets; changed: boolean } {
  const resets: SkipResets = {};
  let changed = false;
  for (const dag of dags) {
    const fingerprint = scheduleFingerprint(dag);
    const before = Object.hasOwn(previous, dag.name) ? previous[dag.name] : undefined;
    if (fingerprint === '') continue;
    if (before?.fingerprint === fingerprint) resets[dag.name] = before;
    else {
      resets[dag.name] = { fingerprint, reset_at_ms: before ? nowMs : null };
      changed = true;
    }
  }
  if (Object.keys(previous).some((name) => !Object.hasOwn(resets, name))) changed = true;
  return { resets, changed };
}
