// storage.backend: postgres end to end, on real `bin/dagu` processes and a throwaway PostgreSQL: a run is
// recorded in the database and nothing of it in the data directory; two schedulers on two homes that share
// nothing but the database elect one active, run each slot once and fail over after kill -9; a scheduler
// paused past T cannot create a run once it wakes up (its writes are refused by the database, and it exits
// non-zero); and the fence holds at the store level for every write only the active scheduler makes.

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../server/config/loadConfig';
import { systemClock, systemTimers } from '../../../server/core/clock';
import type { ControlPlane } from '../../../server/store/controlPlane';
import { LeaseFenceError } from '../../../server/store/postgres/pgSchedulerLock';
import { pgControlPlane } from '../../../server/store/postgres/pgControlPlane';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import {
  dagu,
  eventually,
  freePort,
  startService,
  tempHome,
  waitForLog,
  type Service,
  type TempHome,
} from '../harness';
import { lockRecord } from '../../../server/store/schedulerLock.contract';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const T_MS = 3000;
const R_MS = 500;

let schemaN = 0;
const homes: TempHome[] = [];
const services: Service[] = [];
const planes: ControlPlane[] = [];

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') {
    for (const s of services) console.log(`output of pid ${s.child.pid}:\n${s.output()}`);
  }
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
  await Promise.all(planes.splice(0).map((p) => p.close()));
  for (const h of homes.splice(0)) h.cleanup();
});

/** A home of its own (a host) on a fresh schema of the shared test database. */
function pgHome(schema: string, extra: Record<string, string> = {}): TempHome {
  const h = tempHome({
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: pg().cluster.url,
    DAGU_POSTGRES_SCHEMA: schema,
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${T_MS}ms`,
    DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${R_MS}ms`,
    DAGU_SKIP_EXAMPLES: 'true',
    ...extra,
  });
  homes.push(h);
  return h;
}

const newSchema = () => `backend_${process.pid}_${++schemaN}`;

async function planeOf(h: TempHome): Promise<ControlPlane> {
  const config = loadConfig({ env: h.env });
  const cp = await pgControlPlane(config, new RecordingLogger(), systemClock, {
    by: 'test',
    timers: systemTimers,
  });
  planes.push(cp);
  return cp;
}

/** Slot run IDs of a DAG in the database, oldest first. */
async function slotRuns(cp: ControlPlane, dag: string): Promise<string[]> {
  const page = await cp.runs.listRuns({ dag, limit: 500 });
  return page.items.map((r) => r.run_id).reverse();
}

function duplicates(ids: string[]): string[] {
  return ids.filter((id, i) => ids.indexOf(id) !== i);
}

/**
 * Two schedulers on two homes of one fresh schema, `a` active and `b` standby, with `dag` written (and pushed)
 * on a's home only: b runs it from the database.
 */
async function activeAndStandby(name: string, dag: string) {
  const schema = newSchema();
  const a = pgHome(schema);
  const b = pgHome(schema);
  a.writeDag(name, dag);
  const sa = startService(['scheduler'], { ...a.env, DAGU_SCHEDULER_PORT: String(await freePort()) });
  services.push(sa);
  await waitForLog(sa, /^Acquired the free scheduler lock$/);
  const sb = startService(['scheduler'], { ...b.env, DAGU_SCHEDULER_PORT: String(await freePort()) });
  services.push(sb);
  await waitForLog(sb, /^Waiting as standby for the scheduler lock$/);
  return { schema, sa, sb, cp: await planeOf(a) };
}

