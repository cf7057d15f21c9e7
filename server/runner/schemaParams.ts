// A schema-backed DAG's params when its run starts (Dagu's params forms 4 and 5, core/paramSchema.ts): the
// schema (read from its file when `params.schema` names one), the run's values typed by it, its property
// defaults filled in, and the whole checked against it. An error fails the run before any step.

import { dirname, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';
import { MAX_SCHEMA_CHARS, schemaParamList, schemaProblem, typedParamValues } from '../core/paramSchema';
import { parseParamWord } from '../core/params';
import type { DagSpec, ParamSchemaSpec } from '../core/types';
import { fsPromises } from '../store/fsPromises';

export type SchemaParamsOutcome = { ok: true; list: string[] } | { ok: false; error: string };

/** The run's final params (`list` as the run record holds them), or why they are refused. */
export async function checkSchemaParams(
  dag: Partial<Pick<DagSpec, 'file' | 'working_dir'>>,
  spec: ParamSchemaSpec,
  list: readonly string[],
): Promise<SchemaParamsOutcome> {
  const schema = spec.schema ?? (await readSchemaFile(dag, spec.file ?? ''));
  if (typeof schema === 'string') return { ok: false, error: `params: ${schema}` };
  const typed = typedParamValues(schema, list.map(parseParamWord), []);
  if (!typed.ok) return { ok: false, error: `params: ${typed.error}` };
  const { compileSchema } = await import('../core/jsonSchema');
  const compiled = compileSchema(schema, { useDefaults: true, dataVar: 'params' });
  if (!compiled.ok) return { ok: false, error: `params: ${compiled.error}` };
  const problem = compiled.check(typed.values);
  if (problem !== null) return { ok: false, error: `params: parameter validation failed: ${problem}` };
  return { ok: true, list: schemaParamList(spec, schema, typed.values) };
}

/**
 * Reads a schema file: an absolute path (or `~/...`) as it is; a relative one from the DAG's `working_dir`,
 * then from the DAG file's folder. The schema, or a message saying what is wrong.
 */
export async function readSchemaFile(
  dag: Partial<Pick<DagSpec, 'file' | 'working_dir'>>,
  ref: string,
): Promise<Record<string, unknown> | boolean | string> {
  const path = ref.startsWith('~/') ? join(homedir(), ref.slice(2)) : ref;
  const bases = isAbsolute(path)
    ? ['']
    : [dag.working_dir ?? null, dag.file ? dirname(dag.file) : null].filter((b): b is string => b !== null);
  const tried: string[] = [];
  for (const base of bases) {
    const candidate = base === '' ? path : join(base, path);
    tried.push(candidate);
    let size: number;
    try {
      const st = await fsPromises().stat(candidate);
      if (!st.isFile()) continue;
      size = st.size;
    } catch {
      continue;
    }
    if (size > MAX_SCHEMA_CHARS) {
      return `schema file ${JSON.stringify(ref)} has ${size} bytes; at most ${MAX_SCHEMA_CHARS} are accepted`;
    }
    let schema: unknown;
    try {
      schema = JSON.parse(await fsPromises().readFile(candidate, 'utf8')) as unknown;
    } catch (err) {
      return `schema file ${JSON.stringify(ref)} cannot be read as JSON: ${(err as Error).message}`;
    }
    const problem = schemaProblem(schema);
    if (problem !== null) return `schema file ${JSON.stringify(ref)}: ${problem}`;
    return schema as Record<string, unknown> | boolean;
  }
  return `schema file not found for ${JSON.stringify(ref)}; tried ${tried.join(', ') || 'nothing (the DAG has no file)'}`;
}
