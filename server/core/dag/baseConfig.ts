// Dagu's base config: `base.yaml` (config `paths.base_config`) is a DAG file without steps whose keys every
// DAG inherits. It is laid under each document of a DAG file before the document is read, the way Dagu merges
// its built base DAG with each DAG:
//   - a key the DAG sets wins, and a key only the base sets is inherited (`type` included);
//   - `env` and `dotenv` are appended: the base's entries first, then the DAG's (so the DAG's win);
//   - mappings are merged key by key (`handler_on` handler by handler, `smtp`, `defaults`, `container`, ...),
//     except `mail_on`, `retry_policy` and `webhook`, which the DAG replaces whole, and an `smtp` with `oauth`;
//   - `name` and `steps` of the base are not inherited.
// The config's `default_shell` is the base's `shell` when the base sets none, and its `tz` is the zone of every
// schedule that names none with `CRON_TZ=`.

import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { layerWithDefaults, type BaseLayer, type BaseLayerInput } from './baseLayer';
import type { DagError } from './dagError';
import { ROOT_KEYS } from './readDag';

export type { BaseLayer, BaseLayerInput } from './baseLayer';

/** Keys the DAG replaces whole rather than merging with the base's mapping. */
const REPLACED = new Set(['mail_on', 'retry_policy', 'webhook']);
/** Keys whose entries are appended, the base's first. */
const APPENDED = new Set(['env', 'dotenv']);
/** Base keys that are never inherited. */
const NOT_INHERITED = new Set(['name', 'steps']);
/**
 * Base keys not laid into the document: custom step definitions are read beside the document's own (readDag.ts,
 * customSteps.ts), since a name defined in both is an error rather than the DAG's to override.
 */
const READ_APART = new Set(['step_types', 'actions']);

const fold = (key: string) => key.toLowerCase().replace(/_/g, '');
/** 2.x spelling of a top-level key written in 1.x camelCase (`handlerOn`, `histRetentionDays`). */
const ROOT_BY_FOLD = new Map<string, string>(ROOT_KEYS.map((k) => [fold(k), k]));
/** 1.x names of handlers. */
const HANDLER_NAMES: Record<string, string> = { cancel: 'abort' };

/**
 * The layer from base.yaml's text and the config's defaults; null when there is nothing to inherit. An
 * unreadable base.yaml is an error of every DAG, as in Dagu.
 */
export function readBaseLayer(
  input: BaseLayerInput,
): { ok: true; layer: BaseLayer | null } | { ok: false; error: DagError } {
  const fail = (message: string) => ({
    ok: false as const,
    error: { file: input.file, line: null, column: null, field: '', message },
  });
  let values: Record<string, unknown> = {};
  if (input.text !== null) {
    const doc = parseDocument(input.text, { prettyErrors: false, uniqueKeys: false });
    if (doc.errors.length > 0) return fail(`base config: invalid YAML: ${doc.errors[0].message}`);
    let root: unknown;
    try {
      root = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      return fail(`base config: invalid YAML: ${(err as Error).message}`);
    }
    if (root !== null && root !== undefined) {
      if (typeof root !== 'object' || Array.isArray(root))
        return fail('base config: must be a mapping of DAG keys');
      values = normaliseBase(root as Record<string, unknown>);
    }
  }
  return { ok: true, layer: layerWithDefaults(values, input) };
}

/** Top-level keys in 2.x spelling, handler names too; keys not inherited are dropped. */
function normaliseBase(root: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(root)) {
    const key = ROOT_BY_FOLD.get(fold(k)) ?? k;
    if (NOT_INHERITED.has(key) || v === null || v === undefined) continue;
    if (key === 'handler_on' && isPlainObject(v)) {
      out[key] = Object.fromEntries(Object.entries(v).map(([h, s]) => [HANDLER_NAMES[h] ?? h, s]));
    } else out[key] = v;
  }
  return out;
}

/**
 * Lays the base under one document of a DAG file (its root mapping; anything else is left to the reader).
 * Returns the names of the handlers (`handler_on` entries) that only the base gave it.
 */
