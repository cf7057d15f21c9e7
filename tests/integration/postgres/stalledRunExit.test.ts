// A run process on PostgreSQL whose database stalls (SIGSTOP) while it runs: its statements time out on
// the client, so it gives up on its final status within its budget and exits, instead of waiting for the
// database for as long as the stall lasts. The dead-run check waits that budget out before judging it.

import { afterEach, describe, expect, it } from 'vitest';
import { finalStatusBudgetMs } from '../../../server/runner/finalStatusBudget';
import { loadConfig } from '../../../server/config/loadConfig';
import { eventually, startService, tempHome, type Service } from '../harness';
import { usePostgres } from './pgTestCluster';
import { startTcpProxy } from './tcpProxy';

const pg = usePostgres();
const cleanups: Array<() => Promise<void> | void> = [];
let frozen = false;

afterEach(async () => {
  if (frozen) await pg().cluster.thaw();
  frozen = false;
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves with the exit code once `svc` exits, or 'still running' after `timeoutMs`. */
function exitWithin(svc: Service, timeoutMs: number): Promise<number | null | 'still running'> {
  if (svc.child.exitCode !== null) return Promise.resolve(svc.child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), timeoutMs);
    svc.child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe('a run process on PostgreSQL when the database stalls', () => {
  it('gives up its final status within its budget and exits while the database is still stalled', async () => {
    const schema = `stalled_${process.pid}`;
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: schema,
      DAGU_POSTGRES_CONNECT_TIMEOUT: '1s',
      DAGU_SKIP_EXAMPLES: 'true',
    });
    cleanups.push(() => h.cleanup());
    h.writeDag('slow', 'steps:\n  - name: a\n    command: sleep 1\n');
    const config = loadConfig({ env: h.env });
    // 3 s of logs, 3 s of final-status tries, two statements of 1 s connect + 2 s each: 12 s.
    const budgetMs = finalStatusBudgetMs(config);
    expect(budgetMs).toBe(12_000);

    const run = startService(['start', 'slow'], h.env);
    cleanups.push(() => void run.stop('SIGKILL'));
    // Frozen once its process has written `running`: its step, and its end, fall in the stall.
    await eventually(
      async () => {
        const r = await pg().pool.query(
          `select 1 from ${schema}.runs where dag_name = 'slow' and status = 'running'`,
        );
        return (r.rowCount ?? 0) > 0 ? true : null;
      },
      20_000,
      50,
    );
    await pg().cluster.freeze();
    frozen = true;
    const frozenAt = Date.now();

    // The step (1 s) and the budget, with room for a loaded machine; the database stays frozen throughout.
    const code = await exitWithin(run, 1000 + budgetMs + 8000);
    const exitedAfterMs = Date.now() - frozenAt;
    expect(code, `the run process's output:\n${run.output()}`).not.toBe('still running');
    expect(code).not.toBe(0);
    expect(exitedAfterMs).toBeGreaterThanOrEqual(1000);
    expect(run.output()).toMatch(/Gave up writing the final status/);

    await pg().cluster.thaw();
    frozen = false;
    // Its end never reached the database: the run is left `running`, for the dead-run check to judge.
    const r = await pg().pool.query<{ status: string }>(
      `select status from ${schema}.runs where dag_name = 'slow'`,
    );
    expect(r.rows.map((x) => x.status)).toEqual(['running']);
  });

  it('gives up its final status within its budget and exits when it is cut off (a proxy that goes silent)', async () => {
    const schema = `cutoff_${process.pid}`;
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: pg().cluster.port });
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(pg().cluster.url);
    viaProxy.port = String(proxy.port);
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: schema,
      DAGU_POSTGRES_CONNECT_TIMEOUT: '1s',
      DAGU_SKIP_EXAMPLES: 'true',
    });
    cleanups.push(() => h.cleanup());
    h.writeDag('slow', 'steps:\n  - name: a\n    command: sleep 1\n');
    const budgetMs = finalStatusBudgetMs(loadConfig({ env: h.env }));

    const run = startService(['start', 'slow'], { ...h.env, DAGU_POSTGRES_URL: viaProxy.toString() });
    cleanups.push(() => void run.stop('SIGKILL'));
    await eventually(
      async () => {
        const r = await pg().pool.query(
          `select 1 from ${schema}.runs where dag_name = 'slow' and status = 'running'`,
        );
        return (r.rowCount ?? 0) > 0 ? true : null;
      },
      20_000,
      50,
    );
    proxy.blackhole();

    const code = await exitWithin(run, 1000 + budgetMs + 8000);
    expect(code, `the run process's output:\n${run.output()}`).not.toBe('still running');
    expect(code).not.toBe(0);
    // No transaction of it holds the run's row: the dead-run check can write its verdict.
    const r = await pg().pool.query<{ status: string }>(
      `update ${schema}.runs set summary = summary where dag_name = 'slow' returning status`,
    );
    expect(r.rows.map((x) => x.status)).toEqual(['running']);
  });
});
