// Time and duration text for the console. Absolute times are UTC (the same on server and browser, so server
// rendering and hydration agree); relative times are computed only in the browser (see useNow).

import { DAY, HOUR, MINUTE, SECOND } from '@/server/core/units';

/** `2026-11-30 01:15:00Z`, or an em dash for no time. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, 'Z');
}

/** `1h 2m`, `3m 4s`, `5.2s`, `120ms`. */
export function formatDurationMs(ms: number): string {
  if (ms < SECOND) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < MINUTE) return `${(ms / SECOND).toFixed(1)}s`;
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)}m ${Math.floor((ms % MINUTE) / SECOND)}s`;
  if (ms < DAY) return `${Math.floor(ms / HOUR)}h ${Math.floor((ms % HOUR) / MINUTE)}m`;
  return `${Math.floor(ms / DAY)}d ${Math.floor((ms % DAY) / HOUR)}h`;
}

/** Duration between two times; a missing end means "still going" and uses `nowMs` (null: unknown yet). */
export function formatSpan(start: string | null, end: string | null, nowMs: number | null): string {
  if (!start) return '—';
  const endMs = end ? Date.parse(end) : nowMs;
  if (endMs === null) return '…';
  return formatDurationMs(endMs - Date.parse(start));
}

/** `in 3m 4s` or `5.0s ago`. */
export function formatRelative(iso: string | null, nowMs: number | null): string {
  if (!iso || nowMs === null) return '';
  const delta = Date.parse(iso) - nowMs;
  return delta >= 0 ? `in ${formatDurationMs(delta)}` : `${formatDurationMs(-delta)} ago`;
}
