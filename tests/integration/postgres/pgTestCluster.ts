// One throwaway PostgreSQL cluster per test file: started in beforeAll, with a pool on it and (when a schema
// is named) the product's migrations applied there; pool closed and cluster removed in afterAll.

import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { nameStatements } from '../../../server/store/postgres/namedStatements';
import { applyMigrations } from '../../../server/store/postgres/schemaVersion';
import {
  startPostgresCluster,
  type PostgresCluster,
  type PostgresClusterOptions,
} from '../../../server/testing/postgresCluster';

export interface PgTestCluster {
  cluster: PostgresCluster;
  pool: pg.Pool;
  /** Applies the migrations to `schema`, as a host starting against an empty database does. */
  migrate(schema: string): Promise<void>;
}

export function usePostgres(
  opts: { schema?: string; poolSize?: number } & PostgresClusterOptions = {},
): () => PgTestCluster {
  let state: PgTestCluster | null = null;
  beforeAll(async () => {
    const cluster = await startPostgresCluster({
      synchronousCommit: opts.synchronousCommit,
      maxConnections: opts.maxConnections,
    });
    const pool = new pg.Pool({ connectionString: cluster.url, max: opts.poolSize ?? 12 });
    pool.on('error', () => undefined);
    // As the product's pools do by default (storage.postgres.named_statements).
    nameStatements(pool);
    const migrate = async (schema: string) => {
      const c = await pool.connect();
      try {
        await applyMigrations(c, schema, { by: 'test' });
      } finally {
        c.release();
      }
    };
    state = { cluster, pool, migrate };
    if (opts.schema) await migrate(opts.schema);
  }, 120_000);
  afterAll(async () => {
    await state?.pool.end();
    await state?.cluster.stop();
  });
  return () => {
    if (!state) throw new Error('the PostgreSQL test cluster is not started (use it inside a test)');
    return state;
  };
}
