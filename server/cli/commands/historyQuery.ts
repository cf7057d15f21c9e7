// The filters of `dagu history`, read from its flags as Dagu reads them: a time window (`--from`/`--to` in
// UTC, or `--last 7d`; the last 30 days by default), statuses (Dagu's names and aliases), a run ID fragment,
// labels (`--labels`, or its deprecated alias `--tags`) and a row limit. Pure: `nowMs` comes in.

import { labelsFlagText, parseLabelFilters, type LabelFilter } from '../../core/runLabels';
import type { RunState } from '../../core/types';
import { DAY, HOUR } from '../../core/units';

export interface HistoryFlags {
  from?: string;
  to?: string;
  last?: string;
  status?: string;
  runId?: string;
  labels?: string;
  tags?: string;
  limit?: string;
}

export interface HistoryQuery {
  fromMs: number | null;
  toMs: number | null;
  /** Null: any status. Dagu's `not_started` names no state here and match nothing. */
  statuses: Set<RunState> | null;
  runIdPart: string | null;
  /** Every one must match the run's labels (Dagu's AND); empty: any run. */
  labelFilters: LabelFilter[];
  limit: number;
  /** A note for stderr (a limit above the maximum was capped), or null. */
  warning: string | null;
}

export const HISTORY_DEFAULT_LIMIT = 100;
export const HISTORY_MAX_LIMIT = 1000;
const DEFAULT_WINDOW_MS = 30 * DAY;

const STATUS_NAMES: Record<string, RunState | null> = {
  queued: 'queued',
  running: 'running',
  succeeded: 'succeeded',
  success: 'succeeded',
  failed: 'failed',
  failure: 'failed',
  aborted: 'aborted',
  canceled: 'aborted',
  cancelled: 'aborted',
  cancel: 'aborted',
  partially_succeeded: 'partially_succeeded',
  partiallysucceeded: 'partially_succeeded',
  waiting: 'waiting',
  rejected: 'rejected',
  not_started: null,
  notstarted: null,
};

/** The query, or the first flag that is wrong, named with its value. */
export function readHistoryFlags(
  flags: HistoryFlags,
  nowMs: number,
): { ok: true; query: HistoryQuery } | { ok: false; error: string } {
  const labels = labelsFlagText(flags);
  if (!labels.ok) return { ok: false, error: labels.error };
  if (flags.last !== undefined && (flags.from !== undefined || flags.to !== undefined))
    return { ok: false, error: '--last cannot be combined with --from or --to' };
  let fromMs: number | null = null;
  let toMs: number | null = null;
  if (flags.last !== undefined) {
    const span = parseSpan(flags.last);
    if (span === null)
      return {
        ok: false,
        error: `--last ${JSON.stringify(flags.last)}: use a number and h, d or w (24h, 7d, 1w)`,
      };
    fromMs = nowMs - span;
  } else {
    if (flags.from !== undefined) {
      fromMs = parseUtc(flags.from);
      if (fromMs === null) return { ok: false, error: badTime('--from', flags.from) };
    }
    if (flags.to !== undefined) {
      toMs = parseUtc(flags.to);
      if (toMs === null) return { ok: false, error: badTime('--to', flags.to) };
    }
    if (fromMs !== null && toMs !== null && fromMs > toMs)
      return { ok: false, error: `--from ${flags.from} is after --to ${flags.to}` };
    if (fromMs === null && toMs === null) fromMs = nowMs - DEFAULT_WINDOW_MS;
  }
  let statuses: Set<RunState> | null = null;
  if (flags.status !== undefined) {
    statuses = new Set();
    const words = flags.status
      .split(',')
      .map((w) => w.trim().toLowerCase())
      .filter((w) => w !== '');
    if (words.length === 0) return { ok: false, error: '--status is empty' };
    for (const word of words) {
      if (!Object.hasOwn(STATUS_NAMES, word))
        return {
          ok: false,
          error:
            `--status ${JSON.stringify(word)} is not a status (use queued, running, succeeded, ` +
            'partially_succeeded, failed, aborted, waiting or rejected; several separated by commas)',
        };
      const state = STATUS_NAMES[word];
      if (state !== null) statuses.add(state);
    }
  }
  let limit = HISTORY_DEFAULT_LIMIT;
  let warning: string | null = null;
  if (flags.limit !== undefined) {
    if (!/^\d+$/.test(flags.limit) || Number(flags.limit) < 1)
      return {
        ok: false,
        error: `--limit ${JSON.stringify(flags.limit)} is not a whole number of 1 or more`,
      };
    limit = Number(flags.limit);
    if (limit > HISTORY_MAX_LIMIT) {
      warning = `--limit ${limit} is capped at ${HISTORY_MAX_LIMIT}`;
      limit = HISTORY_MAX_LIMIT;
    }
  }
  const runIdPart = flags.runId === undefined || flags.runId === '' ? null : flags.runId;
  const labelFilters = labels.text === undefined ? [] : parseLabelFilters(labels.text);
  return { ok: true, query: { fromMs, toMs, statuses, runIdPart, labelFilters, limit, warning } };
}

function badTime(flag: string, value: string): string {
  return `${flag} ${JSON.stringify(value)}: use 2026-01-31 or 2026-01-31T15:04:05Z (UTC)`;
}

/** `2026-01-31`, `2026-01-31T15:04:05` (both UTC) or an RFC 3339 time with its offset. */
export function parseUtc(text: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(text);
  if (!m) return null;
  const iso = m[4] === undefined ? `${text}T00:00:00Z` : m[7] === undefined ? `${text}Z` : text;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}

/** `24h`, `7d`, `1w` in ms, or null. */
export function parseSpan(text: string): number | null {
  const m = /^(\d{1,6})([hdw])$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * { h: HOUR, d: DAY, w: 7 * DAY }[m[2] as 'h' | 'd' | 'w'];
}

/** Dagu's duration column: `< 1s`, `42s`, `2m30s`, `1h5m`, `2d3h` (the two largest units). */
export function formatElapsed(ms: number): string {
  if (ms < 0) return '-';
  if (ms < 1000) return '< 1s';
  const s = Math.floor(ms / 1000);
  const [d, h, m, sec] = [Math.floor(s / 86400), Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60];
  const two = (a: number, au: string, b: number, bu: string) => `${a}${au}${b > 0 ? `${b}${bu}` : ''}`;
  if (d > 0) return two(d, 'd', h, 'h');
  if (h > 0) return two(h, 'h', m, 'm');
  if (m > 0) return two(m, 'm', sec, 's');
  return `${sec}s`;
}
