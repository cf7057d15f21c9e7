// Dagu's data actions: `action: data.convert` turns structured data from one format into another, and
// `action: data.pick` selects one value with a jq path and prints it. The input is `with.data` (inline: text
// to parse, or a value written in the DAG) or the file `with.input`; formats are json, yaml, csv, tsv and
// text. The result goes to stdout (so `output:` captures it) as Dagu writes it: JSON indented by two spaces
// with keys sorted, YAML as yaml.v3 writes it, CSV/TSV as Go's encoding/csv, text as is.

import { readFile } from 'node:fs/promises';
import { DATA_FORMATS, DATA_WITH_KEYS } from '../../core/dag/readDataAction';
import { isAbsolute, join, normalize } from 'node:path';
import { CsvError, readRecords, writeRecords } from './dataCsv';
import {
  cellString,
  type DataMap,
  type DataValue,
  fromInline,
  fromJson,
  fromJqJson,
  GoJsonError,
  goMarshal,
  GoTime,
  isMap,
  newMap,
  rawText,
  stringifyText,
} from './dataValues';
import { emitYaml, parseYamlData, YamlError } from './dataYaml';
import { fsErrorText } from './fsErrorText';
import { runJq } from './jqRun';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

/** A failure of the step, with Dagu's message. */
class DataError extends Error {}

const configError = (message: string) => new DataError(`data: configuration error: ${message}`);

interface DataConfig {
  from: string;
  to: string;
  input: string;
  hasData: boolean;
  data: unknown;
  select: string;
  raw: boolean;
  hasHeader: boolean | null;
  headers: boolean | null;
  delimiter: string;
  columns: string[];
}

export async function runDataAction(op: string, ctx: ActionContext): Promise<ActionResult> {
  try {
    const cfg = readConfig(op, ctx.with);
    const parsed = parseValue(cfg, await readValue(cfg, ctx.workingDir));
    let text: string;
    if (op === 'convert') {
      text = writeValue(cfg, cfg.to, parsed);
    } else {
      const selected = await select(parsed, cfg.select, ctx.signal);
      text = cfg.raw
        ? `${rawText(selected)}\n`
        : writeValue(cfg, cfg.to.trim() === '' ? 'json' : cfg.to, selected);
    }
    await sinkWriter(ctx.stdout)(text);
    return ACTION_OK;
  } catch (e) {
    if (e instanceof DataError) return actionFailed(e.message);
    throw e;
  }
}

// --- configuration ---

/** `with` decoded as Dagu decodes it (weakly typed, unknown keys refused), then checked as Dagu checks it. */
function readConfig(op: string, w: Record<string, unknown>): DataConfig {
  const unknown = Object.keys(w).filter((k) => !(DATA_WITH_KEYS as readonly string[]).includes(k));
  if (unknown.length > 0) throw configError(`unknown key(s) in with: ${unknown.sort().join(', ')}`);
  const cfg: DataConfig = {
    from: text(w, 'from'),
    to: text(w, 'to'),
    input: text(w, 'input'),
    hasData: Object.hasOwn(w, 'data'),
    data: w.data,
    select: text(w, 'select'),
    raw: bool(w, 'raw') ?? false,
    hasHeader: bool(w, 'has_header'),
    headers: bool(w, 'headers'),
    delimiter: text(w, 'delimiter'),
    columns: list(w, 'columns'),
  };
  if (cfg.from.trim() === '') throw configError('from is required');
  if (!isFormat(cfg.from)) throw configError(`unsupported from format ${goQuote(cfg.from)}`);
  if (cfg.hasData && cfg.input.trim() !== '') throw configError('data and input are mutually exclusive');
  if (!cfg.hasData && cfg.input.trim() === '') throw configError('either data or input is required');
  if (cfg.delimiter !== '' && [...cfg.delimiter].length !== 1)
    throw configError('delimiter must be a single character');
  if (op === 'convert') {
    if (cfg.to.trim() === '') throw configError('to is required');
    if (!isFormat(cfg.to)) throw configError(`unsupported to format ${goQuote(cfg.to)}`);
  } else if (op === 'pick') {
    if (cfg.select.trim() === '') throw configError('select is required');
    if (cfg.raw && cfg.to.trim() !== '') throw configError('raw and to are mutually exclusive');
    if (cfg.to.trim() !== '' && !isFormat(cfg.to))
      throw configError(`unsupported to format ${goQuote(cfg.to)}`);
  } else {
    throw configError(`unsupported operation ${goQuote(op)}`);
  }
  return cfg;
}