describe('storage.backend: postgres', () => {
  it('a run is recorded in the database and read back by status and history; the data directory keeps no run', async () => {
    const h = pgHome(newSchema());
    h.writeDag('hello', 'steps:\n  - name: a\n    command: echo hello-pg\n');
    const run = await dagu(['start', 'hello'], h.env);
    expect(run.code, run.stderr).toBe(0);
    const status = await dagu(['status', '--json', 'hello'], h.env);
    expect(status.code, status.stderr).toBe(0);
    const s = JSON.parse(status.stdout) as { run_id: string; status: string };
    expect(s.status).toBe('succeeded');
    const history = await dagu(['history', 'hello'], h.env);
    expect(history.stdout).toContain(s.run_id);
    const cp = await planeOf(h);
    const read = await cp.runs.readStatus(s.run_id);
    expect(read.kind === 'ok' && read.status.status).toBe('succeeded');
    const events = await cp.events.list({ types: ['dag.run.succeeded'] });
    expect(events.map((e) => e.data.run_id)).toContain(s.run_id);
    // Nothing of the run is in the data directory: no run record, no event log, no queue.
    const dataDir = path.join(h.home, 'data');
    for (const dir of ['runs', 'events', 'queue', 'scheduler'])
      expect(existsSync(path.join(dataDir, dir)), dir).toBe(false);
  });

  it("a run's artifacts are copied into the database, and one over the size cap fails the run clearly", async () => {
    const h = pgHome(newSchema());
    h.writeDag(
      'arts',
      [
        'type: chain',
        'steps:',
        '  - id: w',
        '    action: artifact.write',
        '    with: {path: reports/a.md, content: hello}',
        '  - id: s',
        '    run: echo streamed',
        '    stdout: {artifact: logs/s.out}',
        '',
      ].join('\n'),
    );
    const run = await dagu(['start', 'arts'], h.env);
    expect(run.code, run.stderr).toBe(0);
    const cp = await planeOf(h);
    const s = JSON.parse((await dagu(['status', '--json', 'arts'], h.env)).stdout) as { run_id: string };
    expect(await cp.artifacts.list(s.run_id)).toEqual([
      { path: 'logs/s.out', size: 9 },
      { path: 'reports/a.md', size: 5 },
    ]);
    expect(new TextDecoder().decode((await cp.artifacts.read(s.run_id, 'reports/a.md'))!)).toBe('hello');
    expect(existsSync(path.join(h.home, 'data', 'runs')), 'no run in the data directory').toBe(false);

    h.writeDag('big', 'steps:\n  - run: head -c 17000000 /dev/zero > "$DAG_RUN_ARTIFACTS_DIR/big.bin"\n');
    const big = await dagu(['start', 'big'], h.env);
    expect(big.code).toBe(1);
    const bs = JSON.parse((await dagu(['status', '--json', 'big'], h.env)).stdout) as {
      status: string;
      error: string;
    };
    expect(bs.status).toBe('failed');
    expect(bs.error).toMatch(
      /^run artifacts not stored: artifact "big.bin" is 17000000 bytes, over the limit/,
    );
  });

  it('two schedulers on two homes share only the database: one is active, each slot runs once, kill -9 fails over within T + 2R', async () => {
    const { schema, sa, sb, cp } = await activeAndStandby(
      'tick',
      'schedule: "*/2 * * * * *"\noverlap_policy: all\nsteps:\n  - name: a\n    command: echo tick\n',
    );
    await eventually(async () => (await slotRuns(cp, 'tick')).length >= 3, 20_000);

    const killedAt = Date.now();
    sa.child.kill('SIGKILL');
    const took = await waitForLog(sb, /^Took over the scheduler lock from a failed instance$/);
    expect(took.timeMs - killedAt).toBeLessThanOrEqual(T_MS + 2 * R_MS + 500);
    const before = (await slotRuns(cp, 'tick')).length;
    await eventually(async () => (await slotRuns(cp, 'tick')).length >= before + 3, 20_000);

    const ids = await slotRuns(cp, 'tick');
    expect(duplicates(ids)).toEqual([]);
    // Every slot run ID names this database's installation, whichever host made it.
    expect(new Set(ids.map((id) => id.split('-')[1])).size).toBe(1);
    // The failover history and the instance registry are in the database.
    const failovers = await pg().pool.query(`select reason from ${schema}.failover_events order by id`);
    expect(failovers.rows.map((r) => r.reason)).toEqual(['acquired', 'stale']);
    const instances = await cp.instances.list();
    expect(instances.some((i) => i.pid === sb.child.pid && i.role === 'active')).toBe(true);
  });

  it('a scheduler paused past T wakes up deposed: nothing it writes lands, it exits non-zero, no slot runs twice', async () => {
    const { schema, sa, sb, cp } = await activeAndStandby(
      'sec',
      'schedule: "* * * * * *"\noverlap_policy: all\nsteps:\n  - name: a\n    command: "true"\n',
    );
    await eventually(async () => (await slotRuns(cp, 'sec')).length >= 2, 20_000);

    sa.child.kill('SIGSTOP');
    await waitForLog(sb, /^Took over the scheduler lock from a failed instance$/, 20_000);
    await eventually(async () => (await slotRuns(cp, 'sec')).length >= 4, 20_000);
    sa.child.kill('SIGCONT');
    const code = await new Promise<number | null>((resolve) => sa.child.once('exit', resolve));
    expect(code).not.toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    const ids = await slotRuns(cp, 'sec');
    expect(duplicates(ids)).toEqual([]);
    // Every run created after the takeover was created by the new holder.
    const tookAt = (await pg().pool.query(`select at from ${schema}.failover_events where reason = 'stale'`))
      .rows[0].at as Date;
    for (const id of ids) {
      const r = await cp.runs.readStatus(id);
      if (r.kind !== 'ok' || Date.parse(r.status.created_at) <= tookAt.getTime()) continue;
      expect(r.status.dispatched_by ?? '', id).toMatch(new RegExp(`-${sb.child.pid}-`));
    }
  });

  it('the fence: every write only the active scheduler makes is refused once the lock has another epoch', async () => {
    const h = pgHome(newSchema());
    const cp = await planeOf(h);
    let hold: { holder: string; epoch: number } | null = { holder: 'token-old', epoch: 1 };
    const mine = cp.forScheduler(() => hold);
    const now = new Date().toISOString();
    const record = (holder: string, epoch: number) =>
      lockRecord({ holder, instance_id: `inst-${holder}`, epoch, acquired_at: now, renewed_at: now });
    expect(await mine.lock.create(record('token-old', 1))).toBe(true);
    const status = (id: string) =>
      testRunStatus({ run_id: id, dag_name: 'etl', queue: 'etl', status: 'queued', created_at: now });
    // While held, the fenced writes land.
    expect(await mine.runs.createRun(status('sched-before'))).toEqual({ created: true });
    await mine.queue.enqueue({ queue: 'etl', run_id: 'sched-before', dag_name: 'etl', enqueued_at: now });
    await mine.tickState!.write({ version: 1, last_tick_ms: 1, dags: {} });
    await mine.queue.enqueue({ queue: 'etl', run_id: 'sched-started', dag_name: 'etl', enqueued_at: now });
    expect(await mine.queue.dequeue('etl', 'sched-started')).toBe(true);
    expect(await mine.queue.dequeue('etl', 'sched-started')).toBe(false);

    // Another instance takes the lock over (a new epoch).
    const observed = await mine.lock.read();
    expect(await mine.lock.takeOver(observed, record('token-new', 2))).toBe(true);
    await expect(mine.runs.createRun(status('sched-after'))).rejects.toBeInstanceOf(LeaseFenceError);
    await expect(
      mine.runs.writeStatus({ ...status('sched-before'), status: 'failed' }),
    ).rejects.toBeInstanceOf(LeaseFenceError);
    await expect(
      mine.queue.enqueue({ queue: 'etl', run_id: 'sched-x', dag_name: 'etl', enqueued_at: now }),
    ).rejects.toBeInstanceOf(LeaseFenceError);
    await expect(mine.queue.dequeue('etl', 'sched-before')).rejects.toBeInstanceOf(LeaseFenceError);
    // Refused also where there was nothing to remove.
    await expect(mine.queue.dequeue('etl', 'sched-started')).rejects.toBeInstanceOf(LeaseFenceError);
    await expect(mine.tickState!.write({ version: 1, last_tick_ms: 2, dags: {} })).rejects.toBeInstanceOf(
      LeaseFenceError,
    );
    await expect(mine.runs.deleteRun('sched-before')).rejects.toBeInstanceOf(LeaseFenceError);
    // Nothing of them landed.
    expect((await cp.runs.readStatus('sched-after')).kind).toBe('missing');
    const before = await cp.runs.readStatus('sched-before');
    expect(before.kind === 'ok' && before.status.status).toBe('queued');
    expect((await cp.queue.list('etl')).map((i) => i.run_id)).toEqual(['sched-before']);
    expect(await mine.tickState!.read()).toEqual({ version: 1, last_tick_ms: 1, dags: {} });
    // And an instance that knows it holds nothing is refused before it asks the database.
    hold = null;
    await expect(mine.runs.createRun(status('sched-none'))).rejects.toBeInstanceOf(LeaseFenceError);
    await expect(mine.queue.dequeue('etl', 'sched-before')).rejects.toBeInstanceOf(LeaseFenceError);
    // Processes other than the scheduler write without the fence.
    expect(await cp.runs.createRun(status('manual-1'))).toEqual({ created: true });
  });

  it('the fence of a one-statement dequeue: a takeover waits for it, but not past its lock limit', async () => {
    const schema = newSchema();
    const h = pgHome(schema);
    const cp = await planeOf(h);
    const hold = { holder: 'token-old', epoch: 1 };
    const mine = cp.forScheduler(() => hold);
    const now = new Date().toISOString();
    const record = (holder: string, epoch: number) =>
      lockRecord({ holder, instance_id: `inst-${holder}`, epoch, acquired_at: now, renewed_at: now });
    expect(await mine.lock.create(record('token-old', 1))).toBe(true);
    for (const id of ['held-item', 'stuck-item'])
      await mine.queue.enqueue({ queue: 'etl', run_id: id, dag_name: 'etl', enqueued_at: now });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    /**
     * A takeover's first step, without the lock store's own deadline: the lease row locked for update.
     * Answers the queue's items as the takeover saw them once it had the lease row: what had been committed
     * before the fence let it through.
     */
    const takeOver = async (holder: string, epoch: number): Promise<string[]> => {
      const taker = await pg().pool.connect();
      try {
        await taker.query('begin');
        await taker.query(`select 1 from ${schema}.scheduler_lease for update`);
        const items = await taker.query<{ run_id: string }>(
          `select run_id from ${schema}.queue_items order by run_id`,
        );
        await taker.query(`update ${schema}.scheduler_lease set holder = $1, epoch = $2`, [holder, epoch]);
        await taker.query('commit');
        return items.rows.map((r) => r.run_id);
      } finally {
        taker.release();
      }
    };
    // Another session holds the item's row for a moment: the dequeue waits on it, holding the fence's lock.
    const blocker = await pg().pool.connect();
    try {
      await blocker.query('begin');
      await blocker.query(`select 1 from ${schema}.queue_items where run_id = 'held-item' for update`);
      let settled = 0;
      const dequeued = mine.queue.dequeue('etl', 'held-item').finally(() => settled++);
      await sleep(150);
      const takeover = takeOver('token-mid', 1).finally(() => settled++);
      await sleep(150);
      expect(settled).toBe(0);
      await blocker.query('commit');
      expect(await dequeued).toBe(true);
      // The takeover got the lease row only after the dequeue had committed: it no longer saw the item.
      expect(await takeover).toEqual(['stuck-item']);
    } finally {
      blocker.release();
    }
    // The lease is the scheduler's again; this time the other session holds the row for good: the dequeue
    // is ended at the lock limit (I, 750 ms here) and the takeover goes through while the row is still held.
    await takeOver('token-old', 1);
    const stuck = await pg().pool.connect();
    try {
      await stuck.query('begin');
      await stuck.query(`select 1 from ${schema}.queue_items where run_id = 'stuck-item' for update`);
      const dequeued = mine.queue.dequeue('etl', 'stuck-item').then(
        () => 'removed',
        (err: Error) => err.message,
      );
      await sleep(100);
      const startedAt = Date.now();
      await takeOver('token-new', 2);
      expect(Date.now() - startedAt).toBeLessThan(5000);
      expect(await dequeued).toMatch(/lock timeout/);
    } finally {
      await stuck.query('rollback');
      stuck.release();
    }
    expect((await cp.queue.list('etl')).map((i) => i.run_id)).toEqual(['stuck-item']);
    await expect(mine.queue.dequeue('etl', 'stuck-item')).rejects.toBeInstanceOf(LeaseFenceError);
  });
});

