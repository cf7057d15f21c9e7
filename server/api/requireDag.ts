// Loads a DAG by name for an operation: a missing DAG is a 404, an invalid one a 400 naming its first errors.

import { assertDagName } from '../core/names';
import { formatDagError } from '../core/dag/dagError';
import type { DagSpec } from '../core/types';
import { loadDagByName } from '../store/dagCatalog';
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
