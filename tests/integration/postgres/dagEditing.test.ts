// The console's DAG editor on PostgreSQL, with the real `dagu server` on two homes that share only the
// database: a save on one host is in the database and in the other host's DAGs directory within moments,
// and a save from a version that is no longer current is refused (409) by the database's check.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dagu, eventually, freePort, startService, tempHome, type Service, type TempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const cluster = usePostgres();
let url: string;
beforeAll(async () => {
  url = await cluster().cluster.createDatabase('dag_editing');
});

const services: Service[] = [];
const homes: TempHome[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop()));
  for (const h of homes.splice(0)) h.cleanup();
});

function pgHome(): TempHome {
  const h = tempHome({ DAGU_STORAGE_BACKEND: 'postgres', DAGU_POSTGRES_URL: url });
  homes.push(h);
  return h;
}

async function startServer(h: TempHome): Promise<string> {
  const port = await freePort();
  const server = startService(['server', '--host', '127.0.0.1', '--port', String(port)], h.env);
  services.push(server);
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`${base}/api/v1/health`).catch(() => null))?.ok, 60_000, 200);
  return base;
}

function save(base: string, yaml: string, baseVersion: string): Promise<Response> {
  return fetch(`${base}/api/v1/dags/etl/spec`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base },
    body: JSON.stringify({ yaml, base_version: baseVersion }),
  });
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

describe('the DAG editor on PostgreSQL, two hosts', () => {
  it('saves into the database, reaches the other host, and refuses a save from a stale version', async () => {
    const one = pgHome();
    const two = pgHome();
    const repo = path.join(one.home, 'repo');
    mkdirSync(repo);
    writeFileSync(path.join(repo, 'etl.yaml'), 'steps:\n  - name: a\n    run: echo a\n');
    expect((await dagu(['dags', 'push', repo], one.env)).code).toBe(0);
    const [first, second] = await Promise.all([startServer(one), startServer(two)]);

    const loaded = (await (await fetch(`${second}/api/v1/dags/etl/spec`)).json()) as { version: string };
    const next = 'steps:\n  - name: b\n    run: echo b\n';
    const saved = await save(first, next, loaded.version);
    expect(saved.status).toBe(200);
    expect(await cluster().cluster.psql('select name, updated_by from dagu.dags', 'dag_editing')).toBe(
      'etl|console',
    );
    const mirrored = path.join(two.home, 'data', 'dags-mirror', 'etl.yaml');
    await eventually(() => readOrEmpty(mirrored) === next, 20_000);

    // The second host's editor still has the version it loaded before the save: refused, with what won.
    const stale = await save(second, `${next}# mine\n`, loaded.version);
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { yaml: string } }).current.yaml).toBe(next);
    expect(readOrEmpty(mirrored)).toBe(next);
  });
});
