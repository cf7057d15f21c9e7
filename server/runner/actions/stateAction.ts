// Dagu's state actions: `state.get`, `state.set`, `state.delete`, `state.list` and `state.diff` (legacy
// `type: state`) on the state store of the process's storage backend. Each prints one line of JSON, with
// Dagu's fields in Dagu's order, which `output:` captures. A version conflict, a missing required key, a bad
// key or namespace and a value over 1 MiB fail the step with a message naming what was wrong.

import { errorMessage } from '../../store/fsutil';
import {
  DEFAULT_GLOBAL_NAMESPACE,
  encodeStateValue,
  hashStateValue,
  InvalidStateError,
  StateConflictError,
  type StateEntry,
  type StateRef,
  type StateScope,
  type StateStore,
} from '../../store/stateStore';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export type StateOp = 'get' | 'set' | 'delete' | 'list' | 'diff';

/** What a state step reaches: the store, or why there is none in this process (a worker). */
export type StateAccess =
  | { store: StateStore; dagName: string; rootDagName: string; runId: string }
  | { store: null; reason: string };

/** Go's encoder (HTML escaping off) writes U+2028 and U+2029 escaped; JSON.stringify does not. */
function goJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** An object printed with raw JSON texts (`value`) spliced in where Dagu prints a json.RawMessage. */
function printObject(fields: [string, unknown, 'raw'?][]): string {
  return `{${fields.map(([k, v, raw]) => `${JSON.stringify(k)}:${raw ? (v as string) : goJson(v)}`).join(',')}}`;
}

export async function runStateAction(op: StateOp, ctx: ActionContext): Promise<ActionResult> {
  const access = ctx.state;
  if (!access) return actionFailed('state: the state store is not configured in this process');
  if (access.store === null) return actionFailed(`state: ${access.reason}`);
  const w = ctx.with;
  try {
    const { scope, namespace } = resolveScope(w, access);
    const out = sinkWriter(ctx.stdout);
    const print = (text: string) => out(`${text}\n`);
    const source = { dag_name: access.dagName, dag_run_id: access.runId, step_name: ctx.stepName ?? '' };
    if (op === 'list') {
      const prefix = textOf(w, 'prefix').trim();
      const limit = w.limit === undefined ? 0 : Number(w.limit);
      if (!Number.isInteger(limit) || limit < 0)
        return actionFailed('state: limit must be greater than or equal to zero');
      const entries = await access.store.list({ scope, namespace, keyPrefix: prefix, limit });
      const items = entries.map((e) =>
        printObject([
          ['scope', e.scope],
          ['namespace', e.namespace],
          ['key', e.key],
          ['version', e.version],
          ['hash', e.hash],
          ['createdAt', e.created_at],
          ['updatedAt', e.updated_at],
          ...(w.include_values === true ? [['value', e.value, 'raw'] as [string, unknown, 'raw']] : []),
        ]),
      );
      await print(
        printObject([
          ['operation', 'list'],
          ['scope', scope],
          ['namespace', namespace],
          ...(prefix !== '' ? [['prefix', prefix] as [string, unknown]] : []),
          ['entries', `[${items.join(',')}]`, 'raw'],
        ]),
      );
      return ACTION_OK;
    }
    const ref: StateRef = { scope, namespace, key: textOf(w, 'key').trim() };
    const head: [string, unknown][] = [
      ['operation', op],
      ['scope', ref.scope],
      ['namespace', ref.namespace],
      ['key', ref.key],
    ];
    switch (op) {
      case 'get': {
        const e = await access.store.get(ref);
        if (e === null) {
          if (w.required === true) return actionFailed(`state: ${describe(ref)} not found (required: true)`);
          const fields: [string, unknown, 'raw'?][] = [...head, ['found', false]];
          if ('default' in w) fields.push(['value', encodeStateValue(w.default), 'raw']);
          await print(printObject(fields));
        } else {
          await print(
            printObject([
              ...head,
              ['found', true],
              ['version', e.version],
              ['hash', e.hash],
              ['value', e.value, 'raw'],
            ]),
          );
        }
        return ACTION_OK;
      }
      case 'set': {
        const e = await access.store.put(ref, encodeStateValue(w.value), {
          expectedVersion: expectedVersion(w),
          createOnly: w.create_only === true,
          updatedBy: source,
        });
        await print(
          printObject([...head, ['version', e.version], ['hash', e.hash], ['created', e.version === 1]]),
        );
        return ACTION_OK;
      }
      case 'delete': {
        const deleted = await access.store.delete(ref);
        await print(printObject([...head, ['deleted', deleted]]));
        return ACTION_OK;
      }
      case 'diff':
        return await runDiff(access.store, ref, w, source, head, print);
    }
  } catch (e) {
    if (e instanceof StateConflictError || e instanceof InvalidStateError) return actionFailed(e.message);
    if (e instanceof StateConfigError) return actionFailed(`state: ${e.message}`);
    return actionFailed(`state: ${errorMessage(e)}`);
  }
}

