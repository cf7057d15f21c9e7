// Parses a DAG file (Dagu's YAML, snake_case keys) into a DagSpec with every default filled in, or into the
// full list of its errors, each naming the file, line, column and field, so that `dagu validate` can print
// them all. A file may hold several documents: the first is the DAG, later ones are local sub-DAGs.

import type { Document, LineCounter, Node, Scalar } from 'yaml';
import { isMap, isScalar } from 'yaml';
import type { DagSpec } from '../types';
import type { DagError } from './dagError';
import { applyBaseLayer, type BaseLayer } from './baseConfig';
import { DagReader, isNull } from './dagReader';
import { dagu1Warning, differencesUnder1x, translateDagu1 } from './dagu1';
import { readDag } from './readDag';
import { parseYamlDocuments } from './yamlFrontEnd';

export type { DagError } from './dagError';
export { formatDagError } from './dagError';
export { dagNameFromFile } from './dagName';

/** How the reader's deprecation warnings start (deprecations.ts). */
const DEPRECATED = 'Deprecated DAG syntax:';

export type ParseDagResult =
  { ok: true; dag: DagSpec; warnings: string[] } | { ok: false; errors: DagError[] };

export interface ParseDagOptions {
  /** Path shown in errors and kept in `DagSpec.file`; null for text that came from elsewhere. */
  file: string | null;
  /** The DAG's name when the file has no `name` key: the file name's stem. */
  defaultName: string;
  /**
   * Dagu's `validate` rules on top of the loader's: the entrypoint document must not set `name`, every
   * document needs `steps` as a non-empty list, and no document may be empty.
   */
  strict?: boolean;
  /** Dagu's base config and config defaults, laid under every document (see baseConfig.ts). */
  base?: BaseLayer | null;
  /**
   * The file the text was written in when `file` is a copy of it (a local DAG's temp file): a relative
   * `working_dir` is taken from its directory, as in Dagu, and the DAG keeps it in `source_file`.
   */
  sourceFile?: string | null;
}

