// A run process on PostgreSQL whose database stalls (SIGSTOP) while it runs: its statements time out on
// the client, so it gives up on its final status within its budget and exits, instead of waiting for the
// database for as long as the stall lasts. The dead-run check waits that budget out before judging it.

import { afterEach, describe, expect, it } from 'vitest';
import { finalStatusBudgetMs } from '../../../server/runner/finalStatusBudget';
import { loadConfig } from '../../../server/config/loadConfig';
import { eventually, startService, tempHome, type Service } from '../harness';
import { usePostgres } from './pgTestCluster';
import { startTcpProxy, type TcpProxy } from './tcpProxy';

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

/** How the run process loses the database once it runs, and how the test gets the database back after. */
interface Cutoff {
  /** The URL the run process reaches the database through. */
  url(): Promise<string>;
  cut(): Promise<void>;
  /** Undoes `cut` for the test's own connections (not the run process's). */
  heal(): Promise<void>;
}

/** The server stalls (SIGSTOP): the run process's connections stay open and nothing answers. */
function stall(): Cutoff {
  return {
    url: async () => pg().cluster.url,
    cut: async () => {
      await pg().cluster.freeze();
      frozen = true;
    },
    heal: async () => {
      await pg().cluster.thaw();
      frozen = false;
    },
  };
}

/** A proxy between the run process and the server goes silent; the server itself stays up. */
function silentProxy(): Cutoff {
  let proxy: TcpProxy | null = null;
  return {
    url: async () => {
      const p = await startTcpProxy({ host: '127.0.0.1', port: pg().cluster.port });
      proxy = p;
      cleanups.push(() => p.close());
      const viaProxy = new URL(pg().cluster.url);
      viaProxy.port = String(p.port);
      return viaProxy.toString();
    },
    cut: async () => proxy?.blackhole(),
    heal: async () => undefined,
  };
}

/**
 * Starts a run whose step takes 1 s, cuts it off from the database once it has written `running`, and
 * checks that it gives up its final status within its budget and exits, leaving its row `running` and free.
 */
async function givesUpAndExits(schemaPrefix: string, fault: Cutoff): Promise<void> {
  const schema = `${schemaPrefix}_${process.pid}`;
  const runUrl = await fault.url();
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

  const run = startService(['start', 'slow'], { ...h.env, DAGU_POSTGRES_URL: runUrl });
  cleanups.push(() => void run.stop('SIGKILL'));
  // Cut off once its process has written `running`: its step, and its end, fall in the fault.
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
  await fault.cut();
  const cutAt = Date.now();

  // The step (1 s) and the budget, with room for a loaded machine; the fault lasts throughout.
  const code = await exitWithin(run, 1000 + budgetMs + 8000);
  const exitedAfterMs = Date.now() - cutAt;
  expect(code, `the run process's output:\n${run.output()}`).not.toBe('still running');
  expect(code).not.toBe(0);
  expect(exitedAfterMs).toBeGreaterThanOrEqual(1000);
  expect(run.output()).toMatch(/Gave up writing the final status/);

  await fault.heal();
  // Its end never reached the database: the run is left `running`, for the dead-run check to judge. No
  // transaction of it holds the run's row: the dead-run check can write its verdict.
  const r = await pg().pool.query<{ status: string }>(
    `update ${schema}.runs set summary = summary where dag_name = 'slow' returning status`,
  );
  expect(r.rows.map((x) => x.status)).toEqual(['running']);
}

describe('a run process on PostgreSQL when the database stalls', () => {
  it('gives up its final status within its budget and exits while the database is still stalled', () =>
    givesUpAndExits('stalled', stall()));

  it('gives up its final status within its budget and exits when it is cut off (a proxy that goes silent)', () =>
    givesUpAndExits('cutoff', silentProxy()));
});
