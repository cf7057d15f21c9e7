// Reads and checks the `with` map of Dagu's `wait.*` actions (duration, until, file, http): the keys of
// upstream's `waitActionConfig` schema, with its defaults (state `exists`, method GET, status 200,
// `poll_interval` 1s, `request_timeout` 10s). Durations are Go durations, `until` an RFC 3339 timestamp.
// Pure: no I/O, so `dagu validate` can call it as well.

import { GoDurationError, parseGoDuration } from './goDuration';
import { readInt, readString, readStringMap, WithFieldError } from './withValues';

export const WAIT_OPS = ['duration', 'until', 'file', 'http'] as const;
export type WaitOp = (typeof WAIT_OPS)[number];

/** A `wait.*` step that cannot run as written; the message names the field at fault. */
export class WaitConfigError extends Error {
  constructor(message: string) {
    super(`wait: ${message}`);
    this.name = 'WaitConfigError';
  }
}

/** The decoded `with` map of a `wait.*` action; only the fields of its operation are meaningful. */
export interface WaitConfig {
  op: WaitOp;
  durationMs: number;
  /** `until` as milliseconds since the epoch. */
  untilMs: number;
  path: string;
  state: 'exists' | 'missing';
  url: URL | null;
  method: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  pollIntervalMs: number;
  requestTimeoutMs: number;
}

const KEYS = [
  'duration',
  'until',
  'path',
  'state',
  'url',
  'method',
  'status',
  'headers',
  'body',
  'poll_interval',
  'request_timeout',
];

// RFC 9110 token characters: what a method may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Decodes and checks `with` for `wait.<op>`; throws WaitConfigError. */
export function readWaitConfig(op: string, withMap: Record<string, unknown>): WaitConfig {
  const operation = op.trim().toLowerCase();
  if (!(WAIT_OPS as readonly string[]).includes(operation)) {
    throw new WaitConfigError(`unsupported operation '${op}' (use one of ${WAIT_OPS.join(', ')})`);
  }
  const unknown = Object.keys(withMap).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) {
    throw new WaitConfigError(
      `with.${unknown.sort()[0]} is not a setting of wait actions (known: ${KEYS.join(', ')})`,
    );
  }
  try {
    return decode(operation as WaitOp, withMap);
  } catch (e) {
    if (e instanceof WithFieldError) throw new WaitConfigError(e.message);
    throw e;
  }
}

function decode(op: WaitOp, w: Record<string, unknown>): WaitConfig {
  const cfg: WaitConfig = {
    op,
    durationMs: 0,
    untilMs: 0,
    path: readString(w, 'path'),
    state: 'exists',
    url: null,
    method: 'GET',
    status: 200,
    headers: readStringMap(w, 'headers'),
    body: readString(w, 'body'),
    pollIntervalMs: positiveDuration(w, 'poll_interval', '1s'),
    requestTimeoutMs: positiveDuration(w, 'request_timeout', '10s'),
  };
  switch (op) {
    case 'duration':
      if (readString(w, 'duration').trim() === '')
        throw new WaitConfigError('with.duration is required for duration');
      cfg.durationMs = positiveDuration(w, 'duration', '');
      break;
    case 'until': {
      const until = readString(w, 'until').trim();
      if (until === '') throw new WaitConfigError('with.until is required for until');
      cfg.untilMs = parseRfc3339(until, 'until');
      break;
    }
    case 'file': {
      if (cfg.path.trim() === '') throw new WaitConfigError('with.path is required for file');
      const state = isAbsent(w.state) ? 'exists' : readString(w, 'state');
      if (state !== 'exists' && state !== 'missing')
        throw new WithFieldError('state', w.state, "'exists' or 'missing'");
      cfg.state = state;
      break;
    }
    case 'http':
      cfg.url = httpUrl(readString(w, 'url'));
      if (!isAbsent(w.method)) cfg.method = readString(w, 'method').trim().toUpperCase();
      if (cfg.method === '') throw new WaitConfigError('with.method must not be empty');
      if (!TOKEN.test(cfg.method))
        throw new WithFieldError('method', w.method, 'an HTTP method such as GET or HEAD');
      if (!isAbsent(w.status)) cfg.status = readInt(w, 'status');
      if (cfg.status < 100 || cfg.status > 599) {
        throw new WithFieldError('status', w.status, 'an HTTP status between 100 and 599');
      }
      break;
  }
  return cfg;
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

function httpUrl(raw: string): URL {
  const text = raw.trim();
  if (text === '') throw new WaitConfigError('with.url is required for http');
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.host === '') {
    throw new WithFieldError('url', raw, 'an absolute http:// or https:// URL');
  }
  return url;
}

/** A Go duration greater than zero, in milliseconds; `fallback` when the key is absent. */
function positiveDuration(w: Record<string, unknown>, field: string, fallback: string): number {
  const text = (isAbsent(w[field]) ? fallback : readString(w, field)).trim();
  if (text === '') throw new WaitConfigError(`with.${field} must not be empty`);
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (e) {
    if (e instanceof GoDurationError) throw new WaitConfigError(`with.${field}: ${e.message}`);
    throw e;
  }
  if (ms <= 0) throw new WaitConfigError(`with.${field}: '${text}' must be greater than 0`);
  return ms;
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 timestamp (`2026-05-01T09:30:00Z`, `2026-05-01T09:30:00.5+02:00`) as milliseconds since
 * the epoch. As in Go, the `T`, the seconds and the zone (`Z` or `±hh:mm`) are required, in capitals, and
 * a fraction of a second may follow a `.` or a `,`.
 */
export function parseRfc3339(text: string, field: string): number {
  const m = RFC3339.exec(text);
  const bad = (why: string) => new WaitConfigError(`with.${field}: '${text}' ${why}`);
  if (!m) throw bad('is not an RFC 3339 timestamp such as 2026-05-01T09:30:00Z or 2026-05-01T09:30:00+02:00');
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12) throw bad('has a month out of range');
  if (day < 1 || day > daysIn(year, month)) throw bad('has a day out of range');
  if (hour > 23) throw bad('has an hour out of range');
  if (minute > 59) throw bad('has a minute out of range');
  if (second > 59) throw bad('has a second out of range');
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) throw bad('has a time zone offset out of range');
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const fractionMs = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  return date.getTime() - offsetMin * 60_000 + fractionMs;
}

function daysIn(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}
