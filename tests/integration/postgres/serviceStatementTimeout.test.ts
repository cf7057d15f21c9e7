// A long-running service's statements on PostgreSQL are bounded (storage.postgres.service_statement_timeout):
// a scheduler whose tick-state write waits behind a row lock another connection holds has the write cancelled
// by the server, logs the failed tick and keeps scheduling; once the lock is gone its next tick writes the
// state again. Without the bound the tick would wait for as long as the lock is held, and no slot would run.

import type { PoolClient } from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, logRecords, startService, tempHome, waitForLog, type Service } from '../harness';
import { runsOf } from './faultSupport';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const BOUND_MS = 2000;
/** How long the test holds the lock: several bounds, so that the scheduler must get past it to go on. */
const HOLD_MS = 4 * BOUND_MS;
const SLOT_MS = 2000;
const DAG = 'schedule: "*/2 * * * * *"\noverlap_policy: all\nsteps:\n  - name: a\n    command: echo ran\n';

const cleanups: Array<() => Promise<void> | void> = [];
let scheduler: Service | null = null;

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail' && scheduler) console.log(`scheduler output:\n${scheduler.output()}`);
  await scheduler?.stop('SIGKILL');
  scheduler = null;
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function lastTickMs(schema: string): Promise<number> {
  const r = await pg().pool.query<{ state: { last_tick_ms?: number } }>(
    `select state from ${schema}.scheduler_state where id = 1`,
  );
  return r.rows[0]?.state.last_tick_ms ?? 0;
}

/** The pid the scheduler lock's row names as its holder. */
async function lockHolderPid(schema: string): Promise<number | null> {
  const r = await pg().pool.query<{ pid: number }>(`select pid from ${schema}.scheduler_lease`);
  return r.rows[0]?.pid ?? null;
}

describe('a service on PostgreSQL whose statement hangs', () => {
  it('has the statement cancelled at service_statement_timeout, logs the failed tick and keeps scheduling', async () => {
    const schema = `svc_timeout_${process.pid}`;
    const h = tempHome({
      DAGU_STORAGE_BACKEND: 'postgres',
      DAGU_POSTGRES_URL: pg().cluster.url,
      DAGU_POSTGRES_SCHEMA: schema,
      DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT: `${BOUND_MS}ms`,
      DAGU_SKIP_EXAMPLES: 'true',
    });
    cleanups.push(() => h.cleanup());
    h.writeDag('tick', DAG);
    const svc = startService(['scheduler'], h.env);
    scheduler = svc;
    await waitForLog(svc, /^Acquired the free scheduler lock$/);
    // Its ticks write the state row: it exists once the first slot's tick is done.
    await eventually(async () => ((await lastTickMs(schema)) > 0 ? true : null), 20_000, 100);

    // Another connection holds the state row, as a stuck session or a long manual transaction would.
    const holder: PoolClient = await pg().pool.connect();
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await holder.query('rollback').catch(() => undefined);
      holder.release();
    };
    cleanups.push(release);
    await holder.query('begin');
    await holder.query(`select 1 from ${schema}.scheduler_state where id = 1 for update`);
    const heldAtMs = Date.now();
    const tickBefore = await lastTickMs(schema);

    // The tick's state write is cancelled by the server after the bound, and the failure is logged.
    const timedOut = () =>
      logRecords(svc.output(), /^Scheduler tick failed; retrying$/).filter(
        (l) => l.timeMs >= heldAtMs && /statement timeout/.test(String(l.fields.error)),
      );
    const first = await eventually(async () => timedOut()[0] ?? null, HOLD_MS, 100);
    expect(String(first.fields.error)).toBe('canceling statement due to statement timeout');
    expect(first.timeMs - heldAtMs).toBeGreaterThanOrEqual(BOUND_MS - 200);
    // The scheduler goes on while the row is still held: the slots due meanwhile get their runs.
    await eventually(
      async () => {
        const rows = await runsOf(pg().pool, schema, 'tick');
        return rows.some((r) => r.slotMs !== null && r.slotMs >= heldAtMs + BOUND_MS) ? true : null;
      },
      HOLD_MS,
      100,
    );
    expect(await lastTickMs(schema)).toBe(tickBefore);
    await new Promise((r) => setTimeout(r, Math.max(0, heldAtMs + HOLD_MS - Date.now())));
    // Every tick meanwhile was cut off in turn; none waited out the lock.
    expect(timedOut().length).toBeGreaterThanOrEqual(2);
    await release();
    const releasedAtMs = Date.now();

    // Once the row is free, the next tick writes the state again; the scheduler is still the active one.
    await eventually(async () => ((await lastTickMs(schema)) >= releasedAtMs ? true : null), 15_000, 100);
    expect(svc.child.exitCode).toBeNull();
    expect(await lockHolderPid(schema)).toBe(svc.child.pid);
    // No slot of the window was run twice, retried ticks and all.
    const rows = await runsOf(pg().pool, schema, 'tick');
    const slots = rows.filter((r) => r.slotMs !== null).map((r) => r.slotMs);
    expect(slots.length - new Set(slots).size, JSON.stringify(rows.map((r) => r.runId))).toBe(0);
    expect(rows.some((r) => r.slotMs !== null && r.slotMs >= releasedAtMs - SLOT_MS)).toBe(true);
  }, 90_000);
});