class StateConfigError extends Error {}

function describe(ref: StateRef): string {
  return `key ${JSON.stringify(ref.key)} in ${ref.scope} namespace ${JSON.stringify(ref.namespace)}`;
}

function textOf(w: Record<string, unknown>, key: string): string {
  const v = w[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new StateConfigError(`${key} must be a string`);
  return v;
}

/** `expected_version` after resolution: a whole number, or a text holding one. */
function expectedVersion(w: Record<string, unknown>): number | undefined {
  const v = w.expected_version;
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?[0-9]+\s*$/.test(v) && Number.isSafeInteger(Number(v)))
    return Number(v);
  throw new StateConfigError(`expected_version must resolve to an integer, got ${JSON.stringify(v)}`);
}

function resolveScope(
  w: Record<string, unknown>,
  access: { dagName: string; rootDagName: string },
): { scope: StateScope; namespace: string } {
  const scope = (textOf(w, 'scope').trim() || 'dag') as StateScope;
  let namespace = textOf(w, 'namespace').trim();
  switch (scope) {
    case 'dag':
      namespace ||= access.dagName;
      break;
    case 'root_dag':
      namespace ||= access.rootDagName || access.dagName;
      break;
    case 'global':
      namespace ||= DEFAULT_GLOBAL_NAMESPACE;
      break;
    case 'custom':
      if (namespace === '') throw new StateConfigError('namespace is required for custom scope');
      break;
    default:
      throw new StateConfigError(`unsupported scope ${JSON.stringify(scope)}`);
  }
  return { scope, namespace };
}

async function runDiff(
  store: StateStore,
  ref: StateRef,
  w: Record<string, unknown>,
  source: { dag_name: string; dag_run_id: string; step_name: string },
  head: [string, unknown][],
  print: (text: string) => Promise<void>,
): Promise<ActionResult> {
  const current = encodeStateValue(w.value);
  const expected = expectedVersion(w);
  const update = w.update !== false;
  const previous = await store.get(ref);
  if (expected !== undefined && (previous?.version ?? 0) !== expected)
    throw new StateConflictError(ref, expected, previous?.version ?? null);
  const changed = previous === null || previous.hash !== hashStateValue(current);
  // The entry after the step: the one written, else the one there (none when nothing was and nothing is).
  const entry: StateEntry | null =
    changed && update
      ? await store.put(ref, current, { expectedVersion: previous?.version ?? 0, updatedBy: source })
      : previous;
  const fields: [string, unknown, 'raw'?][] = [
    ...head,
    ['changed', changed],
    ['foundPrevious', previous !== null],
  ];
  // Dagu leaves out a zero version and an empty hash or previous value.
  if (previous) fields.push(['previousVersion', previous.version]);
  if (entry) fields.push(['version', entry.version], ['hash', entry.hash]);
  if (previous) fields.push(['previous', previous.value, 'raw']);
  fields.push(['current', current, 'raw']);
  await print(printObject(fields));
  return ACTION_OK;
}
