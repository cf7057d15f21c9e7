// Loads a DAG by name or file for a command, turning "not found" and validation errors into one usage error.

import type { Config } from '../config/types';
import { formatDagError } from '../core/dag/dagError';
import type { DagSpec } from '../core/types';
import { loadDag } from '../store/dagCatalog';
import { FileDagSpecCache } from '../store/dagSpecCache';
import { BUILD_ID } from './buildId';
import { UsageError } from './exit';

export async function loadDagOrThrow(config: Config, nameOrFile: string): Promise<DagSpec> {
  // A built CLI reuses the parse of an unchanged DAG file (store/dagSpecCache.ts).
  const cache =
    BUILD_ID === null ? undefined : new FileDagSpecCache({ dir: dagCacheDir(config), build: BUILD_ID });
  const r = await loadDag(config.paths.dags_dir, nameOrFile, { cache });
  if (r.ok) return r.dag;
  if ('notFound' in r)
    throw new UsageError(`DAG ${JSON.stringify(nameOrFile)} not found in ${config.paths.dags_dir}`);
  const [first, ...rest] = r.errors;
  throw new UsageError(
    `${formatDagError(first)}${rest.length > 0 ? ` (and ${rest.length} more; see dagu validate)` : ''}`,
  );
}

/** Where the CLI keeps validated DAG files: `<data>/cache/dags`. */
function dagCacheDir(config: Config): string {
  return `${config.paths.data_dir}/cache/dags`;
}
