// Loads a DAG by name for an operation: a missing DAG is a 404, an invalid one a 400 naming its first errors.

import { assertDagName } from '../core/names';
import { formatDagError } from '../core/dag/dagError';
import { renamedDag } from '../core/dag/dagName';
import type { DagSpec, RunStatus } from '../core/types';
import { loadDag, loadDagByName } from '../store/dagCatalog';
import { BadRequestError, NotFoundError } from './errors';
import type { Services } from './services';

export async function requireDag(svc: Services, name: string): Promise<DagSpec> {
  assertDagName(name);
  // By name only: `x.yaml` from a request must not read a file of the server's working directory.
  const result = await loadDagByName(svc.config.paths.dags_dir, name);
  if (result.ok) return result.dag;
  if ('notFound' in result) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  const [first, ...rest] = result.errors;
  const more = rest.length > 0 ? ` (and ${rest.length} more; see dagu validate)` : '';
  throw new BadRequestError(`DAG ${JSON.stringify(name)} is invalid: ${formatDagError(first)}${more}`);
}

/**
 * The DAG of a recorded run: by its name, or for a run started under another name (`dagu start -N`) from
 * the file its record keeps (a path this product wrote, not one from the request), under the run's name;
 * for a run of a local DAG, its document of the file it was written in.
 */
export async function requireRunDag(
  svc: Services,
  run: Pick<RunStatus, 'dag_name' | 'dag_file' | 'local_dag_file'>,
): Promise<DagSpec> {
  if (run.local_dag_file) {
    const result = await loadDag(svc.config.paths.dags_dir, run.local_dag_file);
    const local = result.ok ? result.dag.local_dags?.[run.dag_name] : undefined;
    if (local) return local;
    if (!result.ok && !('notFound' in result))
      throw new BadRequestError(
        `DAG file ${JSON.stringify(run.local_dag_file)} is invalid: ${formatDagError(result.errors[0])}`,
      );
    throw new NotFoundError(
      `local DAG ${run.dag_name} is no longer in ${JSON.stringify(run.local_dag_file)}`,
    );
  }
  if (!run.dag_file) return requireDag(svc, run.dag_name);
  const result = await loadDag(svc.config.paths.dags_dir, run.dag_file);
  if (result.ok) return renamedDag(result.dag, run.dag_name);
  if ('notFound' in result)
    throw new NotFoundError(`DAG file ${JSON.stringify(run.dag_file)} of run DAG ${run.dag_name} not found`);
  throw new BadRequestError(
    `DAG file ${JSON.stringify(run.dag_file)} is invalid: ${formatDagError(result.errors[0])}`,
  );
}
