// Finds and loads DAG files: `<dagsDir>/*.yaml|*.yml`, by DAG name or by path. Parsing is core's
// `parseDag`; this module only turns names into paths (validated first) and reads files.

import path from 'node:path';
import { assertDagName } from '../core/names';
import type { DagSpec } from '../core/types';
import type { DagError } from '../core/dag/dagError';
import { dagNameFromFile } from '../core/dag/dagName';
import type { ParseDagResult } from '../core/dag/parseDag';
import { layerWithDefaults, type BaseLayer } from '../core/dag/baseLayer';
import type { DagSpecCache } from './dagSpecCache';
import * as fs from './fileCalls';
import { errorCode, errorMessage, readTextFile, readdirOrEmpty } from './fsutil';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

/** A DAG file in the DAGs directory; `name` is the file's stem, `file` its absolute path. */
export interface DagFile {
  name: string;
  file: string;
}

/** The outcome of loading one DAG: parsed, invalid (every error), or no such file. */
export type LoadDagResult =
  | { ok: true; dag: DagSpec; warnings: string[] }
  | { ok: false; errors: DagError[] }
  | { ok: false; notFound: true };

/** One file's outcome in `loadAllDags`. */
export interface DagFileResult extends DagFile {
  result: ParseDagResult;
}

const DAG_FILE_PATTERN = /\.ya?ml$/i;

/** Where the base config of a DAGs directory is, and the config's defaults every DAG inherits with it. */
export interface BaseConfigSource {
  /** Absolute path of base.yaml (a missing file is no base). */
  file: string;
  defaultShell?: string | null;
  tz?: string | null;
}

// Per DAGs directory, set by the composition root (cli/initHome.ts). A plain module value: the process has
// one copy of this module (the CLI's bundle), which the API reaches too.
const baseSources = new Map<string, BaseConfigSource>();

/**
 * Makes every DAG loaded from `dagsDir` inherit Dagu's base config (see core/dag/baseConfig.ts). Set once by
 * the composition root from the configuration; a directory never set loads DAGs without a base.
 */
export function setBaseConfig(dagsDir: string, source: BaseConfigSource | null): void {
  if (source) baseSources.set(path.resolve(dagsDir), source);
  else baseSources.delete(path.resolve(dagsDir));
}

/** The base layer of `dagsDir` now (base.yaml is read at each load, as Dagu does), or its error. */
async function baseLayerOf(dagsDir: string): Promise<{ layer: BaseLayer | null; text: string } | DagError> {
  const source = baseSources.get(path.resolve(dagsDir));
  if (!source) return { layer: null, text: '' };
  let text: string | null = null;
  try {
    text = await readTextFile(source.file);
  } catch (err) {
    const code = errorCode(err);
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      return readError(source.file, `cannot read the base config: ${errorMessage(err)}`);
  }
  let layer: BaseLayer | null;
  if (text === null) {
    // No base file: only the config's defaults, without loading the YAML library to parse nothing.
    layer = layerWithDefaults({}, source);
  } else {
    const { readBaseLayer } = await import('../core/dag/baseConfig');
    const r = readBaseLayer({ text, file: source.file, defaultShell: source.defaultShell, tz: source.tz });
    if (!r.ok) return r.error;
    layer = r.layer;
  }
  // Part of the cache key: a changed base.yaml or default must not reuse parses made under the old one.
  return { layer, text: layer ? JSON.stringify(layer) : '' };
}

/**
 * The largest DAG file read. Far above any real DAG (20,000 steps take about 800 KB), and low enough that a
 * stray log or dump saved as `.yaml` cannot make every scheduler pass parse megabytes.
 */
export const MAX_DAG_FILE_BYTES = 1024 * 1024;

/** DAG files of `dagsDir`, sorted by name; [] if the directory does not exist. */
export async function listDagFiles(dagsDir: string): Promise<DagFile[]> {
  const dir = path.resolve(dagsDir);
  const names = (await readdirOrEmpty(dir)).filter(
    (name) => DAG_FILE_PATTERN.test(name) && !name.startsWith('.'),
  );
  const files = await Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name);
      const stat = await fs.stat(file).catch(() => null); // follows symlinks; a dangling one is skipped
      return stat?.isFile() ? { name: dagNameFromFile(name), file } : null;
    }),
  );
  return files
    .filter((entry): entry is DagFile => entry !== null)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.file < b.file ? -1 : 1));
}

/**
 * Loads a DAG by name (`etl`: `<dagsDir>/etl.yaml` or `.yml`, else the file whose `name:` is `etl`) or by
 * path (contains `/` or ends in `.yaml`/`.yml`: read as given, relative to the working directory; a bare file
 * name not found there is looked up in `dagsDir`). Throws InvalidNameError for a name that is not valid.
 */
export async function loadDag(
  dagsDir: string,
  nameOrPath: string,
  opts: LoadDagOptions = {},
): Promise<LoadDagResult> {
  if (nameOrPath.includes('/') || DAG_FILE_PATTERN.test(nameOrPath)) {
    const withBase = { ...opts, dagsDir };
    const result = await loadDagFile(path.resolve(nameOrPath), withBase);
    const bareFileName = !nameOrPath.includes('/');
    return 'notFound' in result && bareFileName
      ? loadDagFile(path.resolve(dagsDir, nameOrPath), withBase)
      : result;
  }
  return loadDagByName(dagsDir, nameOrPath, opts);
}