/** Parses a DAG file. Never throws: problems are returned, all of them. */
export function parseDag(text: string, opts: ParseDagOptions): ParseDagResult {
  const { docs, lines } = parseYamlDocuments(text);
  const errors: DagError[] = [];
  const warnings: string[] = [];
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    if (doc.errors.length === 0) continue;
    // Running out of stack is reported by every level it unwinds through: once is enough.
    const exhausted = doc.errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
    for (const e of exhausted ? [exhausted] : doc.errors) {
      const pos = lines.linePos(e.pos[0]);
      errors.push({ file: opts.file, line: pos.line, column: pos.col, field: '', message: yamlMessage(e) });
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  for (const doc of list) for (const w of doc.warnings) warnings.push(w.message);

  const documents = list.filter((d) => !isNull(d.contents as Node | null));
  // A file in Dagu 1.x spelling is read with 1.x meaning: translated to 2.x spelling first (dagu1.ts).
  const dagu1 = translateDagu1(documents as Document[], 'read');
  // Dagu 1.x's validate had no pre-pass: a 1.x file is held to the loader's rules only.
  if (opts.strict && !dagu1.isDagu1) checkDocuments(list, lines, opts.file, errors);
  if (documents.length === 0) {
    errors.push({
      file: opts.file,
      line: 1,
      column: 1,
      field: '',
      message: 'the file is empty: a DAG needs steps',
    });
    return { ok: false, errors };
  }

  let entrypoint: DagSpec | null = null;
  const locals: DagSpec[] = [];
  documents.forEach((doc, i) => {
    const baseHandlers = opts.base ? applyBaseLayer(doc as Document, opts.base) : [];
    const r = new DagReader(doc as Document, lines, opts.file, opts.strict === true);
    r.evalEnv = dagu1.evalEnv;
    r.unboundedEvals = dagu1.unboundedEvals;
    const root = r.resolve(doc.contents)!;
    const dag = readDag(r, root, {
      file: opts.file,
      sourceFile: opts.sourceFile ?? null,
      defaultName: i === 0 ? opts.defaultName : null,
      baseDefinitions: opts.base
        ? { step_types: opts.base.values.step_types, actions: opts.base.values.actions }
        : null,
    });
    if (dag && baseHandlers.length > 0) dag.base_handlers = baseHandlers;
    errors.push(...r.errors);
    const prefix = i === 0 ? '' : `document ${i + 1} (${dag?.name ?? '?'}): `;
    // A 1.x file's legacy spellings (command, string steps, ...) are named once, by `dagu migrate`.
    const own = dagu1.isDagu1 ? r.warnings.filter((w) => !w.startsWith(DEPRECATED)) : r.warnings;
    warnings.push(...own.map((w) => prefix + w));
    if (i === 0) entrypoint = dag;
    else if (dag) locals.push(dag);
  });
  checkLocalNames(documents, locals, lines, opts.file, entrypoint, errors);
  if (dagu1.isDagu1) warnings.unshift(dagu1Warning(dagu1, opts.file ?? `${opts.defaultName}.yaml`));
  else if (opts.strict) warnings.push(...differencesUnder1x(documents as Document[]));
  if (errors.length > 0 || entrypoint === null) return { ok: false, errors: sortErrors(errors) };
  const dag: DagSpec = entrypoint;
  dag.local_dags = Object.fromEntries(locals.map((l) => [l.name, l]));
  dag.warnings = warnings;
  return { ok: true, dag, warnings };
}

/** Later documents need unique names, different from the entrypoint's. */
function checkLocalNames(
  documents: readonly Document.Parsed[],
  locals: readonly DagSpec[],
  lines: LineCounter,
  file: string | null,
  entrypoint: DagSpec | null,
  errors: DagError[],
): void {
  const seen = new Set<string>(entrypoint ? [entrypoint.name] : []);
  locals.forEach((local, i) => {
    if (local.name === '') return;
    if (seen.has(local.name)) {
      const offset = (documents[i + 1].contents as Node | null)?.range?.[0] ?? 0;
      const pos = lines.linePos(offset);
      errors.push({
        file,
        line: pos.line,
        column: pos.col,
        field: 'name',
        message: `DAG name ${JSON.stringify(local.name)} is used by another document of this file`,
      });
    }
    seen.add(local.name);
  });
}

/** Dagu's `validate` pre-pass (stricter than loading): see ParseDagOptions.strict. */
function checkDocuments(
  docs: readonly Document.Parsed[],
  lines: LineCounter,
  file: string | null,
  errors: DagError[],
): void {
  docs.forEach((doc, i) => {
    const label = i === 0 ? 'the entrypoint document (the first of the file)' : `document ${i + 1}`;
    const root = doc.contents as Node | null;
    const offset = root?.range?.[0] ?? 0;
    const pos = lines.linePos(offset);
    const at = { file, line: pos.line, column: pos.col };
    // A document that is not a map, or has no steps list, is reported by the loader; these are the extras.
    if (isNull(root) || (isMap(root) && root.items.length === 0)) {
      errors.push({ ...at, field: '', message: `${label} must not be empty` });
      return;
    }
    if (!isMap(root)) return;
    const field = (key: string) => root.items.find((p) => isScalar(p.key) && p.key.value === key);
    const name = field('name');
    if (i === 0 && name) {
      const p = lines.linePos((name.key as Node).range?.[0] ?? offset);
      errors.push({
        file,
        line: p.line,
        column: p.col,
        field: 'name',
        message: `${label} must not define name: its name is the file name (dagu validate follows Dagu here; dagu start accepts it)`,
      });
    }
    // The pre-pass reads `name` and `steps` in lower case only, unlike the loader (see readDag).
    const otherCase = (key: string) =>
      root.items.find(
        (p) => isScalar(p.key) && typeof p.key.value === 'string' && p.key.value.toLowerCase() === key,
      );
    const mustDefine = (key: string) => {
      const other = otherCase(key)!;
      const p = lines.linePos((other.key as Node).range?.[0] ?? offset);
      const written = String((other.key as Scalar).value);
      errors.push({
        file,
        line: p.line,
        column: p.col,
        field: written,
        message: `${label} must define ${key}: dagu validate reads it in lower case only, as Dagu's does (dagu start accepts ${JSON.stringify(written)})`,
      });
    };
    if (i > 0 && !name && otherCase('name')) mustDefine('name');
    const steps = field('steps');
    if (!steps && otherCase('steps')) mustDefine('steps');
    if (steps && isMap(steps.value)) {
      const p = lines.linePos((steps.key as Node).range?.[0] ?? offset);
      errors.push({
        file,
        line: p.line,
        column: p.col,
        field: 'steps',
        message: `${label}: steps must be a list (dagu validate follows Dagu here; dagu start accepts a map)`,
      });
    }
  });
}

/** The yaml library's message without its own position (ours is in the error's fields). */
function yamlMessage(e: { code: string; message: string }): string {
  // The parser ran out of stack: its own message ("Maximum call stack size exceeded") says nothing to a user.
  if (e.code === 'RESOURCE_EXHAUSTION') return 'invalid YAML: the document is nested too deeply';
  return `invalid YAML: ${e.message}`;
}

/** Errors in the order of the file, each once, so that `dagu validate` reads top to bottom. */
function sortErrors(errors: DagError[]): DagError[] {
  const seen = new Set<string>();
  return errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.line ?? 0) - (b.e.line ?? 0) || (a.e.column ?? 0) - (b.e.column ?? 0) || a.i - b.i)
    .map(({ e }) => e)
    .filter((e) => {
      const key = `${e.line}:${e.column}:${e.field}:${e.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
