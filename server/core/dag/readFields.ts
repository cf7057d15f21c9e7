// Readers for the value shapes that the DAG level and the step level share: env, worker selectors, params
// and lists of names.

import { isMap, isScalar, isSeq } from 'yaml';
import { parseParamString } from '../params';
import type { ParamRichSpec, ParamSchemaSpec, ParamSpec } from '../types';
import { readSchemaParams, schemaForm } from './readParamSchema';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { formatGoFloat } from './values';

/** Environment variable names, as a shell accepts them. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A scalar of a map Dagu decodes untyped (env values, map params) as text, the way it prints one (`%v`): a
 * YAML float (`1.0`, `1e8`, `0.00001`) is a float64 written as Go writes it (`1`, `1e+08`, `1e-05`); an
 * integer, a boolean and a string are written as they are.
 */
function goScalarText(r: DagReader, item: Entry): string | undefined {
  const node = item.value;
  if (isScalar(node) && typeof node.value === 'number' && Number.isFinite(node.value)) {
    const float = node.format === 'EXP' || (node.minFractionDigits ?? 0) > 0 || !Number.isInteger(node.value);
    if (float) return formatGoFloat(node.value);
  }
  return r.scalarText(item, 'a string, number or boolean');
}

/** `env`: a map, or a list of `KEY=value` strings and one-key maps. Later entries win. */
export function readEnv(r: DagReader, entry: Entry | undefined): Record<string, string> {
  const pairs: Array<[string, string]> = [];
  if (!entry || isNull(entry.value)) return {};
  if (isMap(entry.value)) {
    addEnvMap(r, entry, pairs);
  } else if (isSeq(entry.value)) {
    for (const item of r.list(entry, 'env') ?? []) {
      if (isMap(item.value)) {
        addEnvMap(r, item, pairs);
        continue;
      }
      const text = r.string(item, 'KEY=value or a map');
      if (text === undefined) {
        if (isNull(item.value)) r.errorAt(item, 'must be KEY=value or a map, got nothing');
        continue;
      }
      const eq = text.indexOf('=');
      const name = eq < 0 ? text : text.slice(0, eq);
      if (eq < 0) r.errorAt(item, `must be KEY=value, got ${JSON.stringify(text)}`);
      else if (!ENV_NAME_PATTERN.test(name)) r.errorAt(item, envNameMessage(name));
      else pairs.push([name, text.slice(eq + 1)]);
    }
  } else {
    r.errorAt(entry, `must be a map or a list of KEY=value, got ${describe(entry.value)}`);
  }
  // fromEntries defines own properties: a variable named __proto__ stays a variable.
  return Object.fromEntries(pairs);
}

/**
 * The variables of an env map, added to `pairs`. A module function, not a closure in readEnv: the bundle names
 * every named closure when it is made, which costs every step with env a property definition.
 */
function addEnvMap(r: DagReader, e: Entry, pairs: Array<[string, string]>): void {
  const map = r.map(e, null, 'env');
  for (const item of map?.values() ?? []) {
    if (!ENV_NAME_PATTERN.test(item.key)) {
      r.error(item.keyNode, item.field, envNameMessage(item.key));
      continue;
    }
    const value = goScalarText(r, item);
    if (value !== undefined || isNull(item.value)) pairs.push([item.key, value ?? '']);
  }
}

/** Whether `worker_selector` is Dagu's string `local`: the DAG always runs on the host that starts it. */
export function isLocalSelector(entry: Entry | undefined): boolean {
  return entry !== undefined && isScalar(entry.value) && entry.value.value === 'local';
}

/** `worker_selector`: labels a worker must all have (numbers and booleans read as strings), or `local`. */
export function readWorkerSelector(r: DagReader, entry: Entry | undefined): Record<string, string> | null {
  if (!entry || isNull(entry.value)) return null;
  // Dagu's `local`: never dispatched (DagSpec.force_local, see isLocalSelector); no labels to match.
  if (isLocalSelector(entry)) return null;
  if (isScalar(entry.value) && typeof entry.value.value === 'string') {
    r.errorAt(
      entry,
      `must be a map of labels or the string "local", got ${JSON.stringify(entry.value.value)}`,
    );
    return null;
  }
  const map = r.map(entry, null, 'worker_selector');
  if (!map) return null;
  const labels: Array<[string, string]> = [];
  for (const item of map.values()) {
    if (item.key.trim() === '') {
      r.error(item.keyNode, item.field, 'a label name must not be empty');
      continue;
    }
    const value = r.scalarText(item, 'a string, number or boolean');
    if (value === undefined && isNull(item.value)) r.errorAt(item, 'needs a value');
    if (value !== undefined) labels.push([item.key, value]);
  }
  return Object.fromEntries(labels);
}

