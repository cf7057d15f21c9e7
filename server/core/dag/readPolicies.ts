// Readers for the control policies of a step or a DAG: preconditions, continue_on, retry_policy,
// repeat_policy and signal_on_stop, with Dagu's accepted shapes and its load-time errors.

import { isMap, isScalar, isSeq } from 'yaml';
import type { Scalar } from 'yaml';
import type {
  ConditionSpec,
  ContinueOnSpec,
  DagRetryPolicy,
  DeferredCounts,
  RepeatPolicySpec,
  StepRetryPolicy,
} from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { MAX_INTERVAL_SEC, MAX_POLICY_LIMIT } from './policyLimits';

const CONDITION_KEYS = ['condition', 'eval', 'expected', 'negate'] as const;
const CONTINUE_ON_KEYS = ['failure', 'failed', 'skipped', 'exit_code', 'output', 'mark_success'] as const;
const STEP_RETRY_KEYS = ['limit', 'interval_sec', 'exit_code', 'backoff', 'max_interval_sec'] as const;
const DAG_RETRY_KEYS = ['limit', 'interval_sec', 'backoff', 'max_interval_sec'] as const;
const REPEAT_KEYS = [
  'repeat',
  'condition',
  'expected',
  'exit_code',
  'interval_sec',
  'limit',
  'backoff',
  'max_interval_sec',
] as const;
const DEFAULT_DAG_RETRY_INTERVAL_SEC = 60;

/** Signal names a step may ask to be stopped with (Linux numbering, as `kill -l` lists them). */
const SIGNALS = new Set(
  (
    'HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM STKFLT CHLD CONT STOP TSTP TTIN ' +
    'TTOU URG XCPU XFSZ VTALRM PROF WINCH IO POLL PWR SYS'
  ).split(' '),
);

/** `preconditions`: a string, or a list of strings and `{condition | eval, expected, negate}` (not one map). */
export function readPreconditions(r: DagReader, entry: Entry | undefined): ConditionSpec[] {
  if (!entry || isNull(entry.value)) return [];
  if (isMap(entry.value)) {
    r.errorAt(entry, 'must be a command or a list (write the condition as a list item: - condition: ...)');
    return [];
  }
  const items = isSeq(entry.value) ? (r.list(entry, 'preconditions') ?? []) : [entry];
  const out: ConditionSpec[] = [];
  for (const item of items) {
    const spec = readCondition(r, item);
    if (spec) out.push(spec);
  }
  return out;
}

function readCondition(r: DagReader, item: Entry): ConditionSpec | undefined {
  if (isScalar(item.value) && typeof item.value.value === 'string') {
    const text = r.string(item);
    if (text === undefined) return undefined;
    if (text.trim() === '') return r.errorAt(item, 'a precondition must not be empty');
    return { condition: text, eval: null, expected: null, negate: false };
  }
  if (!isMap(item.value)) {
    return r.errorAt(
      item,
      `a precondition must be a command or {condition, expected}, got ${describe(item.value)}`,
    );
  }
  const commandPair = item.value.items.find(isCommandKey);
  if (commandPair) {
    const written = String((commandPair.key as Scalar).value);
    return r.error(
      commandPair.key as never,
      `${item.field}.${written}`,
      `key "${written}" was removed; use condition`,
    );
  }
  const map = r.map(item, CONDITION_KEYS, 'a precondition', undefined, true);
  if (!map) return undefined;
  const before = r.errors.length;
  const condition = conditionText(r, map, 'condition');
  const evalText = conditionText(r, map, 'eval');
  const expected = conditionText(r, map, 'expected');
  const negate = r.boolean(map.get('negate')) ?? false;
  if (r.errors.length > before) return undefined;
  if ((condition === undefined) === (evalText === undefined)) {
    return r.errorAt(item, 'a precondition needs exactly one of condition and eval');
  }
  if (evalText !== undefined && expected === undefined) {
    return r.errorAt(map.get('eval')!, 'eval needs expected: the value its output is compared with');
  }
  if (expected?.startsWith('re:') && expected.slice(3).trim() === '') {
    return r.errorAt(map.get('expected')!, 'the regular expression (regexp) after re: must not be empty');
  }
  if (expected !== undefined && !checkPattern(r, map.get('expected')!, expected)) return undefined;
  const spec: ConditionSpec = {
    condition: condition ?? null,
    eval: evalText ?? null,
    expected: expected ?? null,
    negate,
  };
  const evalNode = map.get('eval')?.value;
  if (evalNode && r.unboundedEvals.has(evalNode)) spec.unbounded = true;
  return spec;
}

