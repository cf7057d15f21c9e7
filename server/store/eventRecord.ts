// Event records as stored: IDs, the one-line JSON form (under 4 KiB so that appends do not interleave),
// parsing it back, and the list filters; shared by the file log and its in-memory fake.

import { randomHex } from './randomHex';
import type { Clock } from '../core/ports';
import type { EventRecord } from './types';
import { formatMs13 } from './runList';
import { isoTime } from '../core/isoTime';

export const EVENT_ID_PATTERN = /^\d{13}-[0-9a-f]{10}$/;

/**
 * Hands out event IDs `<ms13>-<counter4 hex><random6 hex>`: text order is time order, IDs from one process
 * grow strictly even within a millisecond or when the wall clock steps back, the random part keeps hosts apart.
 */
export class EventIdGenerator {
  private lastMs = 0;
  private counter = 0;

  constructor(private readonly clock: Clock) {}

  /** The next ID and the wall-clock time it stands for. */
  next(): { id: string; nowMs: number } {
    const nowMs = this.clock.nowMs();
    if (nowMs > this.lastMs) {
      this.lastMs = nowMs;
      this.counter = 0;
    } else if (++this.counter > 0xffff) {
      this.lastMs += 1;
      this.counter = 0;
    }
    const counter = this.counter.toString(16).padStart(4, '0');
    return { id: `${formatMs13(this.lastMs)}-${counter}${randomHex(3)}`, nowMs };
  }
}

/** Default and maximum number of events one `list` call returns. */
export const DEFAULT_EVENT_LIMIT = 100;
export const MAX_EVENT_LIMIT = 1000;

export function clampEventLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_EVENT_LIMIT;
  return Math.min(MAX_EVENT_LIMIT, Math.max(1, Math.floor(limit)));
}

/** Lines are kept below this size: a single small O_APPEND write is not interleaved with another's. */
export const MAX_EVENT_LINE_BYTES = 4000;
const MAX_TRUNCATED_STRING = 200;

/** A new record and its line (ending in a newline). Oversized data is shortened rather than refused. */
export function makeEventRecord(
  ids: EventIdGenerator,
  type: string,
  data: Record<string, unknown>,
): { record: EventRecord; line: string } {
  if (typeof type !== 'string' || type === '' || type.length > 128) {
    throw new TypeError(`event type must be 1 to 128 characters, got ${JSON.stringify(type)}`);
  }
  const { id, nowMs } = ids.next();
  // JSON round trip: what the file log stores is exactly what both logs return.
  const record: EventRecord = {
    id,
    type,
    time: isoTime(nowMs),
    data: JSON.parse(JSON.stringify(data)),
  };
  let line = JSON.stringify(record) + '\n';
  if (Buffer.byteLength(line) > MAX_EVENT_LINE_BYTES) {
    record.data = shortenStrings(record.data);
    line = JSON.stringify(record) + '\n';
  }
  if (Buffer.byteLength(line) > MAX_EVENT_LINE_BYTES) {
    record.data = { truncated: true, keys: Object.keys(data).slice(0, 20) };
    line = JSON.stringify(record) + '\n';
  }
  return { record, line };
}

function shortenStrings(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    out[key] =
      typeof value === 'string' && value.length > MAX_TRUNCATED_STRING
        ? `${value.slice(0, MAX_TRUNCATED_STRING)}... (truncated)`
        : value;
  }
  return out;
}

/** A parsed line, or null when the text is not a whole event record. */
export function parseEventRecord(text: string): EventRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string' || !EVENT_ID_PATTERN.test(v.id)) return null;
  if (typeof v.type !== 'string' || typeof v.time !== 'string') return null;
  if (typeof v.data !== 'object' || v.data === null || Array.isArray(v.data)) return null;
  return { id: v.id, type: v.type, time: v.time, data: v.data as Record<string, unknown> };
}

/** Whether a record passes the `afterId` and `types` filters of `list` (no or empty `types`: all types). */
export function eventMatches(record: EventRecord, query: { afterId?: string; types?: string[] }): boolean {
  if (query.afterId !== undefined && record.id <= query.afterId) return false;
  return query.types === undefined || query.types.length === 0 || query.types.includes(record.type);
}

export function compareEventIds(a: EventRecord, b: EventRecord): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
