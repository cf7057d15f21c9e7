// Dagu 2.x structured step outputs, evaluated after a step's attempt: an object-form `output:` (each key a
// literal, or the step's stdout/stderr or a file, as text or decoded JSON/YAML with a jq `select`) and
// `stdout: {outputs: ...}`. Pure: the captured streams, file reads, value resolution and non-path `select`
// expressions come in through `OutputSources`.

import { yamlLibrary } from './yamlLibrary';
import { selectJsonPath, stringifySortedJson } from './dag/values';
import type { StdoutOutputsSpec, StructuredOutputEntry } from './types';
import { goTrimSpace } from './goTrimSpace';

/** A result, or why there is none. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** What evaluating outputs reads, given by the runner. */
export interface OutputSources {
  /** The attempt's stdout, trimmed; not ok when it went over `max_output_size` (or was not captured: ''). */
  stdout: Outcome<string>;
  /** The attempt's stderr, trimmed, under the same rule. */
  stderr: Outcome<string>;
  /** Reads a file (path already resolved) of at most `maxBytes` bytes; a bigger one is an error. */
  readFile(path: string): Promise<Outcome<string>>;
  /** Value-resolves a literal string or a file path (refs and run-scope `$VAR`). */
  resolveText(text: string): string;
  /** Applies a jq expression that is not a plain path (`.a.b[0]` paths are walked here). */
  selectExpression(value: unknown, expression: string): Promise<Outcome<unknown>>;
  /** DAG `max_output_size`: the largest published JSON and the largest file read. */
  maxBytes: number;
}

/** What an object-form `output:` publishes: `${id.output}` (the JSON) and `${id.outputs.<key>}` (the values). */
export interface StructuredOutputResult {
  json: string;
  values: Record<string, unknown>;
}

/** Whether any entry reads the given stream (then the runner must capture it). */
export function readsStream(
  entries: ReadonlyArray<[string, StructuredOutputEntry]>,
  from: 'stdout' | 'stderr',
) {
  return entries.some(([, e]) => e.kind === 'source' && e.from === from);
}

/** Evaluates an object-form `output:`; its JSON must stay within `maxBytes`. */
export async function evaluateStructuredOutput(
  entries: ReadonlyArray<[string, StructuredOutputEntry]>,
  src: OutputSources,
): Promise<Outcome<StructuredOutputResult>> {
  const values: Record<string, unknown> = Object.create(null);
  for (const [key, entry] of entries) {
    const got = await evaluateEntry(key, entry, src);
    if (!got.ok) return got;
    values[key] = got.value;
  }
  const json = stringifySortedJson(values);
  if (utf8Bytes(json) > src.maxBytes) {
    return fail(`output exceeded maximum size limit of ${src.maxBytes} bytes`);
  }
  return { ok: true, value: { json, values: { ...values } } };
}

/** Evaluates `stdout.outputs` into the values it publishes; their JSON must stay within `maxBytes`. */
export async function evaluateStdoutOutputs(
  spec: StdoutOutputsSpec,
  src: OutputSources,
): Promise<Outcome<Record<string, unknown>>> {
  if (spec.fields !== null) {
    const values: Record<string, unknown> = Object.create(null);
    for (const [key, entry] of spec.fields) {
      const got = await evaluateEntry(key, entry, src);
      if (!got.ok) return got;
      values[key] = got.value;
    }
    return published(values, src.maxBytes);
  }
  if (!src.stdout.ok) return src.stdout;
  const raw = src.stdout.value;
  // No field: the decoded stdout is the outputs object itself (JSON unless told otherwise).
  const decode = spec.decode ?? (spec.field === null ? 'json' : 'text');
  if (decode === 'text') {
    if (spec.field === null) return fail('field is required when stdout outputs are text');
    return published({ [spec.field]: goTrimSpace(raw) }, src.maxBytes);
  }
  const decoded = await decodeAndSelect('stdout.outputs', raw, decode, spec.select, src);
  if (!decoded.ok) return decoded;
  if (spec.field !== null) return published({ [spec.field]: decoded.value }, src.maxBytes);
  const v = decoded.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return fail('decoded stdout outputs must be an object when field is omitted');
  }
  return published({ ...(v as Record<string, unknown>) }, src.maxBytes);
}

