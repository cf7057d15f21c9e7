// Where a process reads DAG files from, by storage backend: the configured DAGs directory on files; on
// PostgreSQL the host's mirror of the database, where no example DAG is ever seeded.

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { silentLogger } from '../core/ports';
import { withDagsDirOfBackend } from './context';
import { initHome } from './initHome';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

function configFor(backend: 'file' | 'postgres') {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-dagsdir-'));
  return withDagsDirOfBackend(
    loadConfig({
      env: {
        NODE_ENV: 'test',
        DAGU_HOME: home,
        DAGU_STORAGE_BACKEND: backend,
        DAGU_POSTGRES_URL: 'postgres://x@h/db',
      },
    }),
  );
}

describe('the DAGs directory of a backend', () => {
  it('is paths.dags_dir on files, with the example DAGs seeded in a new home', async () => {
    const config = configFor('file');
    expect(config.paths.dags_dir).toBe(path.join(home, 'dags'));
    await initHome(config, silentLogger);
    expect(readdirSync(config.paths.dags_dir).length).toBeGreaterThan(0);
  });

  it('is the mirror under the data directory on PostgreSQL, and a new home gets no example DAG', async () => {
    const config = configFor('postgres');
    expect(config.paths.dags_dir).toBe(path.join(home, 'data', 'dags-mirror'));
    await initHome(config, silentLogger);
    expect(readdirSync(config.paths.dags_dir)).toEqual([]);
    // The configured directory is not the one read: nothing is created or deleted there.
    expect(existsSync(path.join(home, 'dags'))).toBe(false);
  });
});
