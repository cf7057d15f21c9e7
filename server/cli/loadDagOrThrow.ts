// Loads a DAG by name or file for a command, turning "not found" and validation errors into one usage error.

import type { Config } from '../config/types';
import { formatDagError } from '../core/dag/dagError';
import type { DagSpec } from '../core/types';
import { loadDag } from '../store/dagCatalog';
import { redactUrl } from '../store/postgres/redactUrl';
import { FileDagSpecCache, type DagSpecCache } from '../store/dagSpecCache';
import { BUILD_ID } from './buildId';
import { UsageError } from './exit';

export async function loadDagOrThrow(
  config: Config,
  nameOrFile: string,
  opts: { sourceFile?: string } = {},
): Promise<DagSpec> {
  const r = await loadDag(config.paths.dags_dir, nameOrFile, { cache: cliDagSpecCache(config), ...opts });
  if (r.ok) return r.dag;
  if ('notFound' in r)
    throw new UsageError(`DAG ${JSON.stringify(nameOrFile)} not found in ${dagsWhere(config)}`);
  const [first, ...rest] = r.errors;
  throw new UsageError(
    `${formatDagError(first)}${rest.length > 0 ? ` (and ${rest.length} more; see dagu validate)` : ''}`,
  );
}

/**
 * Where the DAGs a command looks up by name are, for its messages: the DAGs directory; on PostgreSQL the
 * database, whose local copy (the directory the command reads) is dagu's own, not a place to put a file.
 */
export function dagsWhere(config: Config): string {
  const pg = config.storage.postgres;
  return config.storage.backend === 'postgres' && pg.url !== null
    ? `the DAG definitions of ${redactUrl(pg.url)} (schema ${pg.schema})`
    : config.paths.dags_dir;
}

/**
 * The parses of unchanged DAG files a built CLI reuses (store/dagSpecCache.ts): run processes read them, and
 * the scheduler writes them as it loads changed files. None when running from source (no build to tell apart).
 */
export function cliDagSpecCache(config: Config): DagSpecCache | undefined {
  return BUILD_ID === null ? undefined : new FileDagSpecCache({ dir: dagCacheDir(config), build: BUILD_ID });
}

/** Where the CLI keeps validated DAG files: `<data>/cache/dags`. */
function dagCacheDir(config: Config): string {
  return `${config.paths.data_dir}/cache/dags`;
}
