// Reads Dagu 2.x's structured step outputs: the object form of `output:` (each key a literal, or a source
// `{from: stdout|stderr|file, path, decode, select}`, or `{value: ...}`) and `stdout: {outputs: ...}`, with
// the rules Dagu applies when it loads a step (internal/spec/step.go in upstream Dagu).

import { isMap, isScalar } from 'yaml';
import type { StdoutOutputsSpec, StructuredOutputEntry } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { cleanArtifactPath } from './artifactPath';

const SOURCE_KEYS = ['value', 'from', 'path', 'decode', 'select'] as const;
const DECODES = ['text', 'json', 'yaml'] as const;
type Decode = (typeof DECODES)[number];

/**
 * `output:` as a map. Returns the entries in file order, an empty list for `output: {}` (nothing published,
 * as in Dagu), or undefined after reporting an error.
 */
export function readStructuredOutput(
  r: DagReader,
  entry: Entry,
): Array<[string, StructuredOutputEntry]> | undefined {
  const map = r.map(entry, null, 'output');
  if (!map) return undefined;
  const out: Array<[string, StructuredOutputEntry]> = [];
  let bad = false;
  for (const [key, e] of map) {
    const parsed = readOutputEntry(r, e);
    if (parsed === undefined) bad = true;
    else out.push([key, parsed]);
  }
  return bad ? undefined : out;
}

/**
 * One entry of an object output. A scalar, a list, or a map with none of value/from/path/decode/select is a
 * literal; a map with any of them is a source entry (or `{value: ...}`), checked as Dagu checks it.
 */
function readOutputEntry(r: DagReader, entry: Entry): StructuredOutputEntry | undefined {
  const node = entry.value;
  if (!isMap(node)) return { kind: 'value', value: r.toJS(node) };
  const keys = node.items.map((p) => String((p.key as { value?: unknown } | null)?.value ?? ''));
  if (!keys.some((k) => (SOURCE_KEYS as readonly string[]).includes(k))) {
    return { kind: 'value', value: r.toJS(node) };
  }
  const map = r.map(entry, SOURCE_KEYS, 'an output entry');
  if (!map) return undefined;
  return readSourceEntry(r, entry, map);
}

/** A map with value/from/path/decode/select (its keys already checked). */
function readSourceEntry(
  r: DagReader,
  entry: Entry,
  map: Map<string, Entry>,
): StructuredOutputEntry | undefined {
  const valueEntry = map.get('value');
  const from = textField(r, map.get('from'));
  const path = textField(r, map.get('path'));
  const decode = textField(r, map.get('decode'));
  const select = textField(r, map.get('select'));
  if ([from, path, decode, select].includes(null)) return undefined;
  if (valueEntry) {
    if (from) return r.errorAt(map.get('from')!, 'value and from cannot be used together');
    if (path || decode || select) {
      const k = path ? 'path' : decode ? 'decode' : 'select';
      return r.errorAt(map.get(k)!, 'path, decode and select go with from, not with value');
    }
    return { kind: 'value', value: r.toJS(valueEntry.value) };
  }
  if (!from) {
    return r.errorAt(map.get('from') ?? entry, 'an output entry needs a literal value or from');
  }
  if (from !== 'stdout' && from !== 'stderr' && from !== 'file') {
    return r.errorAt(map.get('from')!, `from must be stdout, stderr or file, got ${JSON.stringify(from)}`);
  }
  if (from === 'file' && !path) {
    return r.errorAt(map.get('path') ?? map.get('from')!, 'from: file needs a path');
  }
  if (from !== 'file' && path) return r.errorAt(map.get('path')!, 'path goes only with from: file');
  const checked = checkDecode(r, map, decode ?? '', select ?? '', false);
  if (checked === undefined) return undefined;
  return { kind: 'source', from, path: from === 'file' ? path! : null, ...checked };
}

/** `stdout:` as a map: `outputs` (published as the step's outputs) and `artifact` (a run artifact path). */
export function readStdoutObject(
  r: DagReader,
  entry: Entry,
): { outputs?: StdoutOutputsSpec; artifact?: string } {
  const map = r.map(entry, ['outputs', 'artifact'], 'stdout');
  if (!map) return {};
  if (map.size === 0) {
    if (isMap(entry.value) && entry.value.items.length === 0) {
      r.errorAt(entry, 'a stdout map needs outputs or artifact (or give a file path)');
    }
    return {};
  }
  const outputsEntry = map.get('outputs');
  const outputs = outputsEntry ? readStdoutOutputs(r, outputsEntry) : undefined;
  const artifact = readArtifactRedirect(r, map.get('artifact'));
  return { ...(outputs ? { outputs } : {}), ...(artifact !== undefined ? { artifact } : {}) };
}

/**
 * `stdout.artifact` / `stderr.artifact`: a path inside the run's artifacts directory, cleaned as Dagu cleans
 * it when the file loads (relative, no `..` segment, naming a file).
 */
export function readArtifactRedirect(r: DagReader, entry: Entry | undefined): string | undefined {
  if (!entry) return undefined;
  if (!isScalar(entry.value) || typeof entry.value.value !== 'string')
    return r.errorAt(entry, `must be a string, got ${describe(entry.value)}`);
  const text = r.string(entry);
  if (text === undefined) return undefined;
  const cleaned = cleanArtifactPath(text);
  if (!cleaned.ok) return r.errorAt(entry, cleaned.error);
  return cleaned.path;
}

