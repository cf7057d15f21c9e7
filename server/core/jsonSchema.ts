// JSON Schema checks (draft 2020-12, the draft Dagu's validator implements) for schema-backed params, a
// step's output_schema and a custom action's input_schema. Ajv is loaded on first use: a run that uses neither never loads it. In the bundled CLI
// the name is a plain require that the `jsonschema` part takes over (scripts/build-cli.mjs); under an ES
// module runtime (the tests) Node's own require loads it.

// eslint-disable-next-line no-restricted-imports -- loading a module, not I/O: core stays pure
import { createRequire } from 'node:module';
import type Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv/dist/2020';

type AjvClass = typeof Ajv2020;

let ajvClass: AjvClass | null = null;

function loadAjv(): AjvClass {
  if (ajvClass) return ajvClass;
  /* eslint-disable @typescript-eslint/no-require-imports -- bundled, loaded lazily */
  const mod = (
    typeof require === 'function' ? require('ajv/dist/2020') : createRequire(import.meta.url)('ajv/dist/2020')
  ) as AjvClass & { default?: AjvClass };
  /* eslint-enable @typescript-eslint/no-require-imports */
  ajvClass = mod.default ?? mod;
  return ajvClass;
}

export type Compiled = { ok: true; check: (value: unknown) => string | null } | { ok: false; error: string };

const cache = new Map<string, Compiled>();
const CACHE_LIMIT = 64;

/**
 * Ajv's errors, with the property an additionalProperties error is about in its message (Ajv keeps it in the
 * error's params only, so `must NOT have additional properties` would not say which one).
 */
function named(errors: ValidateFunction['errors']): ValidateFunction['errors'] {
  return errors?.map((e) =>
    e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string'
      ? { ...e, message: `${e.message} (${JSON.stringify(e.params.additionalProperty)} is not declared)` }
      : e,
  );
}

/**
 * Compiles a schema (an object or a boolean). With `useDefaults`, a check fills in the `default` of every
 * property the value lacks (the value is changed in place), as Dagu applies a params schema's defaults. The
 * check returns null when the value passes, else what is wrong (`dataVar` names the value in the message).
 * `format` is an annotation only, as in Dagu's validator; a `$ref` must point inside the schema.
 */
export function compileSchema(
  schema: Record<string, unknown> | boolean,
  opts: { useDefaults: boolean; dataVar: string },
): Compiled {
  const key = `${opts.useDefaults ? 'd' : '-'}${opts.dataVar}\u0000${JSON.stringify(schema)}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const Ajv = loadAjv();
  const ajv = new Ajv({
    strict: false,
    allErrors: false,
    validateFormats: false,
    useDefaults: opts.useDefaults,
    // No loader: a reference outside the schema is an error, never a download.
    loadSchema: undefined,
  });
  let compiled: Compiled;
  try {
    const validate: ValidateFunction = ajv.compile(schema);
    compiled = {
      ok: true,
      check: (value) =>
        validate(value)
          ? null
          : ajv.errorsText(named(validate.errors), { dataVar: opts.dataVar, separator: '; ' }),
    };
  } catch (err) {
    compiled = { ok: false, error: `invalid JSON Schema: ${(err as Error).message}` };
  }
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}
