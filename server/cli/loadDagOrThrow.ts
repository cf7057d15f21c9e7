// Loads a DAG by name or file for a command, turning "not found" and validation errors into one usage error.

import type { Config } from '../config/types';
import { formatDagError } from '../core/dag/parseDag';
import type { DagSpec } from '../core/types';
import { loadDag } from '../store/dagCatalog';
import { UsageError } from './exit';

export async function loadDagOrThrow(config: Config, nameOrFile: string): Promise<DagSpec> {
  const r = await loadDag(config.paths.dags_dir, nameOrFile);
  if (r.ok) return r.dag;
  if ('notFound' in r)
    throw new UsageError(`DAG ${JSON.stringify(nameOrFile)} not found in ${config.paths.dags_dir}`);
  const [first, ...rest] = r.errors;
  throw new UsageError(
    `${formatDagError(first)}${rest.length > 0 ? ` (and ${rest.length} more; see dagu validate)` : ''}`,
  );
}