export interface LoadDagOptions {
  /** Parses of unchanged files to reuse, and where to keep new ones (see dagSpecCache.ts). */
  cache?: DagSpecCache;
  /** Apply `dagu validate`'s stricter document rules (see ParseDagOptions.strict); never cached. */
  strict?: boolean;
  /** The file the DAG was written in, when the file read is a copy of it (see ParseDagOptions.sourceFile). */
  sourceFile?: string;
}

/**
 * Loads a DAG by name only (`etl`: `<dagsDir>/etl.yaml` or `.yml`, else the file whose `name:` is `etl`), for
 * names that come from a request or another host: unlike `loadDag`, `etl.yaml` is a name here, never a file of
 * the process's working directory. Throws InvalidNameError for a name that is not valid.
 */
export async function loadDagByName(
  dagsDir: string,
  dagName: string,
  opts: LoadDagOptions = {},
): Promise<LoadDagResult> {
  const name = assertDagName(dagName);
  for (const ext of ['.yaml', '.yml']) {
    const result = await loadDagFile(path.resolve(dagsDir, name + ext), { ...opts, dagsDir });
    if (!('notFound' in result)) return result;
  }
  // A file may declare a `name:` other than its stem.
  const declared = (await loadAllDags(dagsDir)).find(({ result }) => result.ok && result.dag.name === name);
  return declared ? declared.result : { ok: false, notFound: true };
}

/** Every DAG file of `dagsDir` with its parse result, sorted by file name. */
export async function loadAllDags(dagsDir: string): Promise<DagFileResult[]> {
  const files = await listDagFiles(dagsDir);
  return mapConcurrently(files, FILE_READ_CONCURRENCY, async (entry) => {
    const result = await loadDagFile(entry.file, { dagsDir });
    // The file was listed a moment ago; if it vanished since, report that as its error.
    const parsed: ParseDagResult =
      'notFound' in result ? { ok: false, errors: [readError(entry.file, 'the file was removed')] } : result;
    return { ...entry, result: parsed };
  });
}

async function loadDagFile(
  file: string,
  opts: LoadDagOptions & { dagsDir?: string } = {},
): Promise<LoadDagResult> {
  const cache = opts.strict ? undefined : opts.cache;
  let text: string;
  try {
    const size = (await fs.stat(file)).size;
    if (size > MAX_DAG_FILE_BYTES) {
      const limit = `${MAX_DAG_FILE_BYTES} bytes`;
      return {
        ok: false,
        errors: [readError(file, `the file has ${size} bytes; a DAG file has at most ${limit}`)],
      };
    }
    text = await readTextFile(file);
  } catch (err) {
    const code = errorCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return { ok: false, notFound: true };
    return { ok: false, errors: [readError(file, `cannot read the file: ${errorMessage(err)}`)] };
  }
  const base = opts.dagsDir === undefined ? { layer: null, text: '' } : await baseLayerOf(opts.dagsDir);
  if ('message' in base) return { ok: false, errors: [base] };
  const keyed = opts.sourceFile ? `${text}\n\u0000source:${opts.sourceFile}` : text;
  const key = base.layer ? `${keyed}\n\u0000base:${base.text}` : keyed;
  const cached = await cache?.get(file, key);
  if (cached) return { ok: true, ...cached };
  // Loaded on first use: a run process whose DAG comes from the cache never loads the YAML parser.
  const { parseDag } = await import('../core/dag/parseDag');
  const result = parseDag(text, {
    file,
    defaultName: dagNameFromFile(file),
    strict: opts.strict,
    base: base.layer,
    sourceFile: opts.sourceFile ?? null,
  });
  if (result.ok && cache) await cache.put(file, key, { dag: result.dag, warnings: result.warnings });
  return result;
}

/**
 * Parses `text` as the DAG file `file` of `dagsDir` would be parsed, with the directory's base config, without
 * reading or writing the file: what the console's editor checks before it saves. `strict`: `dagu validate`'s rules.
 */
export async function parseDagText(
  dagsDir: string,
  file: string,
  text: string,
  opts: { strict?: boolean } = {},
): Promise<ParseDagResult> {
  const size = Buffer.byteLength(text);
  if (size > MAX_DAG_FILE_BYTES) {
    const limit = `${MAX_DAG_FILE_BYTES} bytes`;
    return {
      ok: false,
      errors: [readError(file, `the text has ${size} bytes; a DAG file has at most ${limit}`)],
    };
  }
  const base = await baseLayerOf(dagsDir);
  if ('message' in base) return { ok: false, errors: [base] };
  const { parseDag } = await import('../core/dag/parseDag');
  return parseDag(text, { file, defaultName: dagNameFromFile(file), strict: opts.strict, base: base.layer });
}

function readError(file: string, message: string): DagError {
  return { file, line: null, column: null, field: '', message };
}