const isFormat = (f: string) => (DATA_FORMATS as readonly string[]).includes(f.toLowerCase());

function goQuote(s: string): string {
  return JSON.stringify(s);
}

function text(w: Record<string, unknown>, key: string): string {
  const v = w[key];
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  throw configError(`with.${key} must be text`);
}

function bool(w: Record<string, unknown>, key: string): boolean | null {
  const v = w[key];
  if (v === undefined || v === null) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False', ''].includes(v)) return false;
  }
  throw configError(`with.${key} must be true or false, got ${JSON.stringify(v)}`);
}

function list(w: Record<string, unknown>, key: string): string[] {
  const v = w[key];
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? (v as unknown[]) : [v];
  return items.map((item) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    throw configError(`with.${key} must be a list of column names`);
  });
}

// --- input ---

async function readValue(cfg: DataConfig, workingDir: string): Promise<unknown> {
  if (cfg.hasData) return cfg.data;
  const path = normalize(isAbsolute(cfg.input) ? cfg.input : join(workingDir, cfg.input));
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new DataError(`data: reading input file ${goQuote(path)}: ${fsErrorText(e)}`);
  }
}

function parseValue(cfg: DataConfig, value: unknown): DataValue {
  const format = cfg.from.toLowerCase();
  switch (format) {
    case 'json':
      if (typeof value !== 'string') return fromInline(value);
      try {
        return fromJson(JSON.parse(value));
      } catch (e) {
        throw new DataError(`data: failed to decode JSON: ${(e as Error).message}`);
      }
    case 'yaml':
      if (typeof value !== 'string') return fromInline(value);
      try {
        return parseYamlData(value);
      } catch (e) {
        if (e instanceof YamlError) throw new DataError(`data: failed to decode YAML: ${e.message}`);
        throw e;
      }
    case 'csv':
    case 'tsv':
      if (typeof value !== 'string')
        throw new DataError(`data: ${format} input must be a string or input file`);
      return parseDelimited(value, cfg);
    default:
      return stringifyText(fromInline(value));
  }
}

function delimiter(cfg: DataConfig, format: string): string {
  if (cfg.delimiter !== '') return cfg.delimiter;
  return format.toLowerCase() === 'tsv' ? '\t' : ',';
}

function parseDelimited(raw: string, cfg: DataConfig): DataValue {
  let records: string[][];
  try {
    records = readRecords(raw, delimiter(cfg, cfg.from));
  } catch (e) {
    if (e instanceof CsvError) throw new DataError(`data: failed to decode ${cfg.from}: ${e.message}`);
    throw e;
  }
  if (records.length === 0) return [];
  let columns: string[];
  let rows: string[][];
  if (cfg.hasHeader ?? true) {
    columns = records[0];
    rows = records.slice(1);
  } else if (cfg.columns.length > 0) {
    columns = cfg.columns;
    rows = records;
  } else {
    return records;
  }
  return rows.map((record) => {
    const row = newMap();
    columns.forEach((column, i) => {
      row[column] = record[i] ?? '';
    });
    return row;
  });
}

// --- output ---

function writeValue(cfg: DataConfig, to: string, value: DataValue): string {
  const format = to.toLowerCase();
  switch (format) {
    case 'json':
      try {
        return `${goMarshal(value, '  ')}\n`;
      } catch (e) {
        if (e instanceof GoJsonError) throw new DataError(`data: failed to encode JSON: ${e.message}`);
        throw e;
      }
    case 'yaml':
      return emitYaml(value);
    case 'csv':
    case 'tsv':
      return writeDelimited(cfg, format, value);
    default:
      return stringifyText(value);
  }
}

function writeDelimited(cfg: DataConfig, to: string, value: DataValue): string {
  const { rows, columns } = tabularRows(value, cfg.columns);
  const records = cfg.headers !== false && columns.length > 0 ? [columns, ...rows] : rows;
  try {
    return writeRecords(records, cfg.delimiter !== '' ? cfg.delimiter : to === 'tsv' ? '\t' : ',');
  } catch (e) {
    if (e instanceof CsvError) throw new DataError(e.message);
    throw e;
  }
}

