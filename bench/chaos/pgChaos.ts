// The database side of the soak on PostgreSQL (storage.backend: postgres): a throwaway PostgreSQL, the
// product's schema migrated and the soak's witness of run inserts added, the soak's DAGs pushed as an
// operator would (once a scheduler is active: see pushDags), and one TCP proxy per scheduler so a fault can cut that one scheduler off (its run
// processes inherit its URL, and so its road to the database, as on a real host). Every member has a home of
// its own: the processes share nothing but the database.

import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { applyMigrations } from '../../server/store/postgres/schemaVersion';
import { startPostgresCluster, type PostgresCluster } from '../../server/testing/postgresCluster';
import { startTcpProxy, type TcpProxy } from '../../tests/integration/postgres/tcpProxy';
import { instrumentRunInserts, pgRecords } from './pgRecords';
import type { SoakRecords } from './records';

const run = promisify(execFile);
const SCHEMA = 'chaos';

export interface PgChaos {
  cluster: PostgresCluster;
  /** The soak's own pool, straight to the server (never through a proxy). */
  pool: pg.Pool;
  records: SoakRecords;
  /** Each scheduler's proxy, by member name. */
  proxies: ReadonlyMap<string, TcpProxy>;
  /** The home of a member. */
  homeOf(member: string): string;
  /** What a member's environment adds to the soak's: its home, the backend, its road to the database. */
  envOf(member: string): Record<string, string>;
  /**
   * Pushes the soak's DAGs. A first acquisition on a new installation replays each DAG's catch-up window
   * (a minute of every-few-seconds slots, 20 s and more of queued runs); DAGs that arrive after it have no
   * missed slots, and the soak starts that much sooner. Its window opens later anyway.
   */
  pushDags(): Promise<void>;
  close(): Promise<void>;
}

export async function startPgChaos(o: {
  root: string;
  /** The soak's launcher (bin/dagu) and the environment its processes share. */
  dagu: string;
  env: NodeJS.ProcessEnv;
  schedulers: readonly string[];
  /** The DAG files to push: file name -> YAML. */
  dags: ReadonlyMap<string, string>;
}): Promise<PgChaos> {
  // Commits acknowledged before an immediate stop must survive it, as on any production server: a test
  // cluster's asynchronous commit lost a slot's run record that way, and its successor ran the slot again.
  const cluster = await startPostgresCluster({ synchronousCommit: true });
  const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  // A restart of the server drops the pool's idle connections: the next query opens new ones.
  pool.on('error', () => undefined);
  const proxies = new Map<string, TcpProxy>();
  const close = async () => {
    await Promise.allSettled([...proxies.values()].map((p) => p.close()));
    await pool.end().catch(() => undefined);
    await cluster.stop();
  };
  try {
    // Migrated before any member starts, so the witness is in place before the first run is inserted.
    const client = await pool.connect();
    try {
      await applyMigrations(client, SCHEMA, { by: 'chaos soak' });
    } finally {
      client.release();
    }
    await instrumentRunInserts(pool, SCHEMA);
    for (const name of o.schedulers)
      proxies.set(name, await startTcpProxy({ host: '127.0.0.1', port: cluster.port }));
    const homeOf = (member: string) => path.join(o.root, 'homes', member);
    const envOf = (member: string): Record<string, string> => {
      const proxy = proxies.get(member);
      const url = new URL(cluster.url);
      if (proxy) url.port = String(proxy.port);
      return {
        DAGU_HOME: homeOf(member),
        DAGU_STORAGE_BACKEND: 'postgres',
        DAGU_POSTGRES_URL: url.toString(),
        DAGU_POSTGRES_SCHEMA: SCHEMA,
        DAGU_SKIP_EXAMPLES: 'true',
      };
    };
    const repo = path.join(o.root, 'dag-repo');
    mkdirSync(repo, { recursive: true });
    for (const [file, text] of o.dags) writeFileSync(path.join(repo, file), text);
    mkdirSync(homeOf('operator'), { recursive: true });
    const pushDags = async () => {
      await run(process.execPath, [o.dagu, 'dags', 'push', repo], {
        env: { ...o.env, ...envOf('operator') },
        timeout: 60_000,
      });
    };
    return { cluster, pool, records: pgRecords(pool, SCHEMA), proxies, homeOf, envOf, pushDags, close };
  } catch (err) {
    await close();
    throw err;
  }
}
