// Finds and loads DAG files: `<dagsDir>/*.yaml|*.yml`, by DAG name or by path. Parsing is core's
// `parseDag`; this module only turns names into paths (validated first) and reads files.

import path from 'node:path';
import { assertDagName } from '../core/names';
import type { DagSpec } from '../core/types';
import type { DagError } from '../core/dag/dagError';
import { dagNameFromFile } from '../core/dag/dagName';
import type { ParseDagResult } from '../core/dag/parseDag';
import type { DagSpecCache } from './dagSpecCache';
import * as fs from './fileCalls';
import { errorCode, errorMessage, readTextFile, readdirOrEmpty } from './fsutil';

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
    const result = await loadDagFile(path.resolve(nameOrPath), opts);
    const bareFileName = !nameOrPath.includes('/');
    return 'notFound' in result && bareFileName
      ? loadDagFile(path.resolve(dagsDir, nameOrPath), opts)
      : result;
  }
  return loadDagByName(dagsDir, nameOrPath, opts);
}

export interface LoadDagOptions {
  /** Parses of unchanged files to reuse, and where to keep new ones (see dagSpecCache.ts). */
  cache?: DagSpecCache;
  /** Apply `dagu validate`'s stricter document rules (see ParseDagOptions.strict); never cached. */
  strict?: boolean;
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
    const result = await loadDagFile(path.resolve(dagsDir, name + ext), opts);
    if (!('notFound' in result)) return result;
  }
  // A file may declare a `name:` other than its stem.
  const declared = (await loadAllDags(dagsDir)).find(({ result }) => result.ok && result.dag.name === name);
  return declared ? declared.result : { ok: false, notFound: true };
}

/** Every DAG file of `dagsDir` with its parse result, sorted by file name. */
export async function loadAllDags(dagsDir: string): Promise<DagFileResult[]> {
  const files = await listDagFiles(dagsDir);
  return Promise.all(
    files.map(async (entry) => {
      const result = await loadDagFile(entry.file);
      // The file was listed a moment ago; if it vanished since, report that as its error.
      const parsed: ParseDagResult =
        'notFound' in result
          ? { ok: false, errors: [readError(entry.file, 'the file was removed')] }
          : result;
      return { ...entry, result: parsed };
    }),
  );
}

async function loadDagFile(file: string, opts: LoadDagOptions = {}): Promise<LoadDagResult> {
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
  const cached = await cache?.get(file, text);
  if (cached) return { ok: true, ...cached };
  // Loaded on first use: a run process whose DAG comes from the cache never loads the YAML parser.
  const { parseDag } = await import('../core/dag/parseDag');
  const result = parseDag(text, { file, defaultName: dagNameFromFile(file), strict: opts.strict });
  if (result.ok && cache) await cache.put(file, text, { dag: result.dag, warnings: result.warnings });
  return result;
}

function readError(file: string, message: string): DagError {
  return { file, line: null, column: null, field: '', message };
}