/** Named params in Dagu must start with a letter (`_x` and `my-param` are load errors there). */
const DAG_PARAM_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const RICH_KEYS = [
  'name',
  'default',
  'eval',
  'description',
  'type',
  'required',
  'enum',
  'minimum',
  'maximum',
  'min_length',
  'max_length',
  'pattern',
] as const;
const PARAM_TYPES = ['string', 'integer', 'number', 'boolean'] as const;

/**
 * `params`: a string of shell-like words, a map (sorted by name, as Dagu reads it), or a list of `KEY=value`
 * words, bare values, `{KEY: value}` maps and rich `{name, default, eval, type, ...}` definitions. With
 * `onSchema` (the DAG level), Dagu's schema-backed forms too (readParamSchema.ts): the schema goes to `onSchema`
 * and the explicit values are returned as named params.
 */
export function readParams(
  r: DagReader,
  entry: Entry | undefined,
  onSchema?: (spec: ParamSchemaSpec) => void,
): ParamSpec[] {
  if (!entry || isNull(entry.value)) return [];
  const out: ParamSpec[] = [];
  if (isScalar(entry.value)) {
    addWords(r, entry, out);
  } else if (isMap(entry.value)) {
    const form = schemaForm(r, entry.value);
    if (form !== null) {
      if (!onSchema) {
        return (
          r.unsupported(
            entry.value,
            entry.field,
            "Dagu's schema-backed params are only read at the DAG level",
          ) ?? []
        );
      }
      return readSchemaParams(r, entry, form, onSchema, readParams);
    }
    addMap(r, entry, out);
  } else if (isSeq(entry.value)) {
    for (const item of r.list(entry, 'params') ?? []) {
      if (isMap(item.value)) {
        const hasName = item.value.items.some((p) => isScalar(p.key) && p.key.value === 'name');
        if (hasName) {
          const rich = readRichParam(r, item);
          if (rich) out.push(rich);
        } else addMap(r, item, out);
      } else if (isScalar(item.value) && typeof item.value.value === 'string') {
        addWords(r, item, out);
      } else {
        const word = r.scalarText(item, 'KEY=value, a value or a map');
        if (word !== undefined) out.push({ name: null, value: word });
        else if (isNull(item.value)) r.errorAt(item, 'must be KEY=value, a value or a map, got nothing');
      }
    }
  } else {
    r.errorAt(entry, `must be a string, a list or a map, got ${describe(entry.value)}`);
  }
  const seen = new Set<string>();
  for (const p of out) {
    if (p.name === null) continue;
    if (seen.has(p.name)) r.errorAt(entry, `parameter ${JSON.stringify(p.name)} is defined more than once`);
    seen.add(p.name);
  }
  return out;
}

function addWords(r: DagReader, entry: Entry, out: ParamSpec[]): void {
  const text = r.scalarText(entry, 'a string, a list or a map');
  if (text === undefined) return;
  // Dagu's tokens, not shell words: `name=` then "a Go-quoted string", `a backtick text` (kept with its
  // backticks, never run) or a run of non-blanks; single quotes are ordinary characters.
  for (const p of parseParamString(text)) {
    if (p.name !== null && !DAG_PARAM_NAME.test(p.name)) r.errorAt(entry, paramNameMessage(p.name));
    else out.push(p);
  }
}

function addMap(r: DagReader, e: Entry, out: ParamSpec[]): void {
  const items = [...(r.map(e, null, 'params')?.values() ?? [])].sort((a, b) =>
    a.key < b.key ? -1 : a.key > b.key ? 1 : 0,
  );
  for (const item of items) {
    if (!DAG_PARAM_NAME.test(item.key)) {
      r.error(item.keyNode, item.field, paramNameMessage(item.key));
      continue;
    }
    if (isMap(item.value)) {
      r.errorAt(
        item,
        `a parameter value must be text; for a definition write - name: ${item.key} with default, type, ...`,
      );
      continue;
    }
    const value = goScalarText(r, item);
    if (value !== undefined || isNull(item.value)) out.push({ name: item.key, value: value ?? '' });
  }
}

