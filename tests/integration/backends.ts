// The storage backends that the cross-backend suites (spec085's HA conformance, held dispatch) run on, and
// what a test needs of each: the env of a new, empty installation, and the installation's stores opened as
// any of its processes opens them (openControlPlane), so that a test reads the same through both backends.
// For postgres one throwaway cluster serves a whole test file; every installation gets a schema of its own.

import { afterAll, beforeAll } from 'vitest';
import { openControlPlane } from '../../server/cli/openControlPlane';
import { loadConfig } from '../../server/config/loadConfig';
import type { ControlPlane, StorageBackend } from '../../server/store/controlPlane';
import { RecordingLogger } from '../../server/testing/recordingLogger';
import { startPostgresCluster, type PostgresCluster } from '../../server/testing/postgresCluster';

export const BACKENDS: readonly StorageBackend[] = ['file', 'postgres'];

/** One backend as a test file uses it. */
export interface BackendUnderTest {
  readonly name: StorageBackend;
  /**
   * Env of a new, empty installation: nothing for files (each temp home is one), a fresh schema of the
   * file's cluster for postgres.
   */
  installationEnv(): Record<string, string>;
  /** Runs SQL as the superuser on the file's cluster (postgres only), for tests that play another host. */
  psql(sql: string): Promise<string>;
}

let schemas = 0;

/**
 * The backend for the tests of the calling `describe` block: for postgres it starts a cluster before them and
 * stops it after them, so call it once per file (in a `describe.each(BACKENDS)` at the top).
 */
export function useBackend(name: StorageBackend): BackendUnderTest {
  let cluster: PostgresCluster | null = null;
  if (name === 'postgres') {
    beforeAll(async () => {
      cluster = await startPostgresCluster();
    }, 120_000);
    afterAll(async () => {
      await cluster?.stop();
    });
  }
  const started = (): PostgresCluster => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started (use the backend inside a test)');
    return cluster;
  };
  return {
    name,
    installationEnv(): Record<string, string> {
      if (name === 'file') return { DAGU_STORAGE_BACKEND: 'file' };
      return {
        DAGU_STORAGE_BACKEND: 'postgres',
        DAGU_POSTGRES_URL: started().url,
        DAGU_POSTGRES_SCHEMA: `it_${process.pid}_${++schemas}`,
      };
    },
    psql(sql) {
      if (name !== 'postgres') throw new Error(`psql needs the postgres backend, not ${name}`);
      return started().psql(sql);
    },
  };
}

/** The stores of the installation an env names, opened on first use as its processes open them. */
export class InstallationStores {
  private opened: Promise<ControlPlane> | null = null;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  get(): Promise<ControlPlane> {
    this.opened ??= openControlPlane(loadConfig({ env: this.env }), new RecordingLogger());
    return this.opened;
  }

  /** Closes its connections (if it was opened at all). */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = null;
    const cp = await opened?.catch(() => null);
    await cp?.close();
  }
}
