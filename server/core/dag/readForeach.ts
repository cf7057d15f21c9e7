// Reads a step's `foreach:` (Dagu's inline loop): the items (a list, or text that must give a JSON array when
// the run resolves it), the item's name, an optional key, the width, the body steps and what each item
// collects. The body is read as a graph of its own by the caller's `readBody` (readSteps.ts), so that this
// module does not import the step reader back.

import { isMap, isScalar, isSeq } from 'yaml';
import type { ForeachSpec, StepSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import {
  emptyExecution,
  MAX_PARALLEL_CONCURRENCY,
  MAX_PARALLEL_ITEMS,
  type StepExecution,
} from './readAction';

/** Dagu's default width of a fan-out (parallel and foreach alike). */
const DEFAULT_FOREACH_CONCURRENCY = 10;
const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]*$/;
const FOREACH_KEYS = ['items', 'as', 'key', 'max_concurrent', 'steps', 'collect'];

/** Execution keys a foreach step may not have: the body is what it runs (Dagu's list and wording). */
const FOREACH_CONFLICTS = ['run', 'action', 'command', 'exec', 'script', 'call', 'parallel', 'type'];

/** Reads the body steps of a foreach (`steps`), as their own graph; null when they cannot be read. */
export type ReadForeachBody = (entry: Entry) => StepSpec[] | null;

/** A foreach step's execution; `readBody` is null where a body cannot be read (a handler). */
export function readForeachExecution(
  r: DagReader,
  map: Map<string, Entry>,
  entry: Entry,
  readBody: ReadForeachBody | null,
): StepExecution {
  const out = emptyExecution({ kind: 'noop' });
  for (const key of FOREACH_CONFLICTS) {
    const other = map.get(key);
    if (other && !isNull(other.value)) {
      r.errorAt(other, `foreach cannot be combined with "${key}" on the same step`);
    }
  }
  if (!readBody) {
    r.errorAt(entry, 'a handler cannot be a foreach step');
    return out;
  }
  const spec = readForeach(r, entry, readBody);
  if (spec) out.action = { kind: 'foreach', foreach: spec };
  return out;
}

function readForeach(r: DagReader, entry: Entry, readBody: ReadForeachBody): ForeachSpec | null {
  const m = r.map(entry, FOREACH_KEYS, 'foreach');
  if (!m) return null;
  const spec: ForeachSpec = {
    items: null,
    items_text: null,
    as: 'item',
    key: null,
    max_concurrent: DEFAULT_FOREACH_CONCURRENCY,
    steps: [],
    collect: [],
  };
  let ok = true;
  const itemsEntry = m.get('items');
  if (!itemsEntry || isNull(itemsEntry.value)) {
    r.error(entry.value, `${entry.field}.items`, 'foreach.items is required');
    ok = false;
  } else if (isScalar(itemsEntry.value) && typeof itemsEntry.value.value === 'string') {
    spec.items_text = r.string(itemsEntry) ?? '';
  } else if (isSeq(itemsEntry.value)) {
    const count = itemsEntry.value.items.length;
    if (count > MAX_PARALLEL_ITEMS) {
      r.errorAt(itemsEntry, `foreach expands to at most ${MAX_PARALLEL_ITEMS} items, got ${count}`);
      ok = false;
    } else {
      spec.items = r.toJS(itemsEntry.value) as unknown[];
    }
  } else {
    r.errorAt(itemsEntry, `foreach.items must be text or a list, got ${describe(itemsEntry.value)}`);
    ok = false;
  }

  const asEntry = m.get('as');
  if (asEntry && !isNull(asEntry.value)) {
    const alias = r.string(asEntry);
    if (alias === undefined) ok = false;
    else if (!IDENTIFIER.test(alias)) {
      r.errorAt(asEntry, `foreach.as must match ${IDENTIFIER.source}, got ${JSON.stringify(alias)}`);
      ok = false;
    } else if (alias === 'index' || alias === 'key') {
      r.errorAt(asEntry, `foreach.as ${JSON.stringify(alias)} is reserved`);
      ok = false;
    } else spec.as = alias;
  }

  const keyEntry = m.get('key');
  if (keyEntry && !isNull(keyEntry.value)) {
    const key = r.string(keyEntry);
    if (key === undefined) ok = false;
    else spec.key = key;
  }

  const mcEntry = m.get('max_concurrent');
  if (mcEntry && !isNull(mcEntry.value)) {
    const mc = r.integer(mcEntry, 1);
    if (mc === undefined) ok = false;
    else if (mc > MAX_PARALLEL_CONCURRENCY) {
      r.errorAt(mcEntry, `max_concurrent must be an integer from 1 through ${MAX_PARALLEL_CONCURRENCY}`);
      ok = false;
    } else spec.max_concurrent = mc;
  }

  const stepsEntry = m.get('steps');
  if (!stepsEntry || isNull(stepsEntry.value)) {
    r.error(entry.value, `${entry.field}.steps`, 'foreach.steps must contain at least one step');
    ok = false;
  } else if (!isSeq(stepsEntry.value)) {
    r.errorAt(stepsEntry, `foreach.steps must be a list, got ${describe(stepsEntry.value)}`);
    ok = false;
  } else if (stepsEntry.value.items.length === 0) {
    r.errorAt(stepsEntry, 'foreach.steps must contain at least one step');
    ok = false;
  } else {
    const steps = readBody(stepsEntry);
    if (steps === null) ok = false;
    else {
      spec.steps = steps;
      for (const step of steps) if (!refuseHumanInBody(r, stepsEntry, step)) ok = false;
    }
  }

  const collectEntry = m.get('collect');
  if (collectEntry && !isNull(collectEntry.value)) {
    if (!isMap(collectEntry.value)) {
      r.errorAt(collectEntry, `foreach.collect must be a map, got ${describe(collectEntry.value)}`);
      ok = false;
    } else {
      for (const [name, e] of r.map(collectEntry, null, 'foreach.collect') ?? []) {
        if (!IDENTIFIER.test(name)) {
          r.errorAt(e, `foreach.collect names must match ${IDENTIFIER.source}, got ${JSON.stringify(name)}`);
          ok = false;
          continue;
        }
        const text = r.string(e);
        if (text === undefined) ok = false;
        else spec.collect.push([name, text]);
      }
      spec.collect.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    }
  }
  return ok ? spec : null;
}

/** A human task waits for a person at the top of its run; an item of a loop body is not one (as in Dagu). */
function refuseHumanInBody(r: DagReader, stepsEntry: Entry, step: StepSpec): boolean {
  if (step.action?.kind !== 'human') return true;
  r.errorAt(stepsEntry, `a human.task step cannot be in a foreach body (step ${JSON.stringify(step.name)})`);
  return false;
}