/** `stdout.outputs`: a field name, or `{field, decode, select}`, or `{fields: {...}}`. */
function readStdoutOutputs(r: DagReader, entry: Entry): StdoutOutputsSpec | undefined {
  const node = entry.value;
  if (isNull(node)) return r.errorAt(entry, 'must be a field name or a map, got nothing');
  if (!isMap(node)) {
    const text = r.string(entry, 'a field name or a map');
    if (text === undefined) return undefined;
    if (text.trim() === '') return r.errorAt(entry, 'the field name must not be empty');
    return { field: text.trim(), decode: null, select: null, fields: null };
  }
  if (node.items.length === 0) return r.errorAt(entry, 'must not be an empty map');
  const map = r.map(entry, ['field', 'decode', 'select', 'fields'], 'stdout.outputs');
  if (!map) return undefined;
  const fieldEntry = map.get('field');
  const field = textField(r, fieldEntry);
  const decode = textField(r, map.get('decode'));
  const select = textField(r, map.get('select'));
  if ([field, decode, select].includes(null)) return undefined;
  if (fieldEntry && !field) return r.errorAt(fieldEntry, 'field must be a non-empty name');
  const fieldsEntry = map.get('fields');
  if (fieldsEntry) {
    const fields = readStdoutFields(r, fieldsEntry);
    if (fields === undefined) return undefined;
    if (field || decode || select) {
      const k = field ? 'field' : decode ? 'decode' : 'select';
      return r.errorAt(map.get(k)!, 'fields cannot be used together with field, decode or select');
    }
    return { field: null, decode: null, select: null, fields };
  }
  const checked = checkDecode(r, map, decode ?? '', select ?? '', true);
  if (checked === undefined) return undefined;
  return { field: field || null, ...checked, fields: null };
}

/** `stdout.outputs.fields`: each a literal, `{value}`, `{from: stdout, decode, select}` or `{decode, select}`. */
function readStdoutFields(r: DagReader, entry: Entry): Array<[string, StructuredOutputEntry]> | undefined {
  if (!isMap(entry.value)) {
    return r.errorAt(entry, `fields must be a map, got ${describe(entry.value)}`);
  }
  if (entry.value.items.length === 0) return r.errorAt(entry, 'fields must not be empty');
  const map = r.map(entry, null, 'fields');
  if (!map) return undefined;
  const out: Array<[string, StructuredOutputEntry]> = [];
  let bad = false;
  for (const [key, e] of map) {
    const name = key.trim();
    if (name === '') {
      r.errorAt(e, 'a field name must not be empty');
      bad = true;
      continue;
    }
    const parsed = readStdoutField(r, e);
    if (parsed === undefined) bad = true;
    else out.push([name, parsed]);
  }
  return bad ? undefined : out;
}

function readStdoutField(r: DagReader, entry: Entry): StructuredOutputEntry | undefined {
  const node = entry.value;
  if (!isMap(node)) return { kind: 'value', value: r.toJS(node) };
  const keys = node.items.map((p) => String((p.key as { value?: unknown } | null)?.value ?? ''));
  if (keys.includes('from') || keys.includes('value')) {
    const map = r.map(entry, SOURCE_KEYS, 'a stdout output field');
    if (!map) return undefined;
    const parsed = readSourceEntry(r, entry, map);
    if (parsed?.kind === 'source' && parsed.from !== 'stdout') {
      return r.errorAt(map.get('from')!, 'a stdout output field reads from stdout only');
    }
    return parsed;
  }
  // A map without from or value reads stdout.
  const map = r.map(entry, ['decode', 'select'], 'a stdout output field');
  if (!map) return undefined;
  const decode = textField(r, map.get('decode'));
  const select = textField(r, map.get('select'));
  if (decode === null || select === null) return undefined;
  const checked = checkDecode(r, map, decode ?? '', select ?? '', true);
  if (checked === undefined) return undefined;
  return { kind: 'source', from: 'stdout', path: null, ...checked };
}

/**
 * Checks decode and select: decode is text, json or yaml; select needs json or yaml. Under `stdout.outputs` a
 * select without decode means json; in an object output it is an error.
 */
function checkDecode(
  r: DagReader,
  map: Map<string, Entry>,
  decodeText: string,
  selectText: string,
  selectImpliesJson: boolean,
): { decode: Decode | null; select: string | null } | undefined {
  let decode = decodeText;
  if (decode === '' && selectText !== '' && selectImpliesJson) decode = 'json';
  if (decode !== '' && !(DECODES as readonly string[]).includes(decode)) {
    return r.errorAt(map.get('decode')!, `decode must be text, json or yaml, got ${JSON.stringify(decode)}`);
  }
  if (selectText !== '' && decode !== 'json' && decode !== 'yaml') {
    return r.errorAt(map.get('select')!, 'select needs decode: json or decode: yaml');
  }
  return { decode: decode === '' ? null : (decode as Decode), select: selectText === '' ? null : selectText };
}

/**
 * A string field of an output entry, trimmed: undefined when absent, null after reporting a value that is not
 * a string (Dagu refuses numbers and nothing here as well).
 */
function textField(r: DagReader, entry: Entry | undefined): string | undefined | null {
  if (!entry) return undefined;
  if (isNull(entry.value)) {
    r.errorAt(entry, `${entry.key} must be a string, got nothing`);
    return null;
  }
  const text = r.string(entry, 'a string');
  return text === undefined ? null : text.trim();
}