/** `- name: X` with at least one more key: a definition with checks and an optional `eval`. */
function readRichParam(r: DagReader, item: Entry): ParamSpec | undefined {
  const map = r.map(item, RICH_KEYS, 'a parameter definition');
  if (!map) return undefined;
  const name = r.string(map.get('name'), 'a parameter name');
  if (name === undefined) return undefined;
  if (!DAG_PARAM_NAME.test(name)) return r.errorAt(map.get('name')!, paramNameMessage(name));
  if (map.size === 1) {
    return r.errorAt(
      item,
      `parameter ${JSON.stringify(name)} must define at least one field in addition to name`,
    );
  }
  const typeText = r.string(map.get('type'), 'string, integer, number or boolean');
  let type: ParamRichSpec['type'] = null;
  if (typeText !== undefined) {
    if ((PARAM_TYPES as readonly string[]).includes(typeText)) type = typeText as ParamRichSpec['type'];
    else
      r.errorAt(
        map.get('type')!,
        `must be string, integer, number or boolean, got ${JSON.stringify(typeText)}`,
      );
  }
  const defaultValue = r.scalarText(map.get('default'), 'a string, number or boolean');
  let values: string[] | null = null;
  const enumEntry = map.get('enum');
  if (enumEntry && !isNull(enumEntry.value)) {
    values = [];
    for (const v of r.list(enumEntry, 'enum') ?? []) {
      const t = r.scalarText(v, 'a string, number or boolean');
      if (t !== undefined) values.push(t);
    }
    if (defaultValue !== undefined && values.length > 0 && !values.includes(defaultValue)) {
      r.errorAt(map.get('default')!, `default ${JSON.stringify(defaultValue)} is not one of enum`);
    }
  }
  const pattern = r.string(map.get('pattern'));
  if (pattern !== undefined) {
    try {
      new RegExp(pattern);
    } catch (err) {
      r.errorAt(map.get('pattern')!, `invalid regular expression: ${(err as Error).message}`);
    }
  }
  const num = (key: string) => r.number(map.get(key), -Number.MAX_VALUE) ?? null;
  const len = (key: string) => r.integer(map.get(key), 0) ?? null;
  return {
    name,
    value: defaultValue ?? '',
    rich: {
      has_default: defaultValue !== undefined,
      eval: r.string(map.get('eval')) ?? null,
      description: r.string(map.get('description')) ?? '',
      type,
      required: r.boolean(map.get('required')) ?? false,
      enum: values,
      minimum: num('minimum'),
      maximum: num('maximum'),
      min_length: len('min_length'),
      max_length: len('max_length'),
      pattern: pattern ?? null,
      ...(r.unboundedEvals.has(map.get('eval')?.value as never) ? { unbounded: true } : {}),
    },
  };
}

function paramNameMessage(name: string): string {
  return `${JSON.stringify(name)} is not a valid parameter name (start with a letter; then letters, digits and _)`;
}

/** Names or one name: `depends: a` or `depends: [a, b]`, with each name's entry for error positions. */
export function readNameList(r: DagReader, entry: Entry | undefined, what: string): Entry[] {
  if (!entry || isNull(entry.value)) return [];
  const items = isSeq(entry.value) ? (r.list(entry, what) ?? []) : [entry];
  // Dagu reads a number or a boolean as its text: `depends: [42]` names the step "42".
  return items.filter((item) => {
    const text = r.scalarText(item, 'a step name');
    if (text === undefined && isNull(item.value)) r.errorAt(item, 'must be a step name, got nothing');
    return text !== undefined;
  });
}

/** The text of an entry that `readNameList` accepted, as written (numbers and booleans as their text). */
export function textOf(entry: Entry): string {
  return String((entry.value as { value: unknown }).value);
}

function envNameMessage(name: string): string {
  return `${JSON.stringify(name)} is not a valid variable name (use letters, digits and _, not starting with a digit)`;
}
