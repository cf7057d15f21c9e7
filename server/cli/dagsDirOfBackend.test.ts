// Where a process reads DAG files from, by storage backend: the configured DAGs directory on files; on
// PostgreSQL the host's mirror of the database, where no example DAG is ever seeded.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { silentLogger } from '../core/ports';
import { withDagsDirOfBackend } from './context';
import { readBaseLayer } from '../core/dag/baseConfig';
import { DEFAULT_BASE_CONFIG } from './defaultBaseConfig';
import { initHome } from './initHome';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

function configFor(backend: 'file' | 'postgres', extra: Record<string, string> = {}) {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-dagsdir-'));
  return withDagsDirOfBackend(
    loadConfig({
      env: {
        NODE_ENV: 'test',
        DAGU_HOME: home,
        DAGU_STORAGE_BACKEND: backend,
        DAGU_POSTGRES_URL: 'postgres://x@h/db',
        ...extra,
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
    // And Dagu's default base config, as a fresh Dagu install writes it.
    expect(readFileSync(path.join(home, 'base.yaml'), 'utf8')).toBe(DEFAULT_BASE_CONFIG);
  });

  it("writes Dagu's default base.yaml only into a new home, never over one, and not with skip_examples", async () => {
    let config = configFor('file');
    writeFileSync(path.join(home, 'base.yaml'), 'max_active_steps: 2\n');
    await initHome(config, silentLogger);
    expect(readFileSync(path.join(home, 'base.yaml'), 'utf8')).toBe('max_active_steps: 2\n');
    // A home whose DAGs directory is there already is not new: nothing is added to it.
    rmSync(path.join(home, 'base.yaml'));
    await initHome(config, silentLogger);
    expect(existsSync(path.join(home, 'base.yaml'))).toBe(false);
    rmSync(home, { recursive: true, force: true });
    config = configFor('file', { DAGU_SKIP_EXAMPLES: 'true' });
    await initHome(config, silentLogger);
    expect(existsSync(path.join(home, 'base.yaml'))).toBe(false);
  });

  it("holds exactly the values Dagu's default base.yaml sets", () => {
    const r = readBaseLayer({ text: DEFAULT_BASE_CONFIG, file: 'base.yaml' });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.layer?.values).toEqual({
      type: 'graph',
      overlap_policy: 'skip',
      log_output: 'separate',
      hist_retention_days: 30,
      max_clean_up_time_sec: 5,
      max_active_steps: 10,
      max_output_size: 1048576,
      catchup_window: '6h',
    });
  });

  it('is the mirror under the data directory on PostgreSQL, and a new home gets no example DAG', async () => {
    const config = configFor('postgres');
    expect(config.paths.dags_dir).toBe(path.join(home, 'data', 'dags-mirror'));
    await initHome(config, silentLogger);
    expect(readdirSync(config.paths.dags_dir)).toEqual([]);
    expect(existsSync(path.join(home, 'base.yaml'))).toBe(false);
    // The configured directory is not the one read: nothing is created or deleted there.
    expect(existsSync(path.join(home, 'dags'))).toBe(false);
  });
});