function published(values: Record<string, unknown>, maxBytes: number): Outcome<Record<string, unknown>> {
  if (utf8Bytes(stringifySortedJson(values)) > maxBytes) {
    return fail(`outputs exceeded maximum size limit of ${maxBytes} bytes`);
  }
  return { ok: true, value: values };
}

async function evaluateEntry(
  key: string,
  entry: StructuredOutputEntry,
  src: OutputSources,
): Promise<Outcome<unknown>> {
  if (entry.kind === 'value') return { ok: true, value: resolveLiteral(entry.value, src) };
  let raw: string;
  if (entry.from === 'file') {
    const path = src.resolveText(entry.path ?? '');
    const read = await src.readFile(path);
    if (!read.ok) return fail(`${key}: failed to read file ${JSON.stringify(path)}: ${read.error}`);
    raw = read.value;
  } else {
    const stream = entry.from === 'stdout' ? src.stdout : src.stderr;
    if (!stream.ok) return fail(`${key}: failed to capture ${entry.from}: ${stream.error}`);
    raw = stream.value;
  }
  if (entry.decode === null || entry.decode === 'text') return { ok: true, value: goTrimSpace(raw) };
  return decodeAndSelect(key, raw, entry.decode, entry.select, src);
}

/** Literal values: strings value-resolved, lists and maps walked, other scalars kept. */
function resolveLiteral(value: unknown, src: OutputSources): unknown {
  if (typeof value === 'string') return src.resolveText(value);
  if (Array.isArray(value)) return value.map((v) => resolveLiteral(v, src));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = resolveLiteral(v, src);
    return out;
  }
  return value ?? null;
}

async function decodeAndSelect(
  key: string,
  raw: string,
  decode: 'json' | 'yaml',
  select: string | null,
  src: OutputSources,
): Promise<Outcome<unknown>> {
  const decoded = decodeText(raw, decode);
  if (!decoded.ok) return fail(`${key}: ${decoded.error}`);
  if (select === null || select === '') return decoded;
  const selected = await selectValue(decoded.value, select, src);
  if (!selected.ok) {
    return fail(`${key}: failed to resolve select path ${JSON.stringify(select)}: ${selected.error}`);
  }
  return selected;
}

/** Decodes text as JSON (one value) or YAML (the first document; empty text is null). */
export function decodeText(raw: string, decode: 'json' | 'yaml'): Outcome<unknown> {
  if (decode === 'json') {
    try {
      return { ok: true, value: JSON.parse(raw) as unknown };
    } catch (e) {
      return fail(`failed to decode JSON: ${(e as Error).message}`);
    }
  }
  try {
    const docs = yamlLibrary().parseAllDocuments(raw);
    if (!Array.isArray(docs)) return { ok: true, value: null };
    const first = docs[0];
    if (!first) return { ok: true, value: null };
    if (first.errors.length > 0) return fail(`failed to decode YAML: ${first.errors[0].message}`);
    return { ok: true, value: (first.toJS({ maxAliasCount: 100 }) as unknown) ?? null };
  } catch (e) {
    return fail(`failed to decode YAML: ${(e as Error).message}`);
  }
}

/**
 * Applies a `select` expression (jq): `.` and plain paths (`.a.b[0]`, `."k"`) are walked here, where a missing
 * key gives null as in jq; any other expression goes to the runner's jq.
 */
export async function selectValue(
  value: unknown,
  expression: string,
  src: Pick<OutputSources, 'selectExpression'>,
): Promise<Outcome<unknown>> {
  const expr = expression.trim();
  if (expr === '.') return { ok: true, value };
  if (/^[.[][^|,()\s]*$/.test(expr)) {
    const got = selectJsonPath(value, expr);
    if (got !== undefined) return { ok: true, value: got.value };
    if (isPlainPath(expr)) return fail('the path does not apply to the decoded value');
  }
  return src.selectExpression(value, expr);
}

/** `.a.b[0]`-style paths that selectJsonPath parses (so a failure there is the value's fault, not the syntax). */
function isPlainPath(expr: string): boolean {
  return /^(\.[A-Za-z_][A-Za-z0-9_]*|\.?\[(-?\d+|"[^"]*")\]|\."[^"]*")+$/.test(expr);
}

function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