// The two helpers of readCondition are module functions, not closures in it: the bundle names every named
// closure when it is made, which would cost every condition of a file two property definitions.

/** Dagu's removed `command` key of a condition, matched ignoring case (`Condition:` is `condition:`). */
function isCommandKey(p: { key: unknown }): boolean {
  return isScalar(p.key) && typeof p.key.value === 'string' && p.key.value.toLowerCase() === 'command';
}

/** Each of condition, eval and expected, when written, is a string with more than blanks in it. */
function conditionText(r: DagReader, map: Map<string, Entry>, key: string): string | undefined {
  const e = map.get(key);
  if (!e) return undefined;
  const v = r.string(e, 'a non-empty string');
  if (v === undefined && isNull(e.value)) return r.errorAt(e, 'must be a non-empty string, got nothing');
  if (v !== undefined && v.trim() === '') return r.errorAt(e, 'must not be empty');
  return v;
}

/** A `re:` pattern must compile when the file is loaded, not when the step runs. */
export function checkPattern(r: DagReader, entry: Entry, text: string): boolean {
  if (!text.startsWith('re:')) return true;
  // Go's inline flags at the start, like (?i), are JavaScript flags; the rest must be a valid expression.
  const body = text.slice(3).replace(/^\(\?[imsU]+\)/, '');
  try {
    new RegExp(body);
    return true;
  } catch (err) {
    r.errorAt(
      entry,
      `invalid regular expression ${JSON.stringify(text.slice(3))}: ${(err as Error).message}`,
    );
    return false;
  }
}

/** `continue_on`: `skipped` / `failed`, or a map. Absent fields are off. */
export function readContinueOn(r: DagReader, entry: Entry | undefined): ContinueOnSpec {
  const off: ContinueOnSpec = {
    failure: false,
    skipped: false,
    exit_code: [],
    output: [],
    mark_success: false,
  };
  if (!entry || isNull(entry.value)) return off;
  if (isScalar(entry.value) && typeof entry.value.value === 'string') {
    const word = entry.value.value.trim().toLowerCase();
    if (word === 'skipped') return { ...off, skipped: true };
    if (word === 'failed') return { ...off, failure: true };
    r.errorAt(entry, `must be skipped, failed or a map, got ${describe(entry.value)}`);
    return off;
  }
  const map = r.map(entry, CONTINUE_ON_KEYS, 'continue_on');
  if (!map) return off;
  const failure = r.boolean(map.get('failure'));
  const failed = r.boolean(map.get('failed'));
  const output = map.get('output');
  const patterns: string[] = [];
  if (output && !isNull(output.value)) {
    const items = isSeq(output.value) ? (r.list(output, 'output') ?? []) : [output];
    for (const item of items) {
      const text = r.scalarText(item);
      // Dagu reads a lone empty string as no pattern (a list keeps its empty items).
      if (text === '' && item === output) continue;
      if (text !== undefined && checkPattern(r, item, text)) patterns.push(text);
    }
  }
  return {
    failure: (failure ?? false) || (failed ?? false),
    skipped: r.boolean(map.get('skipped')) ?? false,
    exit_code: readExitCodes(r, map.get('exit_code')),
    output: patterns,
    mark_success: r.boolean(map.get('mark_success')) ?? false,
  };
}

/** `exit_code`: an integer, a list of integers, or (where Dagu allows it) an integer written as a string. */
export function readExitCodes(r: DagReader, entry: Entry | undefined): number[] {
  if (!entry || isNull(entry.value)) return [];
  const items = isSeq(entry.value) ? (r.list(entry, 'exit_code') ?? []) : [entry];
  const codes: number[] = [];
  for (const item of items) {
    const code = readCount(r, item, 0, 255, true);
    if (code !== undefined) codes.push(code);
  }
  return codes;
}

