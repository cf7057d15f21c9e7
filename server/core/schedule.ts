// Cron schedules: validating expressions with messages that name the bad field, and computing slot times.
// Slot times are absolute instants (ms since the epoch); 5- and 6-field schedules run in UTC unless CRON_TZ says.
// A one-off entry (Dagu's `at`) is a schedule with a single slot.

import { cronExpressionParser } from './cronLibrary';
import type { ScheduleSpec } from './types';
import { MINUTE, SECOND } from './units';

export type ParseScheduleResult = { ok: true; schedule: ScheduleSpec } | { ok: false; error: string };

/** Default cap of `dueSlots`: the scheduler never replays more than this many slots of one schedule at once. */
export const MAX_DUE_SLOTS = 1000;

interface FieldRule {
  name: string;
  min: number;
  max: number;
  names?: Record<string, number>;
  /** Extra forms cron-parser understands for this field (`L`, `5L`, `1#2`). */
  special?: RegExp;
  allowsQuestionMark?: boolean;
}

const MONTH_NAMES: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

const SECOND_RULE: FieldRule = { name: 'second', min: 0, max: 59 };
const FIVE_FIELD_RULES: FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31, special: /^L$/i, allowsQuestionMark: true },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  {
    name: 'day-of-week',
    min: 0,
    max: 7,
    names: DAY_NAMES,
    special: /^([0-7])(L|#[1-5])$/i,
    allowsQuestionMark: true,
  },
];

/** The descriptors robfig/cron (Dagu's parser) accepts, as the 5-field expressions they stand for. */
const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const TZ_PREFIX = /^(?:CRON_TZ|TZ)=(\S*)\s+/;

/**
 * Parses a cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with a leading
 * seconds field, optionally prefixed by `CRON_TZ=<IANA zone> `. Never throws.
 */
export function parseSchedule(expression: string): ParseScheduleResult {
  let rest = expression.trim();
  let timezone: string | null = null;
  const prefix = TZ_PREFIX.exec(rest);
  if (prefix) {
    timezone = prefix[1];
    if (timezone === '') {
      return { ok: false, error: 'CRON_TZ= needs a time zone name, like CRON_TZ=Europe/Paris' };
    }
    if (!isKnownTimeZone(timezone)) {
      return { ok: false, error: `unknown time zone ${JSON.stringify(timezone)}` };
    }
    rest = rest.slice(prefix[0].length).trim();
  } else if (/^(?:CRON_TZ|TZ)=/.test(rest)) {
    return { ok: false, error: 'CRON_TZ=<zone> must be followed by a space and the cron fields' };
  }
  if (rest.startsWith('@')) {
    const mapped = DESCRIPTORS[rest.toLowerCase()];
    if (!mapped) return { ok: false, error: `unknown descriptor ${JSON.stringify(rest)}` };
    rest = mapped;
  }
  const fields = rest === '' ? [] : rest.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) {
    return {
      ok: false,
      error:
        `expected 5 fields (minute hour day-of-month month day-of-week) or 6 with a leading seconds field, ` +
        `got ${fields.length}`,
    };
  }
  const hasSeconds = fields.length === 6;
  const rules = hasSeconds ? [SECOND_RULE, ...FIVE_FIELD_RULES] : FIVE_FIELD_RULES;
  for (let i = 0; i < fields.length; i++) {
    const problem = checkField(fields[i], rules[i]);
    if (problem) return { ok: false, error: `${rules[i].name} field: ${problem}` };
  }
  const schedule: ScheduleSpec = { expression, cron: fields.join(' '), timezone, has_seconds: hasSeconds };
  try {
    parseCron(schedule, 0);
  } catch (err) {
    return { ok: false, error: describeCronParserError(err) };
  }
  if (nextSlot(schedule, 0) === null) return { ok: false, error: 'the schedule never fires' };
  return { ok: true, schedule };
}

