// Dagu's human tasks (`action: human.task`): the rules of their form (a flat object schema of scalar
// properties, checked when the DAG loads) and of the input that completes one (`dagu human-task complete`):
// `--input key=value` words or one `--inputs-json` object, coerced and checked against the form, with the
// form's defaults applied, giving the canonical input whose declared properties become the step's outputs.
// Pure.

import { coerceParam, scalarTypeOf } from './paramSchema';
import type { HumanTaskForm } from './types';

type Json = Record<string, unknown>;
type ScalarType = 'string' | 'integer' | 'number' | 'boolean';

const FORM_KEYS = ['type', 'title', 'description', 'properties', 'required', 'additionalProperties'];
const PROPERTY_KEYS = [
  'type',
  'title',
  'description',
  'default',
  'enum',
  'oneOf',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'pattern',
];
/** Form property names, as Dagu's named params. */
export const HUMAN_TASK_PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A problem of a form: the path under `with.form` (empty for the form itself) and what is wrong. */
export interface FormProblem {
  path: string;
  message: string;
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/** A form as written (plain data) checked and normalized, or its problems. */
export function readHumanTaskForm(
  raw: unknown,
): { ok: true; form: HumanTaskForm } | { ok: false; problems: FormProblem[] } {
  const problems: FormProblem[] = [];
  const bad = (path: string, message: string) => problems.push({ path, message });
  if (!isObject(raw))
    return { ok: false, problems: [{ path: '', message: `must be a map, got ${kindOf(raw)}` }] };
  for (const key of Object.keys(raw)) {
    if (!FORM_KEYS.includes(key)) bad(key, `unknown form field (allowed: ${FORM_KEYS.join(', ')})`);
  }
  if (raw.type !== 'object') bad('type', `must be "object", got ${JSON.stringify(raw.type) ?? 'nothing'}`);
  const form: HumanTaskForm = { type: 'object', properties: {}, additionalProperties: false };
  for (const key of ['title', 'description'] as const) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== 'string') bad(key, `must be a string, got ${kindOf(raw[key])}`);
    else form[key] = raw[key];
  }
  if (raw.properties !== undefined) {
    if (!isObject(raw.properties)) bad('properties', `must be a map, got ${kindOf(raw.properties)}`);
    else {
      for (const [name, prop] of Object.entries(raw.properties)) {
        const path = `properties.${name}`;
        if (!HUMAN_TASK_PROPERTY_NAME.test(name)) {
          bad(
            path,
            `invalid property name ${JSON.stringify(name)} (must match ${HUMAN_TASK_PROPERTY_NAME.source})`,
          );
          continue;
        }
        const read = readProperty(prop, path, bad);
        if (read) form.properties[name] = read;
      }
    }
  }
  if (raw.required !== undefined) {
    if (!Array.isArray(raw.required)) bad('required', `must be a list, got ${kindOf(raw.required)}`);
    else {
      const seen = new Set<string>();
      for (const name of raw.required as unknown[]) {
        if (typeof name !== 'string') bad('required', `entries must be strings, got ${kindOf(name)}`);
        else if (seen.has(name)) bad('required', `duplicate entry ${JSON.stringify(name)}`);
        else if (!isObject(raw.properties) || !Object.hasOwn(raw.properties, name))
          bad('required', `${JSON.stringify(name)} is not a declared property`);
        seen.add(String(name));
      }
      form.required = [...seen];
    }
  }
  if (raw.additionalProperties !== undefined) {
    if (typeof raw.additionalProperties !== 'boolean')
      bad('additionalProperties', `must be a boolean, got ${kindOf(raw.additionalProperties)}`);
    else form.additionalProperties = raw.additionalProperties;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, form };
}

