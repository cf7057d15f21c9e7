// Working directories of a run, as Dagu 2.x has them: a DAG without `working_dir` runs its steps in a
// per-run work directory under the data directory (created per run and kept), and a step's relative
// `working_dir` is taken from the DAG's directory and created when missing.

import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { assertDagName, assertRunId } from '../core/names';
import * as files from '../store/fileCalls';

/** `<data dir>/dag-run-work/<dag>/<run id>/root`: one per run, shared by its attempts. */
export function runWorkDirPath(dataDir: string, dagName: string, runId: string): string {
  return join(dataDir, 'dag-run-work', assertDagName(dagName), assertRunId(runId), 'root');
}

/** `~` and `~/x` with the home directory (from `home`, else the OS's); other paths as given. */
export function expandHome(path: string, home: string | undefined): string {
  if (path !== '~' && !path.startsWith('~/')) return path;
  return join(home && home !== '' ? home : homedir(), path.slice(1));
}

/**
 * The directory a step runs in: its own `working_dir` (already value-resolved) taken from `dagDir` when
 * relative, or `dagDir` when it has none.
 */
export function stepDirPath(dagDir: string, stepDir: string | null, home: string | undefined): string {
  if (stepDir === null || stepDir.trim() === '') return dagDir;
  const expanded = expandHome(stepDir, home);
  return isAbsolute(expanded) ? expanded : resolve(dagDir, expanded);
}

/** Creates `dir` (and its parents) when missing; resolves to an error text when it cannot be made a directory. */
export async function ensureDir(dir: string): Promise<string | null> {
  try {
    await files.mkdir(dir, true);
    return (await files.stat(dir)).isDirectory() ? null : `${JSON.stringify(dir)} is not a directory`;
  } catch (err) {
    return `cannot create working directory ${JSON.stringify(dir)}: ${(err as Error).message}`;
  }
}

/** What a run's `artifact.*` steps and artifact outputs reach: its artifacts directory, or why it has none. */
export type ArtifactsAccess = { dir: string } | { dir: null; reason: string };

/** `<data dir>/runs/<run id>/artifacts`: in the run's own data directory, so it goes when the run is removed. */
export function runArtifactsDirPath(dataDir: string, runId: string): string {
  return join(dataDir, 'runs', assertRunId(runId), 'artifacts');
}
