// The DAG definitions of the configured backend, for a command that reads or writes them: the DAGs
// directory on files, the database on PostgreSQL (a pool opened here, its schema checked, closed by the
// caller). A backend that cannot be used is a configuration error: exit 2 with its reason.

import type { Config } from '../config/types';
import type { Logger } from '../core/ports';
import type { DagDefinitions } from '../store/dagDefinitions';
import { FileDagDefinitions } from '../store/fileDagDefinitions';
import { UsageError } from './exit';

export interface OpenedDagDefinitions {
  store: DagDefinitions;
  /** Where they are, for messages: the directory, or the database URL (without its password) and schema. */
  where: string;
  close(): Promise<void>;
}

export async function openDagDefinitions(
  config: Config,
  logger: Logger,
  by: string,
): Promise<OpenedDagDefinitions> {
  if (config.storage.backend !== 'postgres') {
    return {
      store: new FileDagDefinitions(config.paths.dags_dir),
      where: config.paths.dags_dir,
      close: async () => {},
    };
  }
  const { openPgPool, StorageConfigError } = await import('../store/postgres/connect');
  const { PgDagDefinitions } = await import('../store/postgres/pgDagDefinitions');
  try {
    const { pool, settings } = await openPgPool(config, {
      by,
      onPoolError: (err) => logger.warn('A PostgreSQL connection failed', { error: err.message }),
    });
    return {
      store: new PgDagDefinitions(pool, settings.schema),
      where: `${settings.safeUrl} (schema ${settings.schema})`,
      close: () => pool.end(),
    };
  } catch (err) {
    if (err instanceof StorageConfigError) throw new UsageError(err.message);
    throw err;
  }
}
