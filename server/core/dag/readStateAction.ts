// Reads Dagu's state actions (`action: state.get`, `state.set`, `state.delete`, `state.list`, `state.diff`, and
// the legacy `type: state` with the operation in `command`): checks `with` as Dagu does when it loads the
// file (its config schema, then its step validator) and keeps it as written; text values are resolved when
// the step runs.
//
// `scope` is dag, root_dag, global or custom; `namespace`, `key` and `prefix` are texts; `value` and `default`
// any value; `expected_version` a whole number, or a text that is one or is one whole `${...}` reference;
// `create_only`, `required`, `update` and `include_values` booleans; `limit` a whole number of at least 0.
// get, set, delete and diff need a non-blank `key`; set and diff need `value` (null counts).

import { isScalar } from 'yaml';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import type { StepExecution } from './readAction';
import { legacyOperation, refuseShellKeys } from './readLegacyOp';
import { readBooleanKeys, readStrictTextKeys } from './readWithTexts';

export const STATE_OPS = ['get', 'set', 'delete', 'list', 'diff'] as const;
export type StateOp = (typeof STATE_OPS)[number];

const SCOPES = ['dag', 'root_dag', 'global', 'custom'];
const TEXTS = ['scope', 'namespace', 'key', 'prefix'] as const;
const BOOLEANS = ['create_only', 'required', 'update', 'include_values'] as const;
const KEYS: readonly string[] = [...TEXTS, ...BOOLEANS, 'value', 'default', 'expected_version', 'limit'];

/** An `expected_version` text Dagu accepts at load: a base-10 integer, or one whole `${...}` reference. */
const VERSION_TEXT = /^(-?[0-9]+|\$\{[^{}]+\})$/;

/** `action: state.<op>` (`op` given), or legacy `type: state` (`op` null: it is in `command`). */
export function readStateAction(
  r: DagReader,
  map: Map<string, Entry>,
  op: StateOp | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'state';
  const at = map.get('action') ?? map.get('type')!;
  const legacy = op === null;
  if (legacy) {
    const read = legacyOperation(r, map, 'state', STATE_OPS);
    if (read === null) return;
    op = read;
  }
  const action = `state.${op}`;
  const before = r.errors.length;
  refuseShellKeys(r, map, action, legacy);
  let fields = new Map<string, Entry>();
  if (withEntry && !isNull(withEntry.value)) {
    const m = r.map(withEntry, KEYS, 'with');
    if (!m) return;
    fields = m;
  }
  const w: Record<string, unknown> = {};
  readStrictTextKeys(r, fields, TEXTS, w, (key, v) =>
    key === 'scope' && !SCOPES.includes(v)
      ? `must be one of ${SCOPES.join(', ')}, got ${JSON.stringify(v)}`
      : null,
  );
  readBooleanKeys(r, fields, BOOLEANS, w);
  const limitEntry = fields.get('limit');
  if (limitEntry && isNull(limitEntry.value)) r.errorAt(limitEntry, 'must be an integer, got nothing');
  const limit = r.integer(limitEntry, 0);
  if (limit !== undefined) w.limit = limit;
  const versionEntry = fields.get('expected_version');
  if (versionEntry) {
    const v = isScalar(versionEntry.value) ? versionEntry.value.value : undefined;
    if (typeof v === 'number' && Number.isSafeInteger(v)) w.expected_version = v;
    else if (typeof v === 'string' && VERSION_TEXT.test(v)) w.expected_version = r.string(versionEntry);
    else
      r.errorAt(
        versionEntry,
        `must be an integer, or a text holding one or one whole \${...} reference, got ${
          typeof v === 'string' ? JSON.stringify(v) : describe(versionEntry.value)
        }`,
      );
  }
  for (const key of ['value', 'default'] as const) {
    const e = fields.get(key);
    if (e) w[key] = isNull(e.value) ? null : r.toJS(e.value);
  }
  if (op !== 'list' && (typeof w.key !== 'string' || w.key.trim() === '') && !fields.has('key'))
    r.errorAt(withEntry ?? at, `${action} needs with.key`);
  else if (op !== 'list' && typeof w.key === 'string' && w.key.trim() === '')
    r.errorAt(fields.get('key')!, 'must not be blank');
  if ((op === 'set' || op === 'diff') && !fields.has('value'))
    r.errorAt(withEntry ?? at, `${action} needs with.value`);
  if (r.errors.length === before) out.action = { kind: 'state', op: op!, with: w };
}
