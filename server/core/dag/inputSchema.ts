// The input schema of a custom action (`actions:`) or legacy step type (`step_types:`): an inline JSON Schema
// (draft 2020-12, as Dagu's validator) that a call's `with:` must satisfy, its defaults filled in first. A value
// that is a runtime reference (`${COUNT}`, `$MODE`, a backtick command) cannot be checked when the DAG loads:
// as in Dagu, such a value stands in for any value of its property's type, and the real one is used as written.
//
// The validator is core/jsonSchema.ts, the one params and output schemas are checked with: Ajv, loaded on first
// use, so a DAG without custom definitions never loads it.

import { compileSchema, type Compiled } from '../jsonSchema';

type JsonObject = Record<string, unknown>;

/**
 * A compiled input schema: `check` fills in the defaults of the properties a value lacks (changing the value in
 * place) and returns null when the value passes, else what is wrong (the value is named `with`).
 */
export type InputSchema = Compiled;

/** Compiles an input schema (already checked to be an object). */
export function compileInputSchema(schema: JsonObject): InputSchema {
  return compileSchema(schema, { useDefaults: true, dataVar: 'with' });
}

/**
 * Checks a call's input: a copy with the schema's defaults filled in, or what is wrong with it. When the input
 * fails only because of runtime references, it passes (the references stay in the copy, to be resolved when the
 * step runs).
 */
export function checkInput(
  schema: JsonObject,
  compiled: Extract<InputSchema, { ok: true }>,
  input: JsonObject,
): { ok: true; value: JsonObject } | { ok: false; error: string } {
  const working = structuredClone(input);
  const problem = compiled.check(working);
  if (problem === null) return { ok: true, value: working };
  const stand = runtimeStandIn(schema, schema, working);
  if (stand.found && isObject(stand.value) && compiled.check(structuredClone(stand.value)) === null)
    return { ok: true, value: working };
  return { ok: false, error: problem };
}

/** A runtime reference anywhere in a text: a backtick command, `${NAME}` or `$NAME`. */
const RUNTIME_REFERENCE = /`[^`]+`|\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*/;
/** A text that is one runtime reference and nothing else (blanks around allowed). */
const WHOLE_RUNTIME_REFERENCE = /^\s*(?:`[^`]+`|\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*)\s*$/;

type StandIn = { found: true; value: unknown } | { found: false };
const NONE: StandIn = { found: false };

/**
 * `value` with each runtime reference replaced by a value its schema accepts, following Dagu's
 * customStepRuntimeValidationInput: a reference in a text property stands for text of an acceptable length; one
 * that is the whole value of an integer, number, boolean, enum or const property stands for its first allowed
 * value. `found` is false when nothing was replaced.
 */
function runtimeStandIn(root: JsonObject, schemaIn: unknown, value: unknown): StandIn {
  const schema = dereference(root, schemaIn);
  if (!isObject(schema)) return NONE;
  if (typeof value === 'string') return placeholder(schema, value);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((item, i) => {
      const next = runtimeStandIn(root, itemSchema(schema, i), item);
      if (!next.found) return;
      out ??= [...value];
      out[i] = next.value;
    });
    return out ? { found: true, value: out } : NONE;
  }
  if (isObject(value)) {
    let out: JsonObject | null = null;
    for (const [key, item] of Object.entries(value)) {
      const next = runtimeStandIn(root, propertySchema(schema, key), item);
      if (!next.found) continue;
      out ??= { ...value };
      out[key] = next.value;
    }
    return out ? { found: true, value: out } : NONE;
  }
  return NONE;
}

/** A `#/$defs/x` or `#/definitions/x` reference followed once; any other schema as it is. */
function dereference(root: JsonObject, schema: unknown): unknown {
  if (!isObject(schema) || typeof schema.$ref !== 'string') return schema;
  for (const prefix of ['#/$defs/', '#/definitions/']) {
    if (!schema.$ref.startsWith(prefix)) continue;
    const defs = root[prefix.slice(2, -1)];
    const name = schema.$ref.slice(prefix.length).replace(/~1/g, '/').replace(/~0/g, '~');
    return isObject(defs) ? defs[name] : undefined;
  }
  return schema;
}