function readProperty(
  prop: unknown,
  path: string,
  bad: (path: string, message: string) => void,
): HumanTaskForm['properties'][string] | null {
  if (!isObject(prop)) {
    bad(path, `must be a map, got ${kindOf(prop)}`);
    return null;
  }
  const before = { count: 0 };
  const fail = (sub: string, message: string) => {
    before.count++;
    bad(sub ? `${path}.${sub}` : path, message);
  };
  for (const key of Object.keys(prop)) {
    if (!PROPERTY_KEYS.includes(key))
      fail(key, `unknown property field (allowed: ${PROPERTY_KEYS.join(', ')})`);
  }
  const type = scalarTypeOf(prop) as ScalarType | null;
  if (type === null || (prop.type !== undefined && typeof prop.type !== 'string')) {
    fail(
      'type',
      'must be one of string, integer, number, boolean (nested objects and lists are not supported)',
    );
    return null;
  }
  for (const key of ['title', 'description', 'pattern'] as const) {
    if (prop[key] !== undefined && typeof prop[key] !== 'string')
      fail(key, `must be a string, got ${kindOf(prop[key])}`);
  }
  if (typeof prop.pattern === 'string') {
    try {
      new RegExp(prop.pattern, 'u');
    } catch (err) {
      fail('pattern', `invalid regular expression: ${(err as Error).message}`);
    }
  }
  for (const key of ['minimum', 'maximum'] as const) {
    if (prop[key] === undefined) continue;
    if (type !== 'integer' && type !== 'number') fail(key, `applies only to integer and number properties`);
    else if (typeof prop[key] !== 'number') fail(key, `must be a number, got ${kindOf(prop[key])}`);
  }
  for (const key of ['minLength', 'maxLength'] as const) {
    if (prop[key] === undefined) continue;
    if (type !== 'string') fail(key, 'applies only to string properties');
    else if (!Number.isInteger(prop[key]) || (prop[key] as number) < 0)
      fail(key, `must be a whole number of at least 0, got ${JSON.stringify(prop[key])}`);
  }
  if (prop.enum !== undefined) {
    if (!Array.isArray(prop.enum) || prop.enum.length === 0) fail('enum', 'must be a non-empty list');
    else
      for (const v of prop.enum as unknown[])
        if (!ofType(v, type)) fail('enum', `value ${JSON.stringify(v)} is not of type ${type}`);
  }
  if (prop.oneOf !== undefined) {
    if (!Array.isArray(prop.oneOf) || prop.oneOf.length === 0) fail('oneOf', 'must be a non-empty list');
    else
      for (const choice of prop.oneOf as unknown[]) {
        if (!isObject(choice) || !Object.hasOwn(choice, 'const'))
          fail('oneOf', 'each choice must be a map with const (and optional title, description)');
        else if (Object.keys(choice).some((k) => !['const', 'title', 'description'].includes(k)))
          fail('oneOf', 'each choice takes only const, title and description');
        else if (!ofType(choice.const, type))
          fail('oneOf', `const ${JSON.stringify(choice.const)} is not of type ${type}`);
      }
  }
  if (before.count > 0) return null;
  const out = { ...prop, type } as HumanTaskForm['properties'][string];
  if (prop.default !== undefined) {
    const problem = checkValue(out, prop.default);
    if (problem) {
      fail('default', problem);
      return null;
    }
  }
  return out;
}

function ofType(value: unknown, type: ScalarType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
  }
}

/** Why a value does not satisfy a declared property (naming the failed keyword), or null. */
function checkValue(prop: HumanTaskForm['properties'][string], value: unknown): string | null {
  const type = prop.type;
  if (!ofType(value, type)) return `expected ${type}, got ${JSON.stringify(value)}`;
  if (Array.isArray(prop.enum) && !prop.enum.some((v) => v === value))
    return `enum: ${JSON.stringify(value)} is not one of ${JSON.stringify(prop.enum)}`;
  if (Array.isArray(prop.oneOf) && !prop.oneOf.some((c) => isObject(c) && c.const === value))
    return `oneOf: ${JSON.stringify(value)} matches no choice`;
  if (typeof value === 'number') {
    if (typeof prop.minimum === 'number' && value < prop.minimum)
      return `minimum: ${value} is less than ${prop.minimum}`;
    if (typeof prop.maximum === 'number' && value > prop.maximum)
      return `maximum: ${value} is greater than ${prop.maximum}`;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof prop.minLength === 'number' && length < prop.minLength)
      return `minLength: ${JSON.stringify(value)} is shorter than ${prop.minLength}`;
    if (typeof prop.maxLength === 'number' && length > prop.maxLength)
      return `maxLength: ${JSON.stringify(value)} is longer than ${prop.maxLength}`;
    if (typeof prop.pattern === 'string' && !new RegExp(prop.pattern, 'u').test(value))
      return `pattern: ${JSON.stringify(value)} does not match ${JSON.stringify(prop.pattern)}`;
  }
  return null;
}

