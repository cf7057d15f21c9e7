// Dagu's `-N/--name`: a run of a DAG file under another DAG name. The run is recorded, listed and queued
// under that name (its default queue is the name, as for any DAG), and its record keeps the file it came
// from (`dag_file`), so that retry, restart, resume and a queued start find the definition again: no DAG
// file has the new name.

import type { Config } from '../config/types';
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

/** The DAG a run was started from: its file under the run's name when it was renamed, else by name. */
export async function loadRunDag(
  config: Config,
  run: Pick<RunStatus, 'dag_name' | 'dag_file'>,
): Promise<DagSpec> {
  if (!run.dag_file) return loadDagOrThrow(config, run.dag_name);
  return overrideDagName(await loadDagOrThrow(config, run.dag_file), run.dag_name);
}
