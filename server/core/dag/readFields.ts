// Readers for the value shapes that the DAG level and the step level share: env, retry policies, worker
// selectors and params.

import { isMap, isScalar, isSeq } from 'yaml';
import { PARAM_NAME_PATTERN, parseParamWord, splitParamString } from '../params';
import type { DagRetryPolicy, ParamSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';

/** Environment variable names, as a shell accepts them. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const RETRY_KEYS = ['limit', 'interval_sec', 'backoff', 'max_interval_sec'] as const;
const DEFAULT_RETRY_INTERVAL_SEC = 60;

/** `env`: a map, or a list of `KEY=value` strings and one-key maps. Later entries win. */
export function readEnv(r: DagReader, entry: Entry | undefined): Record<string, string> {
  const pairs: Array<[string, string]> = [];
  if (!entry || isNull(entry.value)) return {};
  const addMap = (e: Entry) => {
    const map = r.map(e, null, 'env');
    for (const item of map?.values() ?? []) {
      if (!ENV_NAME_PATTERN.test(item.key)) {
        r.error(item.keyNode, item.field, envNameMessage(item.key));
        continue;
      }
      const value = r.scalarText(item, 'a string, number or boolean');
      if (value !== undefined || isNull(item.value)) pairs.push([item.key, value ?? '']);
    }
  };
  if (isMap(entry.value)) {
    addMap(entry);
  } else if (isSeq(entry.value)) {
    for (const item of r.list(entry, 'env') ?? []) {
      if (isMap(item.value)) {
        addMap(item);
        continue;
      }
      const text = r.string(item, 'KEY=value or a map');
      if (text === undefined) {
        if (isNull(item.value)) r.errorAt(item, 'must be KEY=value or a map, got nothing');
        continue;
      }
      const eq = text.indexOf('=');
      const name = eq < 0 ? text : text.slice(0, eq);
      if (eq < 0) r.errorAt(item, `must be KEY=value, got ${JSON.stringify(text)}`);
      else if (!ENV_NAME_PATTERN.test(name)) r.errorAt(item, envNameMessage(name));
      else pairs.push([name, text.slice(eq + 1)]);
    }
  } else {
    r.errorAt(entry, `must be a map or a list of KEY=value, got ${describe(entry.value)}`);
  }
  // fromEntries defines own properties: a variable named __proto__ stays a variable.
  return Object.fromEntries(pairs);
}

/** `retry_policy` at either level: `limit` is required; `backoff: true` means doubling. */
export function readRetryPolicy(r: DagReader, entry: Entry | undefined): DagRetryPolicy | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, RETRY_KEYS, 'retry_policy');
  if (!map) return null;
  const limit = r.integer(map.get('limit'), 0);
  if (!map.has('limit') || isNull(map.get('limit')!.value)) r.errorAt(entry, 'limit is required');
  const interval = r.integer(map.get('interval_sec'), 0);
  const maxInterval = r.integer(map.get('max_interval_sec'), 0);
  const backoffEntry = map.get('backoff');
  let backoff = 1;
  if (backoffEntry && isScalar(backoffEntry.value) && typeof backoffEntry.value.value === 'boolean') {
    backoff = r.boolean(backoffEntry) ? 2 : 1;
  } else if (backoffEntry && !isNull(backoffEntry.value)) {
    const v = isScalar(backoffEntry.value) ? backoffEntry.value.value : undefined;
    if (typeof v === 'number') {
      backoff = r.number(backoffEntry, 1) ?? 1;
    } else {
      const got = describe(backoffEntry.value);
      r.errorAt(backoffEntry, `must be true, false or a multiplier of at least 1, got ${got}`);
    }
  }
  return {
    limit: limit ?? 0,
    interval_sec: interval ?? DEFAULT_RETRY_INTERVAL_SEC,
    backoff,
    max_interval_sec: maxInterval ?? null,
  };
}

/** `worker_selector`: labels a worker must all have; numbers and booleans are read as strings. */
export function readWorkerSelector(r: DagReader, entry: Entry | undefined): Record<string, string> | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, null, 'worker_selector');
  if (!map) return null;
  const labels: Array<[string, string]> = [];
  for (const item of map.values()) {
    if (item.key.trim() === '') {
      r.error(item.keyNode, item.field, 'a label name must not be empty');
      continue;
    }
    const value = r.scalarText(item, 'a string, number or boolean');
    if (value === undefined && isNull(item.value)) r.errorAt(item, 'needs a value');
    if (value !== undefined) labels.push([item.key, value]);
  }
  return Object.fromEntries(labels);
}

/**
 * `params`: a string of shell-like words, a list of `KEY=value` / bare values / `{KEY: value}` maps, or a
 * map. A word `KEY=value` is named, anything else positional, as on the command line.
 */
export function readParams(r: DagReader, entry: Entry | undefined): ParamSpec[] {
  if (!entry || isNull(entry.value)) return [];
  if (isScalar(entry.value)) {
    const text = r.scalarText(entry, 'a string, a list or a map');
    if (text === undefined) return [];
    const split = splitParamString(text);
    if (!split.ok) return r.errorAt(entry, split.error) ?? [];
    return split.words.map(parseParamWord);
  }
  const out: ParamSpec[] = [];
  const addMap = (e: Entry) => {
    for (const item of r.map(e, null, 'params')?.values() ?? []) {
      if (!PARAM_NAME_PATTERN.test(item.key)) {
        r.error(item.keyNode, item.field, `${JSON.stringify(item.key)} is not a valid parameter name`);
        continue;
      }
      const value = r.scalarText(item, 'a string, number or boolean');
      if (value !== undefined || isNull(item.value)) out.push({ name: item.key, value: value ?? '' });
    }
  };
  if (isMap(entry.value)) {
    addMap(entry);
  } else if (isSeq(entry.value)) {
    for (const item of r.list(entry, 'params') ?? []) {
      if (isMap(item.value)) addMap(item);
      else {
        const word = r.scalarText(item, 'KEY=value, a value or a map');
        if (word !== undefined) out.push(parseParamWord(word));
        else if (isNull(item.value)) r.errorAt(item, 'must be KEY=value, a value or a map, got nothing');
      }
    }
  } else {
    r.errorAt(entry, `must be a string, a list or a map, got ${describe(entry.value)}`);
  }
  return out;
}

/** Names or one name: `depends: a` or `depends: [a, b]`, with each name's entry for error positions. */
export function readNameList(r: DagReader, entry: Entry | undefined, what: string): Entry[] {
  if (!entry || isNull(entry.value)) return [];
  const items = isSeq(entry.value) ? (r.list(entry, what) ?? []) : [entry];
  return items.filter((item) => {
    const text = r.string(item, 'a step name');
    if (text === undefined && isNull(item.value)) r.errorAt(item, 'must be a step name, got nothing');
    return text !== undefined;
  });
}

/** The text of an entry that `readNameList` accepted. */
export function textOf(entry: Entry): string {
  return String((entry.value as { value: unknown }).value);
}

function envNameMessage(name: string): string {
  return `${JSON.stringify(name)} is not a valid variable name (use letters, digits and _, not starting with a digit)`;
}
