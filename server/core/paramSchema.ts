// Dagu's schema-backed params (research note §2.1, params forms 4 and 5): a JSON Schema gives the params' types,
// defaults and checks. This module is the pure part: which params map is schema-backed, how a param's text
// becomes a typed JSON value for the schema and back, and how a caller's params are laid over the values.
// The schema itself is checked by a validator the runner loads when it needs one (core/jsonSchema.ts).

import type { ParamSchemaSpec, ParamSpec } from './types';

/** A schema's text may be at most this long (as compact JSON): a bigger one is refused before it is compiled. */
export const MAX_SCHEMA_CHARS = 1024 * 1024;

export type SchemaParamsResult = { ok: true; list: string[] } | { ok: false; error: string };

/** The JSON types a param's text is read as; anything else is read as JSON when it parses, else as text. */
type ScalarType = 'string' | 'integer' | 'number' | 'boolean';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Whether a top-level params map is Dagu's `{schema, values}` form rather than a map of params: only the keys
 * `schema` and `values`, and `schema` an object, a boolean with `values` beside it, or a string with `values`
 * beside it or that looks like a path or URL (so `params: {schema: prod}` stays a param named schema).
 */
export function isSchemaDeclaration(map: ReadonlyMap<string, unknown>): boolean {
  if (!map.has('schema')) return false;
  for (const key of map.keys()) if (key !== 'schema' && key !== 'values') return false;
  const decl = map.get('schema');
  const hasValues = map.has('values');
  if (isObject(decl)) return true;
  if (typeof decl === 'boolean') return hasValues;
  if (typeof decl === 'string') return hasValues || looksLikeReference(decl);
  return false;
}

function looksLikeReference(text: string): boolean {
  const t = text.trim();
  return t !== '' && (t.includes('://') || t.includes('/') || t.includes('\\') || t.includes('.'));
}

/** Whether a params map is a top-level inline JSON Schema: `type: object` with `properties`. */
export function isInlineSchema(map: ReadonlyMap<string, unknown>): boolean {
  const type = map.get('type');
  return typeof type === 'string' && type.trim() === 'object' && map.has('properties');
}

/** The schema's top-level properties (an empty map when it has none). */
export function schemaProperties(schema: unknown): Map<string, unknown> {
  const props = isObject(schema) ? schema.properties : undefined;
  return new Map(isObject(props) ? Object.entries(props) : []);
}

/** A property's scalar type: its `type` (one scalar type), else the one type every `enum` value shares. */
export function scalarTypeOf(prop: unknown): ScalarType | null {
  if (!isObject(prop)) return null;
  const scalar = (t: unknown): ScalarType | null =>
    t === 'string' || t === 'integer' || t === 'number' || t === 'boolean' ? t : null;
  if (typeof prop.type === 'string') {
    const t = scalar(prop.type);
    if (t) return t;
  } else if (Array.isArray(prop.type) && prop.type.length === 1) {
    const t = scalar(prop.type[0]);
    if (t) return t;
  }
  if (!Array.isArray(prop.enum) || prop.enum.length === 0) return null;
  const types = new Set(prop.enum.map(jsonScalarType));
  const [only] = types;
  return types.size === 1 && only !== null && only !== undefined ? only : null;
}

function jsonScalarType(value: unknown): ScalarType | null {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return null;
}

/**
 * A param's text as the JSON value the schema sees: by the property's scalar type (an error when the text is
 * not of it); for a property without one, or a name the schema does not list, the JSON the text holds, else
 * the text.
 */