function propertySchema(schema: JsonObject, key: string): unknown {
  const props = schema.properties;
  if (isObject(props) && Object.hasOwn(props, key)) return props[key];
  return isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
}

function itemSchema(schema: JsonObject, index: number): unknown {
  if (Array.isArray(schema.prefixItems) && index < schema.prefixItems.length)
    return schema.prefixItems[index];
  if (Array.isArray(schema.items)) {
    if (index < schema.items.length) return schema.items[index];
    return schema.additionalItems;
  }
  return schema.items !== undefined ? schema.items : schema.additionalItems;
}

type ScalarType = 'string' | 'integer' | 'number' | 'boolean';

function placeholder(schema: JsonObject, text: string): StandIn {
  if (!RUNTIME_REFERENCE.test(text)) return NONE;
  const hasConst = Object.hasOwn(schema, 'const');
  const enumValues = Array.isArray(schema.enum) ? schema.enum : [];
  const type = scalarType(schema, enumValues) ?? (hasConst ? valueType(schema.const) : null);
  if (type === null) return NONE;
  if ((type !== 'string' || enumValues.length > 0 || hasConst) && !WHOLE_RUNTIME_REFERENCE.test(text))
    return NONE;
  if (hasConst) return { found: true, value: structuredClone(schema.const) };
  if (enumValues.length > 0) return { found: true, value: structuredClone(enumValues[0]) };
  switch (type) {
    case 'string':
      return { found: true, value: 'x'.repeat(textLength(schema)) };
    case 'integer':
      return { found: true, value: valueIn(schema, true) };
    case 'number':
      return { found: true, value: valueIn(schema, false) };
    default:
      return { found: true, value: false };
  }
}

function scalarType(schema: JsonObject, enumValues: readonly unknown[]): ScalarType | null {
  const own = (t: unknown): ScalarType | null =>
    t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' ? t : null;
  if (typeof schema.type === 'string') {
    const t = own(schema.type);
    if (t) return t;
  }
  if (Array.isArray(schema.type) && schema.type.length === 1) {
    const t = own(schema.type[0]);
    if (t) return t;
  }
  if (enumValues.length === 0) return null;
  const first = valueType(enumValues[0]);
  return first !== null && enumValues.every((v) => valueType(v) === first) ? first : null;
}

function valueType(value: unknown): ScalarType | null {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function textLength(schema: JsonObject): number {
  const min = num(schema.minLength);
  const max = num(schema.maxLength);
  let length = max === 0 ? 0 : 1;
  if (min !== null && min > length) length = min;
  if (max !== null && length > max) length = max;
  return length;
}

/**
 * A value inside the schema's bounds, as near 0 as they allow (Dagu's placeholder): an integer one rounds each
 * bound inwards, a number one steps 1 past an exclusive bound.
 */
function valueIn(schema: JsonObject, integer: boolean): number {
  const up = integer ? Math.ceil : (x: number) => x;
  const down = integer ? Math.floor : (x: number) => x;
  let value = 0;
  const min = num(schema.minimum);
  const exMin = num(schema.exclusiveMinimum);
  const max = num(schema.maximum);
  const exMax = num(schema.exclusiveMaximum);
  if (min !== null && value < min) value = up(min);
  if (exMin !== null && value <= exMin) value = down(exMin) + 1;
  if (max !== null && value > max) value = down(max);
  if (exMax !== null && value >= exMax) value = up(exMax) - 1;
  return value;
}

/**
 * Whether a schema describes an object, as Dagu requires of an input schema: `type: object`, a reference to
 * such a schema, or a oneOf/anyOf/allOf whose every branch does.
 */
export function declaresObject(root: JsonObject, node: unknown, seen: Set<unknown> = new Set()): boolean {
  if (!isObject(node) || seen.has(node)) return false;
  seen.add(node);
  if (node.type === 'object') return true;
  if (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'object') return true;
  if (typeof node.$ref === 'string') return declaresObject(root, dereference(root, node), seen);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.length > 0)
      return branches.every((b) => declaresObject(root, b, new Set(seen)));
  }
  return false;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