export function applyBaseLayer(doc: Document, layer: BaseLayer): string[] {
  const root = doc.contents;
  if (!isMap(root)) return [];
  const fromBase: string[] = [];
  for (const [key, baseValue] of Object.entries(layer.values)) {
    if (READ_APART.has(key)) continue;
    const pair = findPair(root, key);
    if (!pair || isNullNode(pair.value)) {
      if (pair) pair.value = doc.createNode(baseValue);
      else root.items.push(doc.createPair(key, baseValue) as Pair<unknown, unknown>);
      if (key === 'handler_on' && isPlainObject(baseValue)) fromBase.push(...Object.keys(baseValue));
      continue;
    }
    if (APPENDED.has(key)) pair.value = appended(doc, baseValue, pair.value as Node);
    else if (!REPLACED.has(key) && isPlainObject(baseValue) && isMap(pair.value)) {
      const oauth = key === 'smtp' && ('oauth' in baseValue || findPair(pair.value, 'oauth') !== undefined);
      if (!oauth) fromBase.push(...mergeMap(doc, pair.value, baseValue, key === 'handler_on'));
    }
  }
  if (layer.tz !== null) zoneSchedules(root, layer.tz);
  return fromBase;
}

/**
 * The base's keys missing from the DAG's mapping, recursively (handlers are replaced whole). Returns the
 * keys it added at this level when they are handlers.
 */
function mergeMap(doc: Document, map: YAMLMap, base: Record<string, unknown>, handlers: boolean): string[] {
  const added: string[] = [];
  for (const [key, baseValue] of Object.entries(base)) {
    const pair = findPair(map, key, handlers);
    if (!pair) map.items.push(doc.createPair(key, baseValue) as Pair<unknown, unknown>);
    else if (isNullNode(pair.value)) pair.value = doc.createNode(baseValue);
    else {
      if (!handlers && isPlainObject(baseValue) && isMap(pair.value))
        mergeMap(doc, pair.value, baseValue, false);
      continue;
    }
    if (handlers) added.push(key);
  }
  return added;
}

/** The base's entries, then the DAG's own nodes (which keep their place in the file for messages). */
function appended(doc: Document, baseValue: unknown, own: Node): Node {
  const baseItems = entries(baseValue).map((v) => doc.createNode(v) as Node);
  let ownItems: unknown[];
  if (isSeq(own)) ownItems = own.items;
  else if (isMap(own)) {
    // A mapping of variables becomes a list of one-variable mappings, in order.
    ownItems = own.items.map((p) => {
      const m = doc.createNode({}) as YAMLMap;
      m.items.push(p);
      return m;
    });
  } else ownItems = [own];
  const seq = doc.createNode([]) as unknown as { items: unknown[] } & Node;
  seq.items.push(...baseItems, ...ownItems);
  return seq;
}

/** `env`/`dotenv` entries as a list: a mapping becomes one-variable mappings, a single value one item. */
function entries(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value)) return Object.entries(value).map(([k, v]) => ({ [k]: v }));
  return [value];
}

const TZ_PREFIX = /^\s*(?:CRON_TZ|TZ)=/;
const SCHEDULE_KINDS = new Set(['start', 'stop', 'restart']);

/** Prefixes `CRON_TZ=<tz> ` to each schedule expression that names no zone. */
function zoneSchedules(root: YAMLMap, tz: string): void {
  const pair = findPair(root, 'schedule');
  if (!pair) return;
  const zone = (node: unknown): void => {
    if (
      isScalar(node) &&
      typeof node.value === 'string' &&
      node.value.trim() !== '' &&
      !TZ_PREFIX.test(node.value)
    )
      node.value = `CRON_TZ=${tz} ${node.value.trim()}`;
    else if (isSeq(node)) node.items.forEach(zone);
    // start/stop/restart lists; a one-off `at:` names its own instant.
    else if (isMap(node))
      for (const p of node.items)
        if (isScalar(p.key) && SCHEDULE_KINDS.has(String(p.key.value))) zone(p.value);
  };
  zone(pair.value);
}

function findPair(map: YAMLMap, key: string, handlers = false): Pair | undefined {
  const want = fold(key);
  return map.items.find((p) => {
    if (!isScalar(p.key) || typeof p.key.value !== 'string') return false;
    const k = handlers ? (HANDLER_NAMES[p.key.value] ?? p.key.value) : p.key.value;
    return fold(k) === want;
  }) as Pair | undefined;
}

function isNullNode(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
