// Parses a DAG file (YAML, snake_case keys) into a DagSpec with every default filled in, or into the full list
// of its errors, each naming the file, line, column and field, so that `dagu validate` can print them all.

import { isSeq, LineCounter, parseDocument } from 'yaml';
import type { Node } from 'yaml';
import { parseDuration } from '../duration';
import { InvalidNameError, isValidDagName } from '../names';
import { parseSchedule } from '../schedule';
import type { DagSpec, HandlerSpecs, OverlapPolicy, ScheduleSpec } from '../types';
import type { DagError } from './dagError';
import { DagReader, isNull } from './dagReader';
import type { Entry } from './dagReader';
import { linkSteps } from './linkSteps';
import { readEnv, readParams, readRetryPolicy, readWorkerSelector } from './readFields';
import { readStep } from './readStep';
import type { ReadStep } from './readStep';

export type { DagError } from './dagError';
export { formatDagError } from './dagError';

export type ParseDagResult =
  { ok: true; dag: DagSpec; warnings: string[] } | { ok: false; errors: DagError[] };

export interface ParseDagOptions {
  /** Path shown in errors and kept in `DagSpec.file`; null for text that came from elsewhere. */
  file: string | null;
  /** The DAG's name when the file has no `name` key: the file name's stem. */
  defaultName: string;
}

const ROOT_KEYS = [
  'name',
  'description',
  'tags',
  'schedule',
  'steps',
  'params',
  'env',
  'queue',
  'max_active_runs',
  'overlap_policy',
  'catchup_window',
  'retry_policy',
  'timeout_sec',
  'worker_selector',
  'handler_on',
  'signal_handling',
] as const;

const HANDLER_KEYS = ['success', 'failure', 'abort', 'exit'] as const;
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['skip', 'all', 'latest'];

export { dagNameFromFile } from './dagName';

/** Parses a DAG file. Never throws: problems are returned, all of them. */
export function parseDag(text: string, opts: ParseDagOptions): ParseDagResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const r = new DagReader(doc, lines, opts.file);
  if (doc.errors.length > 0) {
    // Running out of stack is reported by every level it unwinds through: once is enough.
    const exhausted = doc.errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
    for (const e of exhausted ? [exhausted] : doc.errors) {
      const pos = lines.linePos(e.pos[0]);
      r.errors.push({ file: opts.file, line: pos.line, column: pos.col, field: '', message: yamlMessage(e) });
    }
    return { ok: false, errors: r.errors };
  }
  for (const w of doc.warnings) r.warnings.push(w.message);

  const root = r.resolve(doc.contents);
  if (isNull(root)) {
    r.errors.push({
      file: opts.file,
      line: 1,
      column: 1,
      field: '',
      message: 'the file is empty: a DAG needs steps',
    });
    return { ok: false, errors: r.errors };
  }
  const rootEntry: Entry = { key: '', field: '', value: root, keyNode: root! };
  const map = r.map(rootEntry, ROOT_KEYS, 'a DAG file');
  if (!map) return { ok: false, errors: r.errors };

  const name = readName(r, map.get('name'), opts.defaultName);
  const steps = readSteps(r, map.get('steps'), root!);
  const dag: DagSpec = {
    name,
    description: r.string(map.get('description')) ?? '',
    tags: readTags(r, map.get('tags')),
    schedule: readSchedules(r, map.get('schedule')),
    steps: steps.map((s) => s.spec),
    params: readParams(r, map.get('params')),
    env: readEnv(r, map.get('env')),
    queue: readQueue(r, map.get('queue')) ?? name,
    max_active_runs: r.integer(map.get('max_active_runs'), 1) ?? 1,
    overlap_policy: readOverlapPolicy(r, map.get('overlap_policy')),
    catchup_window_ms: readCatchupWindow(r, map.get('catchup_window')),
    retry_policy: readRetryPolicy(r, map.get('retry_policy')),
    timeout_sec: r.integer(map.get('timeout_sec'), 1) ?? null,
    worker_selector: readWorkerSelector(r, map.get('worker_selector')),
    handler_on: readHandlers(r, map.get('handler_on'), steps),
    signal_handling: readSignalHandling(r, map.get('signal_handling')),
    file: opts.file,
  };
  linkSteps(r, steps);
  if (r.errors.length > 0) return { ok: false, errors: sortErrors(r.errors) };
  return { ok: true, dag, warnings: r.warnings };
}

function readName(r: DagReader, entry: Entry | undefined, defaultName: string): string {
  const name = r.string(entry);
  if (name !== undefined) {
    if (!isValidDagName(name)) r.errorAt(entry!, new InvalidNameError('DAG name', name).message);
    return name;
  }
  if (entry && isNull(entry.value)) r.errorAt(entry, 'must not be empty');
  if (!entry && !isValidDagName(defaultName)) {
    r.errors.push({
      file: r.file,
      line: null,
      column: null,
      field: 'name',
      message: `the file name gives ${new InvalidNameError('DAG name', defaultName).message}; set name in the file`,
    });
  }
  return defaultName;
}