/**
 * Parses a one-off time as Dagu accepts it: RFC 3339 with an explicit offset (`Z` or `+hh:mm`) and seconds
 * of `00`, like `2026-12-24T09:00:00+01:00`. A time in the past is valid (it simply has no slot ahead).
 * Never throws.
 */
export function parseAtSchedule(text: string): ParseScheduleResult {
  const example = 'like 2026-12-24T09:00:00+01:00';
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(text);
  if (!m) return { ok: false, error: `must be an RFC 3339 time with an offset, ${example}` };
  const [, year, month, day, hour, minute, second, fraction, offset] = m;
  if (offset === undefined) {
    return { ok: false, error: `needs an explicit offset (Z or +hh:mm), ${example}` };
  }
  if (second === undefined) return { ok: false, error: `needs the seconds, written :00, ${example}` };
  if (second !== '00' || fraction !== undefined) {
    return {
      ok: false,
      error: 'must be on a whole minute: one-off times have minute precision (seconds :00)',
    };
  }
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12) return { ok: false, error: `month ${month} is out of range 01-12` };
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth) return { ok: false, error: `day ${day} does not exist in ${year}-${month}` };
  if (Number(hour) > 23) return { ok: false, error: `hour ${hour} is out of range 00-23` };
  if (Number(minute) > 59) return { ok: false, error: `minute ${minute} is out of range 00-59` };
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4)) > 59)) {
    return { ok: false, error: `offset ${offset} is out of range (at most ±23:59)` };
  }
  const atMs = Date.parse(text);
  if (Number.isNaN(atMs)) return { ok: false, error: `must be an RFC 3339 time with an offset, ${example}` };
  return {
    ok: true,
    schedule: { expression: text, cron: '', timezone: null, has_seconds: false, at_ms: atMs },
  };
}

/** The first slot strictly after `afterMs`, or null when the schedule has no further slot. */
export function nextSlot(s: ScheduleSpec, afterMs: number): number | null {
  if (s.at_ms !== undefined) return s.at_ms > afterMs ? s.at_ms : null;
  try {
    const expr = parseCron(s, afterMs);
    for (;;) {
      const t = expr.next().getTime();
      // cron-parser works in whole seconds; guard the "strictly after" contract ourselves.
      if (t > afterMs) return t;
    }
  } catch {
    return null;
  }
}

/** The first `count` slots strictly after `afterMs`, ascending, from one parse of the expression. */
export function slotsAfter(s: ScheduleSpec, afterMs: number, count: number): number[] {
  if (s.at_ms !== undefined) return s.at_ms > afterMs && count > 0 ? [s.at_ms] : [];
  const slots: number[] = [];
  try {
    const expr = parseCron(s, afterMs);
    while (slots.length < count) {
      const t = expr.next().getTime();
      if (t > afterMs && t > (slots[slots.length - 1] ?? -Infinity)) slots.push(t);
    }
  } catch {
    // No further slot: the list is complete.
  }
  return slots;
}

/**
 * Slots in `(fromExclusiveMs, toInclusiveMs]`, ascending. When there are more than `max`, only the newest `max`
 * are returned: the oldest missed slots matter least. A clock that moved backwards (`from >= to`) yields none.
 */
export function dueSlots(
  s: ScheduleSpec,
  fromExclusiveMs: number,
  toInclusiveMs: number,
  max: number = MAX_DUE_SLOTS,
): number[] {
  if (!(toInclusiveMs > fromExclusiveMs) || max < 1) return [];
  if (s.at_ms !== undefined) return s.at_ms > fromExclusiveMs && s.at_ms <= toInclusiveMs ? [s.at_ms] : [];
  const start = windowStart(s, fromExclusiveMs, toInclusiveMs, max);
  const slots: number[] = [];
  try {
    const expr = parseCron(s, start);
    for (let t = expr.next().getTime(); t <= toInclusiveMs; t = expr.next().getTime()) {
      if (t > start && t > (slots[slots.length - 1] ?? -Infinity)) slots.push(t);
    }
  } catch {
    // No further slot: the list is complete.
  }
  return slots.length > max ? slots.slice(slots.length - max) : slots;
}

