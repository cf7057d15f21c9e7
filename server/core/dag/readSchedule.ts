// Reads `schedule`: a cron string, a list of them (or of `{kind: cron, expression}` entries), or a map of
// `start`, `stop` and `restart` schedules, each in those shapes.

import { isMap, isScalar, isSeq } from 'yaml';
import { parseSchedule } from '../schedule';
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

/** `{kind: cron, expression}`; Dagu's one-off `at` times and runtime profiles are not run here. */
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
  const kind = r.string(map.get('kind'), 'cron or at') ?? (map.has('at') ? 'at' : 'cron');
  if (kind === 'at') {
    const at = map.get('at') ?? map.get('kind')!;
    if (!isStart) return r.errorAt(at, 'a one-off at time is allowed only for start');
    return r.unsupported(
      at.value,
      at.field,
      "Dagu's one-off at schedules are not supported by this product (use a cron expression)",
    );
  }
  if (kind !== 'cron') return r.errorAt(map.get('kind')!, `must be cron or at, got ${JSON.stringify(kind)}`);
  const expression = map.get('expression');
  if (!expression || isNull(expression.value)) return r.errorAt(item, 'a cron entry needs expression');
  return readCron(r, expression);
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
  if (parsed.ok) return parsed.schedule;
  return r.errorAt(item, `invalid cron expression ${JSON.stringify(expr)}: ${parsed.error}`);
}
