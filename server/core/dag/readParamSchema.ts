// Dagu's schema-backed `params` (research note §2.1): a top-level inline JSON Schema (`type: object` with
// `properties`), or `{schema: <file | object | boolean>, values: ...}`. The loader keeps the schema and the
// explicit values; the run checks the final values against the schema when it starts (runner/evalParams.ts).

import { isMap, isScalar } from 'yaml';
import type { YAMLMap } from 'yaml';
import {
  isInlineSchema,
  isSchemaDeclaration,
  paramText,
  scalarTypeOf,
  schemaProblem,
  schemaProperties,
  typedParamValues,
} from '../paramSchema';
import type { ParamSchemaSpec, ParamSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';

/** Named params in Dagu must start with a letter. */
const DAG_PARAM_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

export type SchemaForm = 'inline' | 'declared';

/** Which schema-backed form a params map is, or null for a map of params (Dagu's rules, core/paramSchema.ts). */
export function schemaForm(r: DagReader, map: YAMLMap): SchemaForm | null {
  const view = new Map<string, unknown>();
  for (const pair of map.items) {
    if (!isScalar(pair.key)) continue;
    const value = r.resolve(pair.value);
    view.set(String(pair.key.value), isMap(value) ? {} : isScalar(value) ? value.value : value);
  }
  if (isSchemaDeclaration(view)) return 'declared';
  return isInlineSchema(view) ? 'inline' : null;
}

/**
 * Reads a schema-backed params map: the schema to `onSchema`, the explicit values returned as named params.
 * `readValues` reads `values:` as ordinary params (readFields.ts's readParams, passed in: it calls this).
 */
export function readSchemaParams(
  r: DagReader,
  entry: Entry,
  form: SchemaForm,
  onSchema: (spec: ParamSchemaSpec) => void,
  readValues: (r: DagReader, entry: Entry) => ParamSpec[],
): ParamSpec[] {
  const map = entry.value as YAMLMap;
  const get = (key: string): Entry | undefined => {
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
    return pair
      ? { value: r.resolve(pair.value), keyNode: pair.key as never, key, field: `${entry.field}.${key}` }
      : undefined;
  };
  if (form === 'inline') {
    const props = get('properties')!;
    if (!isMap(props.value)) {
      return (
        r.errorAt(
          props,
          `inline JSON Schema properties must be a map keyed by parameter name, got ${describe(props.value)}`,
        ) ?? []
      );
    }
    const schema = r.toJS(map) as Record<string, unknown>;
    // Dagu drops these UI hints from the top level before it reads the schema.
    delete schema.readOnly;
    delete schema.readonly;
    if (!checkSchema(r, entry, schema)) return [];
    onSchema({ schema, file: null });
    return inlineDefaults(schema);
  }

  const decl = get('schema')!;
  let spec: ParamSchemaSpec;
  if (isScalar(decl.value) && typeof decl.value.value === 'string') {
    const ref = decl.value.value.trim();
    if (ref === '') return r.errorAt(decl, 'the schema reference must not be empty') ?? [];
    if (/^https?:\/\//i.test(ref)) {
      return (
        r.unsupported(
          decl.value,
          decl.field,
          "Dagu's schema URLs are not supported by this product: it downloads nothing when it loads a DAG " +
            '(save the schema as a file beside the DAG and name the file)',
        ) ?? []
      );
    }
    spec = { schema: null, file: ref };
  } else if (isMap(decl.value) || (isScalar(decl.value) && typeof decl.value.value === 'boolean')) {
    const schema = r.toJS(decl.value) as Record<string, unknown> | boolean;
    if (!checkSchema(r, decl, schema)) return [];
    spec = { schema, file: null };
  } else {
    return (
      r.errorAt(
        decl,
        `must be a file path, a JSON Schema object or a boolean, got ${describe(decl.value)}`,
      ) ?? []
    );
  }

  const valuesEntry = get('values');
  const values = valuesEntry && !isNull(valuesEntry.value) ? readValues(r, valuesEntry) : [];
  const positional = values.find((p) => p.name === null);
  if (positional) {
    return (
      r.errorAt(
        valuesEntry!,
        `positional values are not supported for schema-backed params (${JSON.stringify(positional.value)}); name each value`,
      ) ?? []
    );
  }
  if (spec.schema !== null) {
    const typed = typedParamValues(spec.schema, values, []);
    if (!typed.ok) return r.errorAt(valuesEntry!, typed.error) ?? [];
  }
  onSchema(spec);
  return values;
}

function checkSchema(r: DagReader, at: Entry, schema: unknown): boolean {
  const problem = schemaProblem(schema);
  if (problem !== null) {
    r.errorAt(at, problem);
    return false;
  }
  for (const name of schemaProperties(schema).keys()) {
    if (!DAG_PARAM_NAME.test(name)) {
      r.errorAt(
        at,
        `${JSON.stringify(name)} is not a valid parameter name (start with a letter; then letters, digits and _)`,
      );
      return false;
    }
  }
  return true;
}

/** The explicit `default` of every property with a scalar type, as named params sorted by name. */
function inlineDefaults(schema: Record<string, unknown>): ParamSpec[] {
  const out: ParamSpec[] = [];
  for (const [name, prop] of [...schemaProperties(schema)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (scalarTypeOf(prop) === null) continue;
    if (prop === null || typeof prop !== 'object' || !Object.hasOwn(prop, 'default')) continue;
    out.push({ name, value: paramText((prop as Record<string, unknown>).default) });
  }
  return out;
}
