// A step's `output_schema` (Dagu 2.x): an inline JSON Schema that the step's stdout, read as one JSON value,
// must satisfy. This module holds the load-time rules (research note §2.6; Dagu refuses a schema that does not
// describe an object) and the reading of stdout; the runner checks the value with its validator.

import { schemaProblem } from './paramSchema';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Why `schema` cannot be a step's output_schema, or null: it must be a JSON Schema object that describes an
 * object — `type: object`, a `#...` reference to such a schema, a oneOf/anyOf/allOf whose every branch does,
 * or no type at all at the top (`{}` accepts any JSON value, as in Dagu).
 */
export function outputSchemaProblem(schema: unknown): string | null {
  if (!isObject(schema)) return 'output_schema must be an inline JSON Schema object';
  const problem = schemaProblem(schema);
  if (problem !== null) return problem;
  if (!declaresObject(schema, schema, new Set(), true))
    return 'output_schema must resolve to an object schema';
  return null;
}

function declaresObject(
  root: JsonObject,
  node: unknown,
  seen: Set<unknown>,
  unconstrained: boolean,
): boolean {
  if (!isObject(node) || seen.has(node)) return false;
  seen.add(node);
  if (node.type === 'object') return true;
  if (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'object') return true;
  if (typeof node.$ref === 'string')
    return declaresObject(root, pointer(root, node.$ref), seen, unconstrained);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return branches.every((b) => declaresObject(root, b, new Set(seen), unconstrained));
    }
  }
  return unconstrained && node.type === undefined;
}

/** The schema a `#/a/b` reference names inside `root`, or undefined. */
function pointer(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  const path = ref.slice(1);
  if (path === '') return root;
  if (!path.startsWith('/')) return undefined;
  let node: unknown = root;
  for (const raw of path.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * Stdout as the one JSON value output_schema needs (surrounding blanks ignored), or why it is not one. The
 * message never quotes stdout: it may hold secrets.
 */
export function readSchemaStdout(
  stdout: string,
): { ok: true; value: unknown } | { ok: false; error: string } {
  const text = stdout.trim();
  if (text === '') {
    return { ok: false, error: 'output_schema requires stdout to contain a JSON value matching the schema' };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return {
      ok: false,
      error: 'failed to decode stdout JSON for output_schema: stdout is not one JSON value',
    };
  }
}