/** Input given to a completion: `--input` words, or the text of `--inputs-json`. */
export type HumanTaskInput = { kind: 'words'; words: readonly string[] } | { kind: 'json'; text: string };

export type CanonicalResult = { ok: true; input: Json } | { ok: false; error: string };

/**
 * The canonical input of a completion of step `step` with `form` (null: acknowledgement only): the supplied
 * properties coerced (`--input`) or as typed (`--inputs-json`), the form's defaults for the omitted ones, and
 * the accepted undeclared ones; or the error that refuses it.
 */
export function canonicalHumanTaskInput(
  step: string,
  form: HumanTaskForm | null,
  input: HumanTaskInput,
): CanonicalResult {
  const err = (error: string) => ({ ok: false as const, error });
  let supplied: Json;
  let fromWords = false;
  if (input.kind === 'words') {
    fromWords = true;
    supplied = Object.create(null) as Json;
    for (const word of input.words) {
      const eq = word.indexOf('=');
      if (eq < 0) return err(`--input ${JSON.stringify(word)} must be key=value`);
      const name = word.slice(0, eq).trim();
      if (name === '') return err(`--input ${JSON.stringify(word)} must be key=value with a non-empty key`);
      if (Object.hasOwn(supplied, name)) return err(`--input: duplicate property ${JSON.stringify(name)}`);
      supplied[name] = word.slice(eq + 1);
    }
  } else {
    const parsed = parseJsonObject(input.text);
    if (!parsed.ok) return err(parsed.error);
    supplied = parsed.value;
  }
  if (form === null) {
    if (Object.keys(supplied).length > 0) return err(`human task ${step} does not accept input`);
    return { ok: true, input: {} };
  }
  const out = Object.create(null) as Json;
  for (const [name, value] of Object.entries(supplied)) {
    const prop = Object.hasOwn(form.properties, name) ? form.properties[name] : undefined;
    if (!prop) {
      if (!form.additionalProperties)
        return err(`human task ${step}: property ${JSON.stringify(name)} is not declared by the form`);
      out[name] = value;
      continue;
    }
    let typed = value;
    if (fromWords) {
      const c = coerceParam(name, value as string, prop);
      if (!c.ok)
        return err(
          `human task ${step}: property ${JSON.stringify(name)}: expected ${prop.type}, got ${JSON.stringify(value)}`,
        );
      typed = c.value;
    }
    const problem = checkValue(prop, typed);
    if (problem) return err(`human task ${step}: property ${JSON.stringify(name)}: ${problem}`);
    out[name] = typed;
  }
  for (const [name, prop] of Object.entries(form.properties)) {
    if (!Object.hasOwn(out, name) && prop.default !== undefined) out[name] = prop.default;
  }
  for (const name of form.required ?? []) {
    if (!Object.hasOwn(out, name))
      return err(`human task ${step}: property ${JSON.stringify(name)} is required`);
  }
  return { ok: true, input: sortKeys(out) as Json };
}

/** The step outputs a canonical input publishes: declared properties only; strings as they are, else JSON. */
export function humanTaskOutputs(form: HumanTaskForm | null, input: Json): Record<string, string> {
  const out: Record<string, string> = {};
  if (!form) return out;
  for (const name of Object.keys(form.properties).sort()) {
    if (!Object.hasOwn(input, name)) continue;
    const v = input[name];
    out[name] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/** Canonical JSON text (members sorted at every level): equal inputs give equal texts. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}

/**
 * One JSON object and nothing but whitespace after it, with no member name repeated at any level (JSON.parse
 * would keep the last one silently).
 */
export function parseJsonObject(text: string): { ok: true; value: Json } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `--inputs-json is not valid JSON: ${(e as Error).message}` };
  }
  if (!isObject(value))
    return { ok: false, error: `--inputs-json must be a JSON object, got ${kindOf(value)}` };
  const dup = duplicateMember(text);
  if (dup !== null) return { ok: false, error: `--inputs-json: duplicate member ${JSON.stringify(dup)}` };
  return { ok: true, value };
}

/** The first member name repeated within one object of valid JSON text, or null. */
function duplicateMember(text: string): string | null {
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const str = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        if (top.has(str)) return str;
        top.add(str);
        expectKey = false;
      }
      continue;
    }
    if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      stack.push(null);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      expectKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
    i++;
  }
  return null;
}