function readSteps(r: DagReader, entry: Entry | undefined, root: Node): ReadStep[] {
  if (!entry || isNull(entry.value)) {
    r.error(entry?.keyNode ?? root, 'steps', 'steps is required: a non-empty list of steps');
    return [];
  }
  const items = r.list(entry, 'steps');
  if (!items) return [];
  if (items.length === 0) r.errorAt(entry, 'must not be an empty list');
  return items.flatMap((item) => readStep(r, item) ?? []);
}

function readTags(r: DagReader, entry: Entry | undefined): string[] {
  if (!entry || isNull(entry.value)) return [];
  const raw: string[] = [];
  if (isSeq(entry.value)) {
    for (const item of r.list(entry, 'tags') ?? []) {
      const tag = r.scalarText(item);
      if (tag !== undefined) raw.push(tag);
    }
  } else {
    const text = r.scalarText(entry, 'a comma-separated string or a list');
    if (text !== undefined) raw.push(...text.split(','));
  }
  return [...new Set(raw.map((t) => t.trim()).filter((t) => t !== ''))];
}

function readSchedules(r: DagReader, entry: Entry | undefined): ScheduleSpec[] {
  if (!entry || isNull(entry.value)) return [];
  const items = isSeq(entry.value) ? (r.list(entry, 'schedule') ?? []) : [entry];
  const out: ScheduleSpec[] = [];
  for (const item of items) {
    const expr = r.string(item, 'a cron expression');
    if (expr === undefined) continue;
    const parsed = parseSchedule(expr);
    if (parsed.ok) out.push(parsed.schedule);
    else r.errorAt(item, `invalid cron expression ${JSON.stringify(expr)}: ${parsed.error}`);
  }
  return out;
}

function readQueue(r: DagReader, entry: Entry | undefined): string | undefined {
  const queue = r.string(entry);
  if (queue !== undefined && !isValidDagName(queue)) {
    return r.errorAt(entry!, new InvalidNameError('queue name', queue).message);
  }
  return queue;
}

function readOverlapPolicy(r: DagReader, entry: Entry | undefined): OverlapPolicy {
  const text = r.string(entry, 'skip, all or latest');
  if (text === undefined) return 'skip';
  const policy = text.trim().toLowerCase();
  if (policy === '') return 'skip';
  if ((OVERLAP_POLICIES as readonly string[]).includes(policy)) return policy as OverlapPolicy;
  r.errorAt(entry!, `must be skip, all or latest, got ${JSON.stringify(text)}`);
  return 'skip';
}

function readCatchupWindow(r: DagReader, entry: Entry | undefined): number {
  if (!entry || isNull(entry.value)) return 0;
  const text = r.string(entry, 'a duration like 6h or 2d');
  if (text === undefined) return 0;
  const parsed = parseDuration(text);
  if (!parsed.ok) return r.errorAt(entry, parsed.error) ?? 0;
  if (parsed.ms <= 0) return r.errorAt(entry, `must be greater than 0, got ${JSON.stringify(text)}`) ?? 0;
  return parsed.ms;
}

/** `handler_on`: steps run after the others; a handler's name must not be a step's, as their logs share a run. */
function readHandlers(r: DagReader, entry: Entry | undefined, steps: readonly ReadStep[]): HandlerSpecs {
  const handlers: HandlerSpecs = { success: null, failure: null, abort: null, exit: null };
  if (!entry || isNull(entry.value)) return handlers;
  const map = r.map(entry, HANDLER_KEYS, 'handler_on');
  for (const key of HANDLER_KEYS) {
    const handler = map?.get(key);
    if (!handler || isNull(handler.value)) continue;
    const read = readStep(r, handler, `on_${key}`);
    const clash = read && steps.find((s) => s.spec.name === read.spec.name);
    if (read && clash) {
      r.error(
        read.nameEntry?.keyNode ?? read.node,
        `${read.field}.name`,
        `${JSON.stringify(read.spec.name)} is already the name of ${clash.field}`,
      );
    }
    handlers[key] = read?.spec ?? null;
  }
  return handlers;
}

function readSignalHandling(r: DagReader, entry: Entry | undefined): { enable_propagation: boolean } {
  if (!entry || isNull(entry.value)) return { enable_propagation: false };
  const map = r.map(entry, ['enable_propagation'], 'signal_handling');
  return { enable_propagation: r.boolean(map?.get('enable_propagation')) ?? false };
}

/** The yaml library's message without its own position (ours is in the error's fields). */
function yamlMessage(e: { code: string; message: string }): string {
  if (e.code === 'MULTIPLE_DOCS') return 'a DAG file holds one YAML document (found another after "---")';
  // The parser ran out of stack: its own message ("Maximum call stack size exceeded") says nothing to a user.
  if (e.code === 'RESOURCE_EXHAUSTION') return 'invalid YAML: the document is nested too deeply';
  return `invalid YAML: ${e.message}`;
}

/** Errors in the order of the file, so that `dagu validate` reads top to bottom. */
function sortErrors(errors: DagError[]): DagError[] {
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.line ?? 0) - (b.e.line ?? 0) || (a.e.column ?? 0) - (b.e.column ?? 0) || a.i - b.i)
    .map(({ e }) => e);
}
