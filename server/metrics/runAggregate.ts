// Per-DAG totals of finished runs, folded from the event log's `dag.run.<end state>` events as runs end: the
// counts by status, the duration histogram and the last success, plus the last resume of each DAG's
// schedule. A pure fold: the same events give the same totals in any order, on every server that reads the
// shared log, and the state is plain JSON so that it can be checkpointed (runTotals.ts).

import type { EventRecord } from '../store/types';
import type { RunEventData } from '../store/runEvents';

/** Dagu's buckets of `dagu_dag_run_duration_seconds` (seconds): workflow time scales. */
export const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600] as const;

/** The end states a finished run is counted under (`partially_succeeded` is not a success). */
export const FINISHED_STATUSES = [
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
  'rejected',
] as const;
export type FinishedStatus = (typeof FINISHED_STATUSES)[number];

/** How long a counted run attempt is remembered, so that its end event written twice counts once. */
export const SEEN_WINDOW_MS = 24 * 60 * 60 * 1000;

/** One DAG's totals. */
export interface DagTotals {
  finished: Record<FinishedStatus, number>;
  /** Runs per duration bucket (not cumulative): one per DURATION_BUCKETS bound, then one for +Inf. */
  buckets: number[];
  duration_sum_seconds: number;
  duration_count: number;
  /** When its latest successful run finished (ms), null before one. */
  last_success_ms: number | null;
  /** When its schedule was last resumed (`dag.resumed`), null before that. */
  last_resume_ms: number | null;
}

/** The whole fold, as checkpointed. */
export interface RunAggregateState {
  version: 1;
  dags: Record<string, DagTotals>;
  /** `run_id#attempt` of the attempts counted, with when each finished (ms), within SEEN_WINDOW_MS. */
  seen: Record<string, number>;
  /** The newest finish time applied (ms): the clock of the pruning of `seen`, taken from the events. */
  newest_ms: number;
  /** `newest_ms` when `seen` was last pruned (pruned hourly, not at every event: that would be quadratic). */
  pruned_ms?: number;
}

export function emptyAggregate(): RunAggregateState {
  return { version: 1, dags: {}, seen: {}, newest_ms: 0 };
}

export function emptyTotals(): DagTotals {
  return {
    finished: { succeeded: 0, partially_succeeded: 0, failed: 0, aborted: 0, rejected: 0 },
    buckets: DURATION_BUCKETS.map(() => 0).concat(0),
    duration_sum_seconds: 0,
    duration_count: 0,
    last_success_ms: null,
    last_resume_ms: null,
  };
}

/** The event types the fold reads. */
export const AGGREGATED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'dag.run.succeeded',
  'dag.run.failed',
  'dag.run.aborted',
  'dag.run.rejected',
  'dag.resumed',
]);

/** Applies one event; returns whether the totals changed (an end event of an attempt already counted does not). */
export function applyEvent(state: RunAggregateState, event: EventRecord): boolean {
  if (event.type === 'dag.resumed') return applyResume(state, event);
  if (!AGGREGATED_EVENT_TYPES.has(event.type)) return false;
  const data = event.data as Partial<RunEventData>;
  const status = data.status;
  if (!status || typeof data.dag_name !== 'string' || typeof data.run_id !== 'string') return false;
  const end = status.status as FinishedStatus;
  if (!FINISHED_STATUSES.includes(end)) return false;
  const finishedMs = parseMs(status.finished_at) ?? parseMs(event.time);
  if (finishedMs === null) return false;
  const key = `${data.run_id}#${String(data.attempt ?? status.attempt ?? 1)}`;
  if (state.seen[key] !== undefined) return false;
  state.seen[key] = finishedMs;
  const totals = (state.dags[data.dag_name] ??= emptyTotals());
  totals.finished[end] = (totals.finished[end] ?? 0) + 1;
  const startedMs = parseMs(status.started_at);
  if (startedMs !== null && finishedMs >= startedMs) {
    const seconds = (finishedMs - startedMs) / 1000;
    const i = DURATION_BUCKETS.findIndex((le) => seconds <= le);
    totals.buckets[i < 0 ? DURATION_BUCKETS.length : i] += 1;
    totals.duration_sum_seconds += seconds;
    totals.duration_count += 1;
  }
  if (end === 'succeeded') totals.last_success_ms = Math.max(totals.last_success_ms ?? 0, finishedMs);
  if (finishedMs > state.newest_ms) {
    state.newest_ms = finishedMs;
    if (finishedMs - (state.pruned_ms ?? 0) >= PRUNE_EVERY_MS) pruneSeen(state);
  }
  return true;
}

function applyResume(state: RunAggregateState, event: EventRecord): boolean {
  const dag = event.data.dag;
  const at = parseMs(event.time);
  if (typeof dag !== 'string' || at === null) return false;
  const totals = (state.dags[dag] ??= emptyTotals());
  if ((totals.last_resume_ms ?? 0) >= at) return false;
  totals.last_resume_ms = at;
  return true;
}

/** How far the newest finish time moves between two prunings of `seen`. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** Forgets counted attempts that finished more than SEEN_WINDOW_MS before the newest one. */
function pruneSeen(state: RunAggregateState): void {
  state.pruned_ms = state.newest_ms;
  const horizon = state.newest_ms - SEEN_WINDOW_MS;
  for (const [key, ms] of Object.entries(state.seen)) if (ms < horizon) delete state.seen[key];
}

/** A checkpointed state as read back, or null when it is not one (the caller starts over and says so). */
export function parseAggregate(value: unknown): RunAggregateState | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Partial<RunAggregateState>;
  if (v.version !== 1 || typeof v.dags !== 'object' || v.dags === null) return null;
  if (typeof v.seen !== 'object' || v.seen === null || typeof v.newest_ms !== 'number') return null;
  for (const t of Object.values(v.dags)) {
    if (typeof t !== 'object' || t === null || !Array.isArray(t.buckets)) return null;
    if (t.buckets.length !== DURATION_BUCKETS.length + 1 || typeof t.finished !== 'object') return null;
    // A checkpoint written before a status was counted (rejected) lacks its count: it starts at 0.
    for (const status of FINISHED_STATUSES) t.finished[status] ??= 0;
  }
  return v as RunAggregateState;
}

function parseMs(iso: unknown): number | null {
  if (typeof iso !== 'string') return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
