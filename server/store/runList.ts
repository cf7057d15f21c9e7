// Ordering, cursors and summaries of the run list, shared by the file store and the in-memory fake so that
// both page through runs in exactly the same order.

import type { RunState, RunStatus } from '../core/types';
import type { RunListQuery, RunSummary } from './types';
import { InvalidCursorError } from './errors';
import { isoTime } from '../core/isoTime';

export const DEFAULT_RUN_LIST_LIMIT = 50;
export const MAX_RUN_LIST_LIMIT = 500;

/**
 * Sort key of a run in the list: creation time (13-digit ms, so that string order is time order) and the run
 * ID to break ties. Larger keys are newer; the cursor of a page is the key of its last item.
 */
export function runListKey(createdMs: number, runId: string): string {
  return `${formatMs13(createdMs)}~${runId}`;
}

const KEY_PATTERN = /^(\d{13})~([A-Za-z0-9_-]{1,64})$/;

/** Parses a cursor back into a key; throws InvalidCursorError if it is not one. */
export function parseCursor(cursor: string | undefined): string | null {
  if (cursor === undefined || cursor === '') return null;
  if (!KEY_PATTERN.test(cursor)) throw new InvalidCursorError(cursor);
  return cursor;
}

/** Newest first. */
export function compareKeysDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_RUN_LIST_LIMIT;
  return Math.min(MAX_RUN_LIST_LIMIT, Math.max(1, Math.floor(limit)));
}

/** 13-digit zero-padded milliseconds: sorts as text in time order until the year 2286. */
export function formatMs13(ms: number): string {
  return String(Math.max(0, Math.floor(ms))).padStart(13, '0');
}

/** Creation time of a run in ms; a record with an unparsable `created_at` sorts as if created at 0. */
export function createdMsOf(status: Pick<RunStatus, 'created_at'>): number {
  const ms = Date.parse(status.created_at);
  return Number.isFinite(ms) ? ms : 0;
}

export function summarizeRun(status: RunStatus): RunSummary {
  return {
    dag_name: status.dag_name,
    run_id: status.run_id,
    attempt: status.attempt,
    status: status.status,
    trigger_type: status.trigger_type,
    schedule_time: status.schedule_time,
    queue: status.queue,
    created_at: status.created_at,
    queued_at: status.queued_at,
    started_at: status.started_at,
    finished_at: status.finished_at,
    error: status.error,
    ...(status.labels && status.labels.length > 0 ? { labels: status.labels } : {}),
  };
}

/** The list entry of a run whose status file cannot be read: what the index knows, plus the parse error. */
export function corruptRunSummary(
  entry: { dagName: string; runId: string; createdMs: number; attempt: number },
  error: string,
): RunSummary {
  return {
    dag_name: entry.dagName,
    run_id: entry.runId,
    attempt: entry.attempt,
    status: 'corrupt',
    trigger_type: null,
    schedule_time: null,
    queue: null,
    created_at: isoTime(entry.createdMs),
    queued_at: null,
    started_at: null,
    finished_at: null,
    error,
  };
}

export function matchesQuery(summary: RunSummary, query: RunListQuery): boolean {
  if (query.dag !== undefined && summary.dag_name !== query.dag) return false;
  if (!matchesRecord(summary, query)) return false;
  const created = createdMsOf(summary);
  if (query.createdFromMs !== undefined && created < query.createdFromMs) return false;
  if (query.createdToMs !== undefined && created > query.createdToMs) return false;
  return true;
}

/** The filters that need the run's status to be read (state and trigger), as opposed to the index's. */
export function matchesRecord(summary: RunSummary, query: RunListQuery): boolean {
  if (query.status !== undefined && summary.status !== (query.status as RunState)) return false;
  if (query.trigger !== undefined && summary.trigger_type !== query.trigger) return false;
  return true;
}

/**
 * The exclusive upper bound of index keys a query may list: the older of the page's cursor and the end of
 * its time range (a key of ms <= createdToMs sorts below the 13 digits of createdToMs + 1). Null: no bound.
 */
export function upperKey(cursor: string | null, createdToMs: number | undefined): string | null {
  if (createdToMs === undefined) return cursor;
  const bound = formatMs13(createdToMs + 1);
  return cursor === null || bound < cursor ? bound : cursor;
}
