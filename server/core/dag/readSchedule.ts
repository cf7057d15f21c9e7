// Reads `schedule`: a cron string, a list of them (or of `{kind: cron, expression}` and one-off `{at: time}`
// entries), or a map of `start`, `stop` and `restart` schedules, each in those shapes.

import { isMap, isScalar, isSeq } from 'yaml';
import { parseAtSchedule, parseSchedule } from '../schedule';
import type { ScheduleSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';

export interface Schedules {
  start: ScheduleSpec[];
  stop: ScheduleSpec[];
  restart: ScheduleSpec[];
}

export function readSchedule(r: DagReader, entry: Entry | undefined): Schedules {
  const out: Schedules = { start: [], stop: [], restart: [] };
  if (!entry || isNull(entry.value)) return out;
  if (isMap(entry.value)) {
    const map = r.map(entry, ['start', 'stop', 'restart'], 'schedule');
    for (const key of ['start', 'stop', 'restart'] as const)
      out[key] = readList(r, map?.get(key), key === 'start');
    return out;
  }
  out.start = readList(r, entry, true);
  return out;
}

function readList(r: DagReader, entry: Entry | undefined, isStart: boolean): ScheduleSpec[] {
  if (!entry || isNull(entry.value)) return [];
  const items = isSeq(entry.value) ? (r.list(entry, 'schedule') ?? []) : [entry];
  const out: ScheduleSpec[] = [];
  for (const item of items) {
    const spec = isMap(item.value) ? readEntryObject(r, item, isStart) : readCron(r, item);
    if (spec) out.push(spec);
  }
  return out;
}

/**
 * `{kind: cron, expression}` or Dagu's one-off `{kind: at, at: <RFC 3339 time>}` (`kind` may be left out: it
 * follows from the other key). One-off times are for start schedules only; runtime profiles are not run here.
 */
function readEntryObject(r: DagReader, item: Entry, isStart: boolean): ScheduleSpec | undefined {
  const map = r.map(item, ['kind', 'expression', 'at', 'profile'], 'a schedule entry');
  if (!map) return undefined;
  const profile = map.get('profile');
  if (profile && !isNull(profile.value)) {
    return r.unsupported(
      profile.value,
      profile.field,
      "Dagu's runtime profiles are not supported by this product",
    );
  }
  const expression = present(map.get('expression'));
  const at = present(map.get('at'));
  const kindEntry = present(map.get('kind'));
  const kind = kindEntry ? r.string(kindEntry, 'cron or at') : at ? 'at' : 'cron';
  if (kind === undefined) return undefined;
  if (kind !== 'cron' && kind !== 'at') {
    return r.errorAt(kindEntry!, `must be cron or at, got ${JSON.stringify(kind)}`);
  }
  if (expression && at) return r.errorAt(item, 'a schedule entry has either expression or at, not both');
  if (kind === 'at') {
    if (!isStart) return r.errorAt(at ?? kindEntry!, 'a one-off at time is allowed only for start schedules');
    if (!at) return r.errorAt(item, 'a one-off entry (kind: at) needs at, an RFC 3339 time');
    return readAt(r, at);
  }
  if (!expression)
    return r.errorAt(item, at ? 'a cron entry has expression, not at' : 'a cron entry needs expression');
  return readCron(r, expression);
}

function present(entry: Entry | undefined): Entry | undefined {
  return entry && !isNull(entry.value) ? entry : undefined;
}

function readAt(r: DagReader, item: Entry): ScheduleSpec | undefined {
  if (!isScalar(item.value) || typeof item.value.value !== 'string') {
    return r.errorAt(item, `must be an RFC 3339 time as text, got ${describe(item.value)}`);
  }
  const text = r.string(item, 'an RFC 3339 time');
  if (text === undefined) return undefined;
  const parsed = parseAtSchedule(text);
  if (parsed.ok) return parsed.schedule;
  return r.errorAt(item, `invalid one-off time ${JSON.stringify(text)}: ${parsed.error}`);
}

function readCron(r: DagReader, item: Entry): ScheduleSpec | undefined {
  if (!isScalar(item.value) || typeof item.value.value !== 'string') {
    return r.errorAt(item, `must be a cron expression, got ${describe(item.value)}`);
  }
  const expr = r.string(item, 'a cron expression');
  if (expr === undefined) return undefined;
  // Dagu's cron parser has descriptors switched off: `@daily` is refused there, so here too.
  const body = expr.trim().replace(/^(?:CRON_TZ|TZ)=\S*\s+/, '');
  if (body.startsWith('@')) {
    return r.errorAt(
      item,
      `invalid cron expression ${JSON.stringify(expr)}: descriptors like @daily are not accepted; write the 5 fields`,
    );
  }
  const parsed = parseSchedule(expr);
  if (!parsed.ok) return r.errorAt(item, `invalid cron expression ${JSON.stringify(expr)}: ${parsed.error}`);
  r.warnings.push(...misleadingStepWarnings(expr));
  return parsed.schedule;
}

/**
 * Dagu's warnings for a minute or hour field written as a star, a slash and a step N that does not divide 60
 * (24): the steps restart every hour (day), so a step of 7 minutes fires at minute 56 and then at 0. A step
 * of 5 hours is let through, as Dagu does. Only plain 5-field expressions are checked (a CRON_TZ prefix
 * makes six fields, and Dagu skips those too).
 */
export function misleadingStepWarnings(expr: string): string[] {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) return [];
  const normalized = fields.join(' ');
  const rules = [
    { index: 0, field: 'minute', base: 60, unit: 'minutes' },
    { index: 1, field: 'hour', base: 24, unit: 'hours' },
  ];
  const out: string[] = [];
  for (const rule of rules) {
    const text = fields[rule.index];
    const m = /^\*\/\+?(\d+)$/.exec(text);
    if (!m) continue;
    const step = Number(m[1]);
    if (step <= 1 || rule.base % step === 0 || (rule.field === 'hour' && step === 5)) continue;
    const firesAt: number[] = [];
    for (let i = 0; i < rule.base; i += step) firesAt.push(i);
    const divisors: number[] = [];
    for (let i = 2; i < rule.base; i++) if (rule.base % i === 0) divisors.push(i);
    out.push(
      `schedule ${JSON.stringify(normalized)}: ${text} in ${rule.field} field fires at ${firesAt.join(', ')} ` +
        `${rule.unit}, not every ${step} ${rule.unit}. Divisors of ${rule.base} that work as expected: ` +
        divisors.join(', '),
    );
  }
  return out;
}
