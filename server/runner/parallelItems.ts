// The child runs of a call step: one for a plain `call`, one per distinct item for `parallel`. Items come from
// a literal list or from a variable whose value is split the way Dagu splits it (a JSON array, else lines,
// else the most frequent of tab, `|`, `;`, `,`, else quoted words, else spaces).

import { stringifySortedJson } from '../core/dag/values';
import { formatParam, parseParamString } from '../core/params';
import type { ParamSpec, StepSpec } from '../core/types';
import { parseParamText } from './childParams';

/** Most items one `parallel` step may fan out to (Dagu's limit). */
export const MAX_PARALLEL_ITEMS = 1000;
/** `max_concurrent` when the step does not set one. */
export const DEFAULT_MAX_CONCURRENT = 10;

/**
 * Value resolution in the call step's scope (params, DAG and step env, earlier outputs, `${steps.…}`), with
 * `extra` variables on top (`ITEM`); `${ITEM.field}` reads a field of a JSON item. Throws on a bad reference.
 */
export type ResolveText = (text: string, extra: Record<string, string>) => string;

/** One child run a call step starts. */
export interface ChildCall {
  /** The resolved target: a local document's name, or a DAG name or path of the catalogue. */
  target: string;
  /** The params laid over the child's defaults. */
  params: ParamSpec[];
  /** The item this child runs for (`parallel` only), as its text. */
  item: string | null;
  /** Target and params (and the item when the step has params of its own): children with one key merge. */
  key: string;
}

export type ChildCallsResult = { ok: true; calls: ChildCall[] } | { ok: false; error: string };

/** The children a call step starts, in item order, duplicates merged. Never throws. */
export function childCalls(step: StepSpec, resolve: ResolveText): ChildCallsResult {
  try {
    if (!step.parallel) {
      const params = resolveCallParams(step.params ?? [], resolve, {});
      const target = resolve(step.call ?? '', {}).trim();
      return { ok: true, calls: [{ target, params, item: null, key: identity(target, params, null) }] };
    }
    const items = parallelItems(step, resolve);
    if (!items.ok) return items;
    const byKey = new Map<string, ChildCall>();
    const ownParams = (step.params ?? []).length > 0;
    for (const item of items.items) {
      const extra = { ITEM: item };
      const target = resolve(step.call ?? '', extra).trim();
      let params: ParamSpec[];
      if (ownParams) {
        params = resolveCallParams(step.params!, resolve, extra);
      } else {
        // No params of its own: the item is the child's params (an object's keys named, else the words).
        const parsed = parseParamText(item);
        if (!parsed.ok) return { ok: false, error: `parallel item ${JSON.stringify(item)}: ${parsed.error}` };
        params = parsed.params;
      }
      const key = identity(target, params, ownParams ? item : null);
      if (!byKey.has(key)) byKey.set(key, { target, params, item, key });
    }
    return { ok: true, calls: [...byKey.values()] };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** A call step's params with references filled in; a `split` word is read again as params text. */
function resolveCallParams(
  params: readonly ParamSpec[],
  resolve: ResolveText,
  extra: Record<string, string>,
): ParamSpec[] {
  return params.flatMap((p) => {
    const value = resolve(p.value, extra);
    return p.split ? parseParamString(value) : [{ name: p.name, value }];
  });
}

function identity(target: string, params: ParamSpec[], item: string | null): string {
  return [target, params.map(formatParam).join('\u0000'), item ?? ''].join('\u0001');
}

/** The items of a `parallel` step as texts: resolved, split, counted against the limits. */
export function parallelItems(
  step: StepSpec,
  resolve: ResolveText,
): { ok: true; items: string[] } | { ok: false; error: string } {
  const spec = step.parallel!;
  let items: string[];
  if (spec.variable !== null) {
    const value = resolve(spec.variable, {});
    items = splitItems(value);
  } else {
    items = spec.items.map((item) =>
      typeof item === 'string'
        ? resolve(item, {})
        : // Dagu marshals the item's map with Go's encoder: keys sorted, HTML characters escaped.
          stringifySortedJson(Object.fromEntries(Object.entries(item).map(([k, v]) => [k, resolve(v, {})]))),
    );
  }
  if (items.length === 0) return { ok: false, error: 'parallel execution requires at least one item' };
  if (items.length > MAX_PARALLEL_ITEMS) {
    return {
      ok: false,
      error: `parallel: ${items.length} items exceed the limit of ${MAX_PARALLEL_ITEMS} per step`,
    };
  }
  return { ok: true, items };
}

/** Splits a variable's value into items (see the module comment). */
export function splitItems(text: string): string[] {
  const s = text.trim();
  if (s === '') return [];
  const json = (s.startsWith('[') || s.startsWith('{')) && parseJson(s);
  if (json) {
    if (!Array.isArray(json.value)) return [s];
    return json.value.map((v: unknown) => (typeof v === 'string' ? v : stringifySortedJson(v)));
  }
  if (/[\n\r]/.test(s)) return nonEmpty(s.split(/[\n\r]+/));
  const quotes = count(s, '"');
  if (quotes >= 2 && (s.startsWith('"') || s.endsWith('"') || s.includes('" ') || s.includes(' "'))) {
    return quotedWords(s);
  }
  let best: string | null = null;
  let max = 0;
  for (const sep of ['\t', '|', ';', ',']) {
    const n = count(s, sep);
    if (n > max) {
      max = n;
      best = sep;
    }
  }
  if (best !== null) return nonEmpty(s.split(best));
  return s.split(/\s+/).filter(Boolean);
}

function parseJson(s: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(s) };
  } catch {
    return null;
  }
}

function count(s: string, part: string): number {
  return s.split(part).length - 1;
}

function nonEmpty(parts: string[]): string[] {
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** `"item one" "item two" three`: quoted runs are items, unquoted runs of non-space characters too. */
function quotedWords(s: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)("|$)|([^\s"]+)/g;
  for (const m of s.matchAll(re)) {
    // A closed pair of quotes is an item even when empty; an unclosed one only when it holds something.
    if (m[1] === undefined) out.push(m[3]);
    else if (m[2] === '"' || m[1] !== '') out.push(m[1]);
  }
  return out;
}