export function coerceParam(
  name: string,
  text: string,
  prop: unknown,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const type = scalarTypeOf(prop);
  const bad = (what: string) => ({
    ok: false as const,
    error: `${name}: cannot coerce ${JSON.stringify(text)} to ${what}`,
  });
  switch (type) {
    case 'string':
      return { ok: true, value: text };
    case 'integer': {
      const t = text.trim();
      if (!/^[+-]?\d+$/.test(t)) return bad('integer');
      const n = Number(t);
      return Number.isSafeInteger(n) ? { ok: true, value: n } : bad('integer');
    }
    case 'number': {
      const t = text.trim();
      const n = t === '' ? NaN : Number(t);
      return Number.isFinite(n) && !/^[+-]?0[xob]/i.test(t) ? { ok: true, value: n } : bad('number');
    }
    case 'boolean':
      if (/^true$/i.test(text)) return { ok: true, value: true };
      if (/^false$/i.test(text)) return { ok: true, value: false };
      return bad('boolean');
    default:
      try {
        return { ok: true, value: JSON.parse(text) as unknown };
      } catch {
        return { ok: true, value: text };
      }
  }
}

/** A typed value as param text: a string as it is, anything else as its compact JSON. */
export function paramText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The order params are listed in: the schema's properties (sorted by name for a schema written in the DAG,
 * which Dagu reads through an unordered map; as written for a schema file), then other names sorted.
 */
export function schemaOrder(spec: ParamSchemaSpec, schema: unknown, names: Iterable<string>): string[] {
  const props = [...schemaProperties(schema).keys()];
  if (spec.file === null) props.sort();
  const known = new Set(props);
  const extra = [...new Set(names)].filter((n) => !known.has(n)).sort();
  return [...props, ...extra];
}

/**
 * The typed values of the declared params with a caller's laid over them: a caller's value replaces its
 * namesake or adds a name; a positional value is refused (a schema names every param).
 */
export function typedParamValues(
  schema: unknown,
  declared: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
): { ok: true; values: JsonObject } | { ok: false; error: string } {
  const props = schemaProperties(schema);
  const values: JsonObject = Object.create(null) as JsonObject;
  for (const [i, p] of [...declared, ...overrides].entries()) {
    if (p.name === null) {
      const from = i < declared.length ? 'values' : 'the caller';
      return {
        ok: false,
        error: `positional parameters are not supported for schema-backed params (${JSON.stringify(p.value)} from ${from})`,
      };
    }
    const typed = coerceParam(p.name, p.value, props.get(p.name));
    if (!typed.ok) return typed;
    values[p.name] = typed.value;
  }
  return { ok: true, values };
}

/** Typed values as the run's param list (`NAME=value` words) in the schema's order. */
export function schemaParamList(spec: ParamSchemaSpec, schema: unknown, values: JsonObject): string[] {
  return schemaOrder(spec, schema, Object.keys(values))
    .filter((name) => Object.hasOwn(values, name))
    .map((name) => `${name}=${paramText(values[name])}`);
}

/**
 * A new run's params for a schema-backed DAG, before the schema's own checks (the run makes them when it
 * starts, with the defaults the schema gives): the caller's values laid over the declared ones and typed.
 */
export function resolveSchemaRunParams(
  spec: ParamSchemaSpec,
  declared: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
): SchemaParamsResult {
  const typed = typedParamValues(spec.schema, declared, overrides);
  if (!typed.ok) return typed;
  return { ok: true, list: schemaParamList(spec, spec.schema, typed.values) };
}

/**
 * Why a schema is not one this product can use without fetching anything, or null: it must be an object or a
 * boolean, and every `$ref` must point inside it (`#...`); a URL reference would need a download.
 */
export function schemaProblem(schema: unknown): string | null {
  if (typeof schema === 'boolean') return null;
  if (!isObject(schema)) return `a JSON Schema must be an object or a boolean, got ${describeJson(schema)}`;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return 'the schema is not JSON';
  }
  if (text.length > MAX_SCHEMA_CHARS) {
    return `the schema has ${text.length} characters as JSON; at most ${MAX_SCHEMA_CHARS} are accepted`;
  }
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else if (isObject(node)) {
      for (const key of ['$ref', '$dynamicRef']) {
        const ref = node[key];
        if (typeof ref === 'string' && !ref.startsWith('#')) {
          return `${key} ${JSON.stringify(ref)} points outside the schema; this product fetches no schema (only "#..." references are supported)`;
        }
      }
      stack.push(...Object.values(node));
    }
  }
  return null;
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}
