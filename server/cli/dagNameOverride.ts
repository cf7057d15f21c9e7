// Dagu's `-N/--name`: a run of a DAG file under another DAG name. The run is recorded, listed and queued
// under that name (its default queue is the name, as for any DAG), and its record keeps the file it came
// from (`dag_file`), so that retry, restart, resume and a queued start find the definition again: no DAG
// file has the new name.

import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/types';
import { writeLocalDagCopy } from '../runner/subDagTarget';
import { UsageError } from './exit';
import { renamedDag } from '../core/dag/dagName';
import { assertDagName } from '../core/names';
import type { DagSpec, RunStatus } from '../core/types';
import { loadDagOrThrow } from './loadDagOrThrow';

/** `dag` under `name`; an invalid name throws InvalidNameError (exit 2). */
export function overrideDagName(dag: DagSpec, name: string): DagSpec {
  return renamedDag(dag, assertDagName(name));
}

/** What a run's record keeps of a renamed DAG: the definition's file, or the word it was loaded by. */
export function dagFileOf(dag: DagSpec, loadedBy: string): string {
  return dag.file ?? loadedBy;
}

/**
 * The DAG a run was started from: its file under the run's name when it was renamed; for a local DAG, its
 * document of the file it was written in; else by name.
 */
export async function loadRunDag(
  config: Config,
  run: Pick<RunStatus, 'dag_name' | 'dag_file' | 'local_dag_file'>,
): Promise<DagSpec> {
  if (run.local_dag_file) return loadLocalDag(config, run.local_dag_file, run.dag_name);
  if (!run.dag_file) return loadDagOrThrow(config, run.dag_name);
  return overrideDagName(await loadDagOrThrow(config, run.dag_file), run.dag_name);
}

/**
 * Document `name` of `file` (with the file's other local DAGs, which it may call), as a call step runs it:
 * from a temp copy whose relative paths start at `file`. The copy stays until this process exits, since the
 * run's own call steps read it.
 */
async function loadLocalDag(config: Config, file: string, name: string): Promise<DagSpec> {
  let copy: string;
  try {
    copy = await writeLocalDagCopy(file, name);
  } catch (err) {
    throw new UsageError(`local DAG ${name} cannot be loaded: ${(err as Error).message}`);
  }
  process.once('exit', () => rmSync(path.dirname(copy), { recursive: true, force: true }));
  return loadDagOrThrow(config, copy, { sourceFile: file });
}
