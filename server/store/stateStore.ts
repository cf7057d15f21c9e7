// Dagu's state store: versioned JSON values kept across runs, addressed by scope, namespace and key, that the
// `state.*` actions read and write. Every backend keeps the same rules: a value is compact JSON of at most
// 1 MiB (object keys sorted, as Dagu's Go encoder writes them), its version starts at 1 and grows by one per
// write, and a write with an expected version (or create-only) is one atomic compare-and-set.

export const STATE_SCOPES = ['dag', 'root_dag', 'global', 'custom'] as const;
export type StateScope = (typeof STATE_SCOPES)[number];

/** The namespace of `scope: global` when none is given (Dagu's). */
export const DEFAULT_GLOBAL_NAMESPACE = '_';
/** The largest value, as compact JSON, in bytes (Dagu's limit). */
export const MAX_STATE_VALUE_BYTES = 1 << 20;
/** The largest `limit` of a list (Dagu's). */
export const MAX_STATE_LIST_LIMIT = 2 ** 31 - 1;

export interface StateRef {
  scope: StateScope;
  namespace: string;
  key: string;
}

/** The run and step that last wrote an entry. */
export interface StateUpdateSource {
  dag_name?: string;
  dag_run_id?: string;
  step_name?: string;
}

export interface StateEntry extends StateRef {
  /** The value as compact JSON text (normalizeStateValue). */
  value: string;
  version: number;
  /** SHA-256 of `value`, hex. */
  hash: string;
  /** RFC 3339 UTC times. */
  created_at: string;
  updated_at: string;
  updated_by: StateUpdateSource | null;
}

export interface StatePutOptions {
  /** The version the entry must have now (0: it must not exist); absent: any. */
  expectedVersion?: number;
  /** Fail when the entry exists. */
  createOnly?: boolean;
  updatedBy?: StateUpdateSource | null;
}

export interface StateListOptions {
  scope: StateScope;
  namespace: string;
  /** Only keys starting with this; empty: all. */
  keyPrefix: string;
  /** At most this many entries (0: no limit). */
  limit: number;
}

export interface StateStore {
  /** The entry, or null when the key holds none. */
  get(ref: StateRef): Promise<StateEntry | null>;
  /** Writes the value (normalized JSON text); throws StateConflictError when the expectation fails. */
  put(ref: StateRef, value: string, opts?: StatePutOptions): Promise<StateEntry>;
  /** Removes the entry; false when there was none. */
  delete(ref: StateRef): Promise<boolean>;
  /** The namespace's entries, keys in byte order. */
  list(opts: StateListOptions): Promise<StateEntry[]>;
}

/** A reference, key prefix, limit or value the store refuses, before any storage is touched. */
export class InvalidStateError extends Error {
  constructor(message: string) {
    super(`state: ${message}`);
    this.name = 'InvalidStateError';
  }
}

/** A write whose expected version (or create-only) did not match what is stored. */
export class StateConflictError extends Error {
  constructor(
    readonly ref: StateRef,
    readonly expected: number | 'absent',
    readonly actual: number | null,
  ) {
    const want = expected === 'absent' ? 'no entry (create_only)' : `version ${expected}`;
    const have = actual === null ? 'there is none' : `it is at version ${actual}`;
    super(`state: version conflict on ${describeRef(ref)}: expected ${want}, but ${have}`);
    this.name = 'StateConflictError';
  }
}

export function describeRef(ref: StateRef): string {
  return `${ref.scope}/${ref.namespace}/${ref.key}`;
}

export function isStateScope(v: unknown): v is StateScope {
  return typeof v === 'string' && (STATE_SCOPES as readonly string[]).includes(v);
}

function checkNamespace(namespace: string): void {
  if (namespace.trim() === '') throw new InvalidStateError('namespace is required');
  if (/[/\\\0]/.test(namespace) || namespace === '.' || namespace === '..')
    throw new InvalidStateError(`invalid namespace ${JSON.stringify(namespace)}`);
}

function checkKey(what: string, key: string): void {
  if (key.trim() === '') throw new InvalidStateError(`${what} is required`);
  if (key.startsWith('/') || key.endsWith('/') || /[\\\0]/.test(key))
    throw new InvalidStateError(`invalid ${what} ${JSON.stringify(key)}`);
  for (const part of key.split('/')) {
    if (part === '' || part === '.' || part === '..')
      throw new InvalidStateError(`invalid ${what} ${JSON.stringify(key)}`);
  }
}

