// A `foreach` step as Dagu runs it (its builtin foreach executor): the items are resolved (a list, or text that
// must give a JSON array), each gets a key (its index, or `foreach.key` resolved with the item in scope; keys
// must be unique and are checked before any body starts), then the body graph runs once per item, at most
// `max_concurrent` at once, each item with `${foreach.<as>}`, `${foreach.index}` and `${foreach.key}` in scope.
// A succeeded item's `collect` entries are resolved in its body's scope. The step prints one JSON summary on
// its stdout and fails when any item did not succeed. The body itself is run by the caller (executeRun).

import type { ForeachItemStatus, ForeachSpec } from '../core/types';
import { mapConcurrently } from '../core/concurrency';
import { GoStruct, goJson } from './actions/goJson';
import { sinkWriter } from './actions/sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './actions/types';

/** Dagu's cap on the items of one expansion (parallel and foreach). */
export const MAX_FOREACH_ITEMS = 1000;

/** How one item's body ended. */
export type BodyResult =
  { ok: true; collect: (text: string) => string } | { ok: false; state: string; error: string };

export interface ForeachHooks {
  /** Resolves text in the foreach step's scope, with `foreach` as the item scope (null: none). */
  resolve(text: string, foreach: Readonly<Record<string, unknown>> | null): string;
  /** Resolves the strings of literal items in the step's scope. */
  resolveItems(items: unknown[]): unknown[];
  /** Runs one item's body graph to its end; `signal` aborts it (the step stopped or timed out). */
  runBody(
    index: number,
    foreach: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<BodyResult>;
  /** The items' statuses changed (called with the whole list each time). */
  onItems(items: readonly ForeachItemStatus[]): void;
}

const ITEM_FAILED = 'one or more foreach item bodies failed';

/** Runs a foreach step; expected failures come back as a failed result with Dagu's message. */
export async function runForeach(
  spec: ForeachSpec,
  ctx: ActionContext,
  hooks: ForeachHooks,
): Promise<ActionResult> {
  const expanded = expandItems(spec, hooks);
  if (!expanded.ok) return actionFailed(expanded.error);
  const items = expanded.items;
  const statuses: ForeachItemStatus[] = items.map((item) => ({
    index: item.index,
    key: item.key,
    label: spec.key !== null ? item.key : labelOf(item.value),
    status: 'not_started',
  }));
  const outputs: Array<Record<string, string> | null> = items.map(() => null);
  if (items.length > 0) hooks.onItems(statuses);

  await mapConcurrently(items, spec.max_concurrent, async (item) => {
    if (ctx.signal.aborted) return;
    const status = statuses[item.index];
    status.status = 'running';
    hooks.onItems(statuses);
    const scope = itemScope(spec.as, item.index, item.key, item.value);
    const result = await hooks.runBody(item.index, scope, ctx.signal).catch((err: unknown): BodyResult => ({
      ok: false,
      state: 'failed',
      error: err instanceof Error ? err.message : String(err),
    }));
    if (result.ok) {
      const collected = collect(spec, result.collect);
      if (collected.ok) {
        status.status = 'succeeded';
        outputs[item.index] = collected.outputs;
      } else {
        status.status = 'failed';
        status.error = collected.error;
      }
    } else {
      status.status = 'failed';
      status.error = result.error;
    }
    hooks.onItems(statuses);
  });

  await sinkWriter(ctx.stdout)(summaryJson(statuses, outputs));
  if (ctx.signal.aborted) return actionFailed('foreach: stopped');
  return statuses.every((s) => s.status === 'succeeded') ? ACTION_OK : actionFailed(ITEM_FAILED);
}

interface ExpandedItem {
  index: number;
  key: string;
  value: unknown;
}

function expandItems(
  spec: ForeachSpec,
  hooks: ForeachHooks,
): { ok: true; items: ExpandedItem[] } | { ok: false; error: string } {
  let values: unknown[];
  if (spec.items_text !== null) {
    const text = hooks.resolve(spec.items_text, null);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return {
        ok: false,
        error: `foreach.items string must resolve to a JSON array: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (!Array.isArray(parsed)) {
      return {
        ok: false,
        error: `foreach.items string must resolve to a JSON array: got ${parsed === null ? 'null' : typeof parsed}`,
      };
    }
    values = parsed;
  } else {
    values = hooks.resolveItems(spec.items ?? []);
  }
  if (values.length > MAX_FOREACH_ITEMS) {
    return {
      ok: false,
      error: `foreach expansion produced ${values.length} items; maximum is ${MAX_FOREACH_ITEMS}`,
    };
  }
  const items: ExpandedItem[] = [];
  const seen = new Map<string, number>();
  for (const [index, value] of values.entries()) {
    let key = String(index);
    if (spec.key !== null) {
      key = hooks.resolve(spec.key, itemScope(spec.as, index, '', value));
      if (key === '')
        return { ok: false, error: `foreach.key resolved to an empty string for item ${index}` };
      if (hasUnresolvedReference(key)) {
        return {
          ok: false,
          error: `foreach.key resolved with unresolved reference for item ${index}: ${key}`,
        };
      }
    }
    const first = seen.get(key);
    if (first !== undefined) {
      return {
        ok: false,
        error: `duplicate foreach item key ${JSON.stringify(key)} at item ${index}; first seen at item ${first}`,
      };
    }
    seen.set(key, index);
    items.push({ index, key, value });
  }
  return { ok: true, items };
}

/** The `foreach` scope of one item: its index and key as text, the item under its alias. */
function itemScope(alias: string, index: number, key: string, value: unknown): Record<string, unknown> {
  const scope: Record<string, unknown> = Object.create(null);
  scope.index = String(index);
  scope.key = key;
  scope[alias] = value;
  return scope;
}

function collect(
  spec: ForeachSpec,
  resolve: (text: string) => string,
): { ok: true; outputs: Record<string, string> } | { ok: false; error: string } {
  const outputs: Record<string, string> = {};
  for (const [name, text] of spec.collect) {
    const value = resolve(text);
    if (hasUnresolvedReference(value)) {
      return { ok: false, error: `foreach.collect.${name} resolved with unresolved reference: ${value}` };
    }
    outputs[name] = value;
  }
  return { ok: true, outputs };
}

/** Dagu's test for a reference a foreach could not fill in (an item field or step output that is missing). */
function hasUnresolvedReference(value: string): boolean {
  return (
    value.includes('${foreach.') ||
    value.includes('${steps.') ||
    (value.includes('${') && value.includes('.outputs.'))
  );
}

function labelOf(value: unknown): string {
  return typeof value === 'string' ? value : goJson(value);
}

/** The step's stdout, as Dagu's Go struct writes it: summary, items (in item order), succeeded outputs. */
function summaryJson(
  statuses: readonly ForeachItemStatus[],
  outputs: ReadonlyArray<Record<string, string> | null>,
): string {
  const succeeded = statuses.filter((s) => s.status === 'succeeded').length;
  const items = statuses.map(
    (s, i) =>
      new GoStruct([
        ['index', s.index],
        ['key', s.key],
        ['status', s.status],
        // omitempty: an empty map and an empty error are left out.
        ['outputs', outputs[i] && Object.keys(outputs[i]!).length > 0 ? outputs[i] : undefined],
        ['error', s.error ? s.error : undefined],
      ]),
  );
  return goJson(
    new GoStruct([
      [
        'summary',
        new GoStruct([
          ['total', statuses.length],
          ['succeeded', succeeded],
          ['failed', statuses.length - succeeded],
        ]),
      ],
      ['items', items],
      ['outputs', statuses.flatMap((s, i) => (s.status === 'succeeded' ? [outputs[i] ?? {}] : []))],
    ]),
  );
}