function tabularRows(value: DataValue, preferred: string[]): { rows: string[][]; columns: string[] } {
  if (!Array.isArray(value)) throw new DataError('data: csv output requires an array input');
  if (value.length === 0) return { rows: [], columns: preferred };
  if (isMap(value[0])) {
    const columns = preferred.length > 0 ? preferred : collectColumns(value);
    const rows = value.map((item) => {
      if (!isMap(item)) throw new DataError('data: cannot mix object and array rows in delimited output');
      return columns.map((column) => cellString(Object.hasOwn(item, column) ? item[column] : null));
    });
    return { rows, columns };
  }
  const rows = value.map((item) => {
    if (!Array.isArray(item)) throw new DataError('data: delimited output rows must be objects or arrays');
    return item.map(cellString);
  });
  return { rows, columns: preferred };
}

/** Every key of the object rows, in Go's byte order. */
function collectColumns(items: DataValue[]): string[] {
  const seen = new Set<string>();
  for (const item of items) if (isMap(item)) for (const key of Object.keys(item)) seen.add(key);
  return [...seen].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

// --- select ---

type PathPart = string | number;

/**
 * The first value `path` gives for `value`. A plain path (`.a.b[0]`, `."k"`, `.["k"]`, `.[-1]`) is followed
 * here, keeping the values' Go types; any other jq expression runs in jq. No value, an error, or an expression
 * that does not compile fails the step, as in Dagu.
 */
async function select(value: DataValue, path: string, signal: AbortSignal): Promise<DataValue> {
  const fail = () => new DataError(`data pick: failed to resolve select path ${goQuote(path)}`);
  const parts = plainPath(path);
  if (parts !== null) {
    let current: DataValue = value;
    for (const part of parts) {
      if (current === null) continue;
      if (typeof part === 'string') {
        if (!isMap(current)) throw fail();
        current = Object.hasOwn(current, part) ? (current as DataMap)[part] : null;
      } else {
        if (!Array.isArray(current)) throw fail();
        const i = part < 0 ? current.length + part : part;
        current = i >= 0 && i < current.length ? current[i] : null;
      }
    }
    return current;
  }
  let outcome;
  try {
    outcome = await runJq(path, goMarshal(toJqInput(value)), signal);
  } catch (e) {
    throw new DataError(`data pick: ${(e as Error).message}`);
  }
  const first = outcome.stdout.split('\n')[0];
  if (first === undefined || first === '' || outcome.exitCode === 3) throw fail();
  return fromJqJson(JSON.parse(first));
}

/** Timestamps enter jq as their RFC 3339 text; NaN and infinities as null. */
function toJqInput(value: DataValue): DataValue {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (value instanceof GoTime) return value.rfc3339;
  if (Array.isArray(value)) return value.map(toJqInput);
  if (isMap(value)) {
    const out = newMap();
    for (const [k, v] of Object.entries(value)) out[k] = toJqInput(v);
    return out;
  }
  return value;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const QUOTED = /^"((?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"/;
const INDEX = /^\[\s*(-?\d+)\s*\]/;
const KEY = /^\[\s*"((?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)"\s*\]/;

/** The keys and indexes of a plain jq path, or null when `path` is any other expression. */
export function plainPath(path: string): PathPart[] | null {
  let rest = path.trim();
  if (!rest.startsWith('.')) return null;
  const parts: PathPart[] = [];
  let first = true;
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if (rest.startsWith('.')) {
      const after = rest.slice(1);
      if ((m = NAME.exec(after))) {
        parts.push(m[0]);
        rest = after.slice(m[0].length);
      } else if ((m = QUOTED.exec(after))) {
        parts.push(JSON.parse(`"${m[1]}"`) as string);
        rest = after.slice(m[0].length);
      } else if (INDEX.test(after) || KEY.test(after)) {
        rest = after; // `.[0]`, `.["k"]`: the bracket is read next
        continue;
      } else if (after === '' && first) {
        rest = '';
      } else {
        return null;
      }
    } else if ((m = INDEX.exec(rest))) {
      const n = Number(m[1]);
      if (!Number.isSafeInteger(n)) return null;
      parts.push(n);
      rest = rest.slice(m[0].length);
    } else if ((m = KEY.exec(rest))) {
      parts.push(JSON.parse(`"${m[1]}"`) as string);
      rest = rest.slice(m[0].length);
    } else {
      return null;
    }
    first = false;
  }
  return parts;
}