/** A whole number in [min, max]: a YAML integer, or with `text` (where Dagu allows it) a string of digits. */
export function readCount(
  r: DagReader,
  entry: Entry | undefined,
  min: number,
  max: number,
  text = false,
): number | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const raw = isScalar(entry.value) ? entry.value.value : undefined;
  const v = text && typeof raw === 'string' && /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (text && typeof raw === 'string' && typeof v === 'string' && raw.includes('$')) {
    return r.unsupported(
      entry.value,
      entry.field,
      `a value resolved at run time (${JSON.stringify(raw)}) is not supported here; write a number`,
    );
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    return r.errorAt(entry, `must be an integer, got ${describe(entry.value)}`);
  }
  if (v < min) return r.errorAt(entry, `must be at least ${min}, got ${v}`);
  if (v > max) return r.errorAt(entry, `must be at most ${max}, got ${v}`);
  return v;
}

/**
 * A count of a step's retry or repeat policy: as readCount, but a text with a `$` reference is kept in
 * `deferred` under `key` and resolved when the step starts, as Dagu resolves it (resolvePolicyCounts).
 */
function readStepCount(
  r: DagReader,
  entry: Entry | undefined,
  max: number,
  deferred: DeferredCounts,
  key: keyof DeferredCounts,
): number | undefined {
  const raw = entry && isScalar(entry.value) ? entry.value.value : undefined;
  if (typeof raw === 'string' && raw.includes('$')) {
    deferred[key] = raw;
    return undefined;
  }
  return readCount(r, entry, 0, max, true);
}

/** `deferred` when it holds a count, else nothing (a policy without text counts has no such key). */
function withDeferred(deferred: DeferredCounts): { deferred?: DeferredCounts } {
  return Object.keys(deferred).length > 0 ? { deferred } : {};
}

/** `backoff`: true (x2), false (none), or a multiplier greater than 1. */
function readBackoff(r: DagReader, entry: Entry | undefined): number {
  if (!entry || isNull(entry.value)) return 1;
  const v = isScalar(entry.value) ? entry.value.value : undefined;
  if (typeof v === 'boolean') return v ? 2 : 1;
  if (typeof v === 'number' && Number.isFinite(v)) {
    if (v > 1) return v;
    r.errorAt(entry, `a backoff multiplier must be greater than 1, got ${v}`);
    return 1;
  }
  r.errorAt(entry, `must be true, false or a multiplier greater than 1, got ${describe(entry.value)}`);
  return 1;
}

/** A step's `retry_policy`: `limit` and `interval_sec` are both required, as in Dagu. */
export function readStepRetryPolicy(
  r: DagReader,
  entry: Entry | undefined,
): { policy: StepRetryPolicy | null; exitCodes: number[] } {
  if (!entry || isNull(entry.value)) return { policy: null, exitCodes: [] };
  const map = r.map(entry, STEP_RETRY_KEYS, 'retry_policy', undefined, true);
  if (!map) return { policy: null, exitCodes: [] };
  const deferred: DeferredCounts = {};
  const limit = readStepCount(r, map.get('limit'), MAX_POLICY_LIMIT, deferred, 'limit');
  const interval = readStepCount(r, map.get('interval_sec'), MAX_INTERVAL_SEC, deferred, 'interval_sec');
  if (!present(map.get('limit'))) r.errorAt(entry, 'limit is required');
  if (!present(map.get('interval_sec'))) r.errorAt(entry, 'interval_sec is required');
  return {
    policy: {
      limit: limit ?? 0,
      interval_sec: interval ?? 0,
      backoff: readBackoff(r, map.get('backoff')),
      // An integer only, in Dagu too.
      max_interval_sec: readCount(r, map.get('max_interval_sec'), 0, MAX_INTERVAL_SEC, true) ?? null,
      ...withDeferred(deferred),
    },
    exitCodes: readExitCodes(r, map.get('exit_code')),
  };
}

