// DAGs that live only in PostgreSQL, end to end with the real bin/dagu: an operator pushes a folder from one
// home, and a scheduler on another home, whose DAGs directory holds nothing, runs the DAG; a second push
// changes what it runs, and a push --delete of an empty folder takes the DAG away from that host.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dagu, eventually, freePort, startService, tempHome, type Service, type TempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const cluster = usePostgres();
let url: string;
beforeAll(async () => {
  url = await cluster().cluster.createDatabase('dags_scheduler');
});

const homes: TempHome[] = [];
const services: Service[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.stop()));
  for (const h of homes.splice(0)) h.cleanup();
});

function pgHome(): TempHome {
  const h = tempHome({ DAGU_STORAGE_BACKEND: 'postgres', DAGU_POSTGRES_URL: url, DAGU_SKIP_EXAMPLES: '1' });
  homes.push(h);
  return h;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

describe('a scheduler on a home with no DAG files, on PostgreSQL', () => {
  it('runs the DAGs pushed from another home, follows a change, and drops a deleted DAG', async () => {
    const operator = pgHome();
    const host = pgHome();
    const out = path.join(host.home, 'out.txt');
    const repo = path.join(operator.home, 'repo');
    mkdirSync(repo);
    const dag = (marker: string) =>
      `schedule: "* * * * * *"\nsteps:\n  - name: mark\n    run: echo ${marker} >> ${out}\n`;
    writeFileSync(path.join(repo, 'marker.yaml'), dag('first'));
    const pushed = await dagu(['dags', 'push', repo], operator.env);
    expect(pushed.code, pushed.stderr).toBe(0);

    const scheduler = startService(['scheduler'], {
      ...host.env,
      DAGU_SCHEDULER_PORT: String(await freePort()),
    });
    services.push(scheduler);
    await scheduler.waitFor(/Acquired the free scheduler lock/, 30_000);
    const mirrored = path.join(host.home, 'data', 'dags-mirror', 'marker.yaml');
    expect(readFileSync(mirrored, 'utf8')).toBe(dag('first'));
    expect(existsSync(path.join(host.dags, 'marker.yaml'))).toBe(false);
    await eventually(() => readOrEmpty(out).includes('first'), 30_000);

    writeFileSync(path.join(repo, 'marker.yaml'), dag('second'));
    expect((await dagu(['dags', 'push', repo], operator.env)).code).toBe(0);
    await eventually(() => readOrEmpty(mirrored) === dag('second'), 20_000);
    await eventually(() => readOrEmpty(out).includes('second'), 30_000);

    const empty = path.join(operator.home, 'empty');
    mkdirSync(empty);
    const deleted = await dagu(['dags', 'push', '--delete', '--allow-empty', empty], operator.env);
    expect(deleted.stdout).toMatch(/^deleted +marker\n/);
    await eventually(() => !existsSync(mirrored), 20_000);
    await scheduler.waitFor(/Brought the local DAG files in step with the database/, 5_000);
  });
});
