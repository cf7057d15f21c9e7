// The runs of a run host on PostgreSQL share the host's connections. Each hosted run loads the configuration
// anew, and each used to open a pool of its own: a burst of runs opened one connection per run at the same
// moment, and on a server whose max_connections was lower than the burst the runs past it failed ("sorry,
// too many clients already"). Here the server allows 20 connections and one host runs 30 runs.

import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostAssignment } from '../../../server/runner/runHostCommand';
import { RUN_HOST_COMMAND } from '../../../server/runner/runHostCommand';
import { DAGU, dagu, tempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres({ maxConnections: 20, poolSize: 2 });
const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups) c();
});

/** Runs `dagu __run-host <hostLog>` with `assignment` on stdin; resolves with its exit code. */
function runHost(
  hostLog: string,
  assignment: HostAssignment,
  env: NodeJS.ProcessEnv,
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DAGU, RUN_HOST_COMMAND, hostLog], {
      env,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.stdin.end(`${JSON.stringify(assignment)}\n`);
  });
}

describe('a run host on PostgreSQL', () => {
  it('runs 30 runs on a server that allows 20 connections: its runs share a few', async () => {
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: 'host_pool',
      DAGU_SKIP_EXAMPLES: 'true',
    });
    cleanups.push(() => h.cleanup());
    h.writeDag('d', 'steps:\n  - name: s\n    command: echo hosted\n');
    const pushed = await dagu(['dags', 'push', path.join(h.home, 'dags')], h.env);
    expect(pushed.code, pushed.stderr).toBe(0);
    const logs = path.join(h.home, 'logs', 'hosted');
    mkdirSync(logs, { recursive: true });
    const runs = Array.from({ length: 30 }, (_, i) => ({
      dag: 'd',
      runId: `hosted-${String(i).padStart(2, '0')}`,
      triggerType: 'scheduler',
      scheduleTime: null,
      name: null,
      processLog: path.join(logs, `run-${i}.log`),
    }));
    expect(await runHost(path.join(logs, 'host.log'), { runs }, h.env)).toBe(0);

    const rows = await pg().pool.query<{ run_id: string; status: string }>(
      'select run_id, status from host_pool.runs order by run_id',
    );
    const problems = runs
      .map((r, i) => ({ r, i, row: rows.rows.find((x) => x.run_id === r.runId) }))
      .filter(({ row }) => row?.status !== 'succeeded')
      .map(
        ({ r, i, row }) =>
          `${r.runId}: ${row?.status ?? 'no run'}: ${readFileSync(runs[i].processLog, 'utf8')}`,
      );
    expect(problems).toEqual([]);
  }, 90_000);
});