/** The DAG's `retry_policy` (re-runs of failed runs by the scheduler): `limit` is required. */
export function readDagRetryPolicy(r: DagReader, entry: Entry | undefined): DagRetryPolicy | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, DAG_RETRY_KEYS, 'retry_policy', undefined, true);
  if (!map) return null;
  if (!present(map.get('limit'))) r.errorAt(entry, 'limit is required');
  // Dagu reads the DAG's retry policy when it loads the file (its scheduler decides retries from the stored
  // DAG), so a reference is an error there too, not a feature missing here.
  for (const key of DAG_RETRY_KEYS) {
    const e = map.get(key);
    const raw = e && isScalar(e.value) ? e.value.value : undefined;
    if (key !== 'backoff' && typeof raw === 'string' && raw.includes('$')) {
      r.errorAt(e!, `must be an integer or numeric string, got ${JSON.stringify(raw)}`);
      map.delete(key);
    }
  }
  return {
    limit: readCount(r, map.get('limit'), 0, MAX_POLICY_LIMIT, true) ?? 0,
    interval_sec:
      readCount(r, map.get('interval_sec'), 0, MAX_INTERVAL_SEC, true) ?? DEFAULT_DAG_RETRY_INTERVAL_SEC,
    backoff: readBackoff(r, map.get('backoff')),
    max_interval_sec: readCount(r, map.get('max_interval_sec'), 0, MAX_INTERVAL_SEC, true) ?? null,
  };
}

/**
 * `repeat_policy`. Without `repeat`, the mode follows from the other keys (condition + expected: until;
 * condition or exit_code alone: while; neither: no repeat, as Dagu silently does).
 */
export function readRepeatPolicy(r: DagReader, entry: Entry | undefined): RepeatPolicySpec | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, REPEAT_KEYS, 'repeat_policy', undefined, true);
  if (!map) return null;
  const condition = r.string(map.get('condition'));
  const expected = r.scalarText(map.get('expected'));
  if (expected !== undefined) checkPattern(r, map.get('expected')!, expected);
  const exitCodes = readExitCodes(r, map.get('exit_code'));
  if (condition !== undefined && condition.trim() === '')
    r.errorAt(map.get('condition')!, 'must not be empty');
  // Dagu reads `expected` only together with `condition`; alone it has no effect.
  if (expected !== undefined && condition === undefined) {
    r.warnings.push(`${map.get('expected')!.field}: expected without a condition is ignored (as in Dagu)`);
  }
  const hasCheck = condition !== undefined || exitCodes.length > 0;
  let mode: RepeatPolicySpec['mode'] = null;
  const repeat = map.get('repeat');
  const v = repeat && isScalar(repeat.value) ? repeat.value.value : undefined;
  // `repeat: false` counts as unset in Dagu: the mode is still inferred from the other keys.
  if (!repeat || isNull(repeat.value) || v === false) {
    if (condition !== undefined && expected !== undefined) mode = 'until';
    else if (hasCheck) mode = 'while';
  } else if (v === true) {
    mode = 'while';
  } else if (v === 'while' || v === 'until') {
    mode = v;
    if (!hasCheck) r.errorAt(repeat, `repeat: ${v} needs a condition or an exit_code`);
  } else {
    r.errorAt(repeat, `must be while, until, true or false, got ${describe(repeat.value)}`);
  }
  const deferred: DeferredCounts = {};
  // A limit of 0 means no limit, as in Dagu.
  const limit = readStepCount(r, map.get('limit'), MAX_POLICY_LIMIT, deferred, 'limit') || null;
  const conditionNode = map.get('condition')?.value;
  return {
    mode,
    condition: condition ?? null,
    ...(conditionNode && r.unboundedEvals.has(conditionNode) ? { condition_eval: true } : {}),
    expected: condition === undefined ? null : (expected ?? null),
    exit_code: exitCodes,
    interval_sec: readStepCount(r, map.get('interval_sec'), MAX_INTERVAL_SEC, deferred, 'interval_sec') ?? 0,
    limit,
    backoff: readBackoff(r, map.get('backoff')),
    max_interval_sec:
      readStepCount(r, map.get('max_interval_sec'), MAX_INTERVAL_SEC, deferred, 'max_interval_sec') ?? null,
    ...withDeferred(deferred),
  };
}

/** `signal_on_stop`: a signal name (`SIGINT`, or `INT`), returned as `SIGINT`. */
export function readSignal(r: DagReader, entry: Entry | undefined): string | null {
  const text = r.string(entry, 'a signal name like SIGINT');
  if (text === undefined) return null;
  const name = text.trim().toUpperCase().replace(/^SIG/, '');
  if (SIGNALS.has(name)) return `SIG${name}`;
  r.errorAt(entry!, `invalid signal ${JSON.stringify(text)} (use a name like SIGINT or SIGTERM)`);
  return null;
}

function present(entry: Entry | undefined): boolean {
  return entry !== undefined && !isNull(entry.value);
}