describe('storage.backend: postgres refuses what it cannot use, at start, with one clear line', () => {
  it('no URL, a URL that is not postgres, an unreachable server, a wrong password: exit 2 and the reason', async () => {
    const h = pgHome(newSchema());
    h.writeDag('hello', 'steps:\n  - name: a\n    command: echo hi\n');
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ DAGU_POSTGRES_URL: '' }, /storage\.postgres\.url \(DAGU_POSTGRES_URL\) is not set/],
      [{ DAGU_POSTGRES_URL: 'mysql://x@localhost/db' }, /must start with postgres:\/\//],
      [
        { DAGU_POSTGRES_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres` },
        /cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: .*ECONNREFUSED/,
      ],
    ];
    for (const [env, pattern] of cases) {
      const r = await dagu(['start', 'hello'], { ...h.env, ...env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(pattern);
    }
    const url = new URL(pg().cluster.url);
    url.password = 's3cret-in-url';
    url.username = 'nobody';
    const r = await dagu(['start', 'hello'], { ...h.env, DAGU_POSTGRES_URL: url.toString() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot connect to PostgreSQL/);
    expect(r.stderr).not.toContain('s3cret-in-url');
  });

  it('a database whose schema is newer and breaking, a missing table, a read-only user: exit 2, nothing written', async () => {
    const schema = newSchema();
    const h = pgHome(schema);
    h.writeDag('hello', 'steps:\n  - name: a\n    command: echo hi\n');
    expect((await dagu(['start', 'hello'], h.env)).code).toBe(0);
    const runsBefore = Number((await pg().pool.query(`select count(*) from ${schema}.runs`)).rows[0].count);

    // A newer, breaking schema (another build migrated it).
    await pg().pool.query(
      `insert into ${schema}.schema_migrations (version, name, checksum, breaking, applied_by) values (999, 'future', 'x', true, 'test')`,
    );
    let r = await dagu(['start', 'hello'], h.env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/schema is at version 999, newer than this build's \d+, .*upgrade dagu/);
    await pg().pool.query(`delete from ${schema}.schema_migrations where version = 999`);

    // A table dropped by hand.
    await pg().pool.query(`alter table ${schema}.queue_items rename to queue_items_gone`);
    r = await dagu(['start', 'hello'], h.env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/table .*queue_items.* is missing/);
    await pg().pool.query(`alter table ${schema}.queue_items_gone rename to queue_items`);

    // A user that may read but not write.
    await pg().pool.query(`drop role if exists ro_${schema}`);
    await pg().pool.query(`create role ro_${schema} login`);
    await pg().pool.query(`grant usage on schema ${schema} to ro_${schema}`);
    await pg().pool.query(`grant select on all tables in schema ${schema} to ro_${schema}`);
    const ro = new URL(pg().cluster.url);
    ro.username = `ro_${schema}`;
    r = await dagu(['start', 'hello'], { ...h.env, DAGU_POSTGRES_URL: ro.toString() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the database user cannot write the schema/);

    const runsAfter = Number((await pg().pool.query(`select count(*) from ${schema}.runs`)).rows[0].count);
    expect(runsAfter).toBe(runsBefore);
    expect(readdirSync(path.join(h.home, 'data')).filter((n) => n === 'runs')).toEqual([]);
  });

  it('a user without rights on the existing schema or on one of its tables: exit 2 naming the grant, not a missing table', async () => {
    const schema = newSchema();
    const h = pgHome(schema);
    h.writeDag('hello', 'steps:\n  - name: a\n    command: echo hi\n');
    expect((await dagu(['start', 'hello'], h.env)).code).toBe(0);
    const applied = async () =>
      (await pg().pool.query(`select version, applied_by from ${schema}.schema_migrations order by version`))
        .rows;
    const before = await applied();
    const urlOf = (role: string) => {
      const u = new URL(pg().cluster.url);
      u.username = role;
      return u.toString();
    };

    // Rights on every table but one: as when a migration added a table after the grant.
    const partial = `part_${schema}`;
    await pg().pool.query(`drop role if exists ${partial}`);
    await pg().pool.query(`create role ${partial} login`);
    await pg().pool.query(`grant usage on schema ${schema} to ${partial}`);
    await pg().pool.query(
      `grant select, insert, update, delete on all tables in schema ${schema} to ${partial}`,
    );
    await pg().pool.query(`revoke all on ${schema}.dags from ${partial}`);
    let r = await dagu(['start', 'hello'], { ...h.env, DAGU_POSTGRES_URL: urlOf(partial) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      `dagu: the database user "${partial}" may not use table "dags" of the schema "${schema}": grant it SELECT, INSERT, UPDATE, DELETE on every table of the schema`,
    );

    // No rights on the schema at all, though the user may create schemas: the schema is not created again.
    const none = `none_${schema}`;
    await pg().pool.query(`drop role if exists ${none}`);
    await pg().pool.query(`create role ${none} login`);
    await pg().pool.query(`grant create on database postgres to ${none}`);
    r = await dagu(['start', 'hello'], { ...h.env, DAGU_POSTGRES_URL: urlOf(none) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe(
      `dagu: cannot read the schema version: the database user "${none}" may not read the schema "${schema}": grant it USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on every table of it`,
    );
    expect(await applied()).toEqual(before);
  });
});