/** Throws InvalidStateError for a reference Dagu refuses (a key is a `/`-separated path without `.`/`..`). */
export function validateStateRef(ref: StateRef): void {
  if (!isStateScope(ref.scope)) throw new InvalidStateError(`unsupported scope ${JSON.stringify(ref.scope)}`);
  checkNamespace(ref.namespace);
  checkKey('key', ref.key);
}

export function validateStateList(opts: StateListOptions): void {
  if (!isStateScope(opts.scope))
    throw new InvalidStateError(`unsupported scope ${JSON.stringify(opts.scope)}`);
  checkNamespace(opts.namespace);
  if (!Number.isInteger(opts.limit) || opts.limit < 0)
    throw new InvalidStateError('limit must be greater than or equal to zero');
  if (opts.limit > MAX_STATE_LIST_LIMIT) throw new InvalidStateError(`limit exceeds ${MAX_STATE_LIST_LIMIT}`);
  const prefix = opts.keyPrefix;
  if (prefix === '') return;
  if (prefix.startsWith('/') || /[\\\0]/.test(prefix))
    throw new InvalidStateError(`invalid key prefix ${JSON.stringify(prefix)}`);
  const trimmed = prefix.replace(/\/$/, '');
  if (trimmed !== '') checkKey('key prefix', trimmed);
}

/** A JSON string as Go's json.Marshal writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. */
function goString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Compact JSON with object keys sorted and strings escaped, as Go's json.Marshal writes a decoded value. */
function canonical(value: unknown): string {
  if (typeof value === 'string') return goString(value);
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    if (text === undefined) throw new InvalidStateError('value is not JSON');
    return text;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).sort(compareBytes);
  const obj = value as Record<string, unknown>;
  return `{${keys.map((k) => `${goString(k)}:${canonical(obj[k])}`).join(',')}}`;
}

/** The stored form of a value: compact, keys sorted; throws InvalidStateError when it is too large. */
export function encodeStateValue(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new InvalidStateError('value is not a finite number');
  const text = canonical(value === undefined ? null : value);
  const size = Buffer.byteLength(text);
  if (size > MAX_STATE_VALUE_BYTES)
    throw new InvalidStateError(`value too large: ${size} bytes exceeds ${MAX_STATE_VALUE_BYTES}`);
  return text;
}

/** Normalizes JSON text (one value) to its stored form. */
export function normalizeStateValue(text: string): string {
  if (Buffer.byteLength(text) > MAX_STATE_VALUE_BYTES)
    throw new InvalidStateError(
      `value too large: ${Buffer.byteLength(text)} bytes exceeds ${MAX_STATE_VALUE_BYTES}`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new InvalidStateError(`invalid value: ${(e as Error).message}`);
  }
  return encodeStateValue(parsed);
}

export function hashStateValue(value: string): string {
  // Loaded on use: every run opens the state store with the others, and a run without state steps (nearly
  // every run) should not load node:crypto (tests/integration/bundle.test.ts).
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(value).digest('hex');
}

/** Orders texts by their UTF-8 bytes (the order every backend lists keys in). */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The entry a write makes from the one before it (null: none), after the expectation held. */
export function nextStateEntry(
  ref: StateRef,
  value: string,
  previous: StateEntry | null,
  opts: StatePutOptions,
  now: string,
): StateEntry {
  checkExpectation(ref, previous, opts);
  return {
    scope: ref.scope,
    namespace: ref.namespace,
    key: ref.key,
    value,
    version: previous ? previous.version + 1 : 1,
    hash: hashStateValue(value),
    created_at: previous ? previous.created_at : now,
    updated_at: now,
    updated_by: opts.updatedBy ? { ...opts.updatedBy } : null,
  };
}

/** Throws StateConflictError when `current` does not meet the write's expectation. */
export function checkExpectation(ref: StateRef, current: StateEntry | null, opts: StatePutOptions): void {
  if (opts.createOnly && current) throw new StateConflictError(ref, 'absent', current.version);
  const expected = opts.expectedVersion;
  if (expected === undefined) return;
  if ((current?.version ?? 0) !== expected)
    throw new StateConflictError(ref, expected, current?.version ?? null);
}

/** Checks a put's arguments; returns the value normalized. */
export function preparePut(ref: StateRef, value: string, opts: StatePutOptions): string {
  validateStateRef(ref);
  const v = opts.expectedVersion;
  // A negative version is never stored, so it conflicts at the write, as in Dagu.
  if (v !== undefined && !Number.isSafeInteger(v))
    throw new InvalidStateError(`expected_version must be a whole number, got ${v}`);
  return normalizeStateValue(value);
}