/**
 * Where to start walking forwards so that the walk still sees the newest `max` slots without visiting every
 * slot of a long window (a year of seconds). cron-parser's `prev()` skips a local time that a spring-forward
 * gap moved, which `next()` does produce, so `prev()` only finds the start and `next()` decides the slots; the
 * margin covers such skipped slots.
 */
function windowStart(s: ScheduleSpec, fromExclusiveMs: number, toInclusiveMs: number, max: number): number {
  const margin = 3;
  try {
    const expr = parseCron(s, toInclusiveMs + 1);
    for (let seen = 0; seen < max + margin; seen++) {
      const t = expr.prev().getTime();
      if (t <= fromExclusiveMs) return fromExclusiveMs;
      if (seen === max + margin - 1) return t;
    }
  } catch {
    // No earlier slot, or cron-parser's loop limit: walking from the window's start is exact.
  }
  return fromExclusiveMs;
}

/** The smallest distance two slots of this schedule can have: a second with a seconds field, else a minute. */
export function slotGranularityMs(s: ScheduleSpec): number {
  return s.has_seconds ? SECOND : MINUTE;
}

function parseCron(s: ScheduleSpec, currentDateMs: number) {
  // A 5-field expression gets an explicit `0` seconds field so that both forms are read the same way.
  const cron = s.has_seconds ? s.cron : `0 ${s.cron}`;
  return cronExpressionParser().parse(cron, { currentDate: currentDateMs, tz: s.timezone ?? 'UTC' });
}

function checkField(field: string, rule: FieldRule): string | null {
  for (const item of field.split(',')) {
    const problem = checkItem(item, rule);
    if (problem) return problem;
  }
  return null;
}

function checkItem(item: string, rule: FieldRule): string | null {
  if (item === '') return 'empty entry in a list';
  const special = rule.special?.exec(item);
  if (special) return special[1] === undefined ? null : checkValue(special[1], rule);
  const parts = item.split('/');
  if (parts.length > 2) return `${JSON.stringify(item)} has more than one "/"`;
  const [base, step] = parts;
  if (step !== undefined && !(/^\d+$/.test(step) && Number(step) >= 1)) {
    return `step ${JSON.stringify(step)} in ${JSON.stringify(item)} must be a positive integer`;
  }
  if (base === '*') return null;
  if (base === '?') {
    return rule.allowsQuestionMark ? null : '"?" is only allowed in the day-of-month and day-of-week fields';
  }
  const bounds = base.split('-');
  if (bounds.length > 2) return `${JSON.stringify(base)} is not a value or a range`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = valueOf(bound, rule);
    if (typeof value === 'string') return value;
    values.push(value);
  }
  if (values.length === 2 && values[0] > values[1]) return `range ${base} goes backwards`;
  return null;
}

function checkValue(text: string, rule: FieldRule): string | null {
  const value = valueOf(text, rule);
  return typeof value === 'string' ? value : null;
}

/** The number a field value stands for, or a message saying why it is not valid. */
function valueOf(text: string, rule: FieldRule): number | string {
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n < rule.min || n > rule.max ? `${text} is out of range ${rule.min}-${rule.max}` : n;
  }
  const named = rule.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (text === '') return 'a range needs a value on both sides of "-"';
  return rule.names
    ? `${JSON.stringify(text)} is not a number or a ${rule.name === 'month' ? 'month' : 'day'} name`
    : `${JSON.stringify(text)} is not a number`;
}

function describeCronParserError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/day of month/i.test(message)) {
    return 'the schedule never fires (that day does not exist in those months)';
  }
  return message;
}

/** Whether `zone` is an IANA zone the cron library (through Intl) can read. */
export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
