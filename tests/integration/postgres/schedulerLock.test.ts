// The scheduler lock and the schema migrations on a real PostgreSQL (a throwaway cluster from Debian's
// packages, started here and removed after): the lock contract every storage keeps, and what only the
// database can add — a deposed holder's writes refused, a takeover waiting for a fenced write in flight.

import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { lockRecord, schedulerLockContract } from '../../../server/store/schedulerLock.contract';
import { MIGRATIONS, type Migration } from '../../../server/store/postgres/migrations';
import { LeaseFenceError, PgSchedulerLock } from '../../../server/store/postgres/pgSchedulerLock';
import {
  applyMigrations,
  checkSchema,
  checksumOf,
  EXPECTED_VERSION,
  readApplied,
} from '../../../server/store/postgres/schemaVersion';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_lock_test';
const pg = usePostgres({ schema: SCHEMA });
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

async function fresh(): Promise<PgSchedulerLock> {
  await pool.query(
    `truncate ${SCHEMA}.scheduler_heartbeat, ${SCHEMA}.scheduler_lease, ${SCHEMA}.failover_events`,
  );
  return new PgSchedulerLock(pool, SCHEMA);
}

schedulerLockContract('PgSchedulerLock', fresh, { lateWritesLand: false, canBeCorrupt: false });

describe('fencing on PostgreSQL', () => {
  it('runs a fenced write for the holder and refuses it after a takeover, writing nothing', async () => {
    const lock = await fresh();
    await pool.query(`create table if not exists ${SCHEMA}.fence_probe (n int)`);
    await pool.query(`truncate ${SCHEMA}.fence_probe`);
    const a = lockRecord({ holder: 'token-a', epoch: 1 });
    expect(await lock.create(a)).toBe(true);
    await lock.fenced('token-a', 1, (c) => c.query(`insert into ${SCHEMA}.fence_probe values (1)`));
    expect(await lock.takeOver(await lock.read(), lockRecord({ holder: 'token-b', epoch: 2 }))).toBe(true);
    await expect(
      lock.fenced('token-a', 1, (c) => c.query(`insert into ${SCHEMA}.fence_probe values (2)`)),
    ).rejects.toBeInstanceOf(LeaseFenceError);
    const rows = await pool.query(`select n from ${SCHEMA}.fence_probe order by n`);
    expect(rows.rows.map((r) => r.n)).toEqual([1]);
    // The new holder writes; a released lock fences everyone until it is taken again.
    await lock.fenced('token-b', 2, (c) => c.query(`insert into ${SCHEMA}.fence_probe values (3)`));
    await lock.write(lockRecord({ holder: 'token-b', epoch: 2, counter: 1, released: true }));
    await expect(lock.fenced('token-b', 2, async () => undefined)).rejects.toBeInstanceOf(LeaseFenceError);
  });

  it('makes a takeover wait for a fenced write in flight, which then commits before it', async () => {
    const lock = await fresh();
    await pool.query(`create table if not exists ${SCHEMA}.fence_probe (n int)`);
    await pool.query(`truncate ${SCHEMA}.fence_probe`);
    expect(await lock.create(lockRecord({ holder: 'token-a', epoch: 1 }))).toBe(true);
    const observed = await lock.read();
    let finishWrite!: () => void;
    const writeMayEnd = new Promise<void>((resolve) => (finishWrite = resolve));
    let writeInside!: () => void;
    const inside = new Promise<void>((resolve) => (writeInside = resolve));
    const write = lock.fenced('token-a', 1, async (c) => {
      writeInside();
      await writeMayEnd;
      await c.query(`insert into ${SCHEMA}.fence_probe values (1)`);
    });
    await inside;
    let takenAt = 0;
    const takeover = lock.takeOver(observed, lockRecord({ holder: 'token-b', epoch: 2 })).then((won) => {
      takenAt = Date.now();
      return won;
    });
    // The takeover is blocked on the lease row's lock: seen from the server, not guessed from a sleep.
    await waitFor(async () => {
      const r = await pool.query(
        `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%for update%'`,
      );
      return r.rows[0].n === 1;
    });
    expect(takenAt).toBe(0);
    const wroteAt = Date.now();
    finishWrite();
    await write;
    // The fenced write committed first, and the takeover, re-reading the rows, still won: nobody renewed.
    expect(await takeover).toBe(true);
    expect(takenAt).toBeGreaterThanOrEqual(wroteAt);
    const rows = await pool.query(`select n from ${SCHEMA}.fence_probe`);
    expect(rows.rowCount).toBe(1);
  });

  /** A lock held by token-a, the same lock with 300 ms fence limits, and an empty probe table to write. */
  async function heldWithLimits() {
    const lock = await fresh();
    const limited = new PgSchedulerLock(pool, SCHEMA, { fenceIdleTimeoutMs: 300 });
    await pool.query(`create table if not exists ${SCHEMA}.fence_probe (n int)`);
    await pool.query(`truncate ${SCHEMA}.fence_probe`);
    expect(await lock.create(lockRecord({ holder: 'token-a', epoch: 1 }))).toBe(true);
    return { lock, limited, observed: await lock.read() };
  }

  it('ends a fenced write stalled on its client after its idle limit, so a takeover is not held back', async () => {
    const { lock, limited, observed } = await heldWithLimits();
    // The holder takes the fence and then stops (paused, or cut off): its transaction waits on the client.
    let resume!: () => void;
    const stalled = new Promise<void>((resolve) => (resume = resolve));
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    const write = limited.fenced('token-a', 1, async (c) => {
      inside();
      await stalled;
      await c.query(`insert into ${SCHEMA}.fence_probe values (1)`);
    });
    const outcome = write.then(
      () => 'committed',
      (err: Error) => err.message,
    );
    await entered;
    const startedAt = Date.now();
    expect(await lock.takeOver(observed, lockRecord({ holder: 'token-b', epoch: 2 }))).toBe(true);
    // Without the limit the takeover would wait for as long as the stalled client keeps its connection.
    expect(Date.now() - startedAt).toBeLessThan(5000);
    resume();
    // The server ended the stalled session: the write fails when its holder resumes, and nothing landed.
    expect(await outcome).not.toBe('committed');
    expect((await pool.query(`select n from ${SCHEMA}.fence_probe`)).rowCount).toBe(0);
  });

  it("ends a fenced write stuck behind another session's lock after its limit, so a takeover is not held back", async () => {
    const { lock, limited, observed } = await heldWithLimits();
    // Another session holds the table the holder writes: the holder's statement waits on a lock, not on its
    // client, so only a lock limit ends it.
    const blocker = await pool.connect();
    try {
      await blocker.query('begin');
      await blocker.query(`lock table ${SCHEMA}.fence_probe in access exclusive mode`);
      const write = limited.fenced('token-a', 1, (c) =>
        c.query(`insert into ${SCHEMA}.fence_probe values (1)`),
      );
      const outcome = write.then(
        () => 'committed',
        (err: Error) => err.message,
      );
      await new Promise((r) => setTimeout(r, 50));
      const startedAt = Date.now();
      expect(await lock.takeOver(observed, lockRecord({ holder: 'token-b', epoch: 2 }))).toBe(true);
      // Without the lock limit the takeover would wait for as long as the other session holds its lock.
      expect(Date.now() - startedAt).toBeLessThan(5000);
      expect(await outcome).toMatch(/lock timeout/);
    } finally {
      await blocker.query('rollback');
      blocker.release();
    }
    expect((await pool.query(`select n from ${SCHEMA}.fence_probe`)).rowCount).toBe(0);
  });

  it('lets a takeover lose to a renewal that commits while it waits', async () => {
    const lock = await fresh();
    const a = lockRecord({ holder: 'token-a', epoch: 1 });
    expect(await lock.create(a)).toBe(true);
    const observed = await lock.read();
    await lock.write({ ...a, counter: 1 });
    expect(await lock.takeOver(observed, lockRecord({ holder: 'token-b', epoch: 2 }))).toBe(false);
    expect(await lock.read()).toEqual({ kind: 'record', record: { ...a, counter: 1 } });
  });

  it('records each change of hands in the failover history', async () => {
    const lock = await fresh();
    const a = lockRecord({ holder: 'token-a', instance_id: 'a', epoch: 1 });
    await lock.create(a);
    await lock.takeOver(await lock.read(), lockRecord({ holder: 'token-b', instance_id: 'b', epoch: 2 }));
    const history = await lock.failovers();
    expect(history.map((h) => [h.epoch, h.from, h.to, h.reason])).toEqual([
      [2, 'a', 'b', 'stale'],
      [1, null, 'a', 'acquired'],
    ]);
  });
});

describe('schema migrations', () => {
  it('applies each migration once, even when two hosts migrate at the same moment', async () => {
    const schema = 'dagu_migrate_race';
    const clients = await Promise.all([pool.connect(), pool.connect()]);
    try {
      const done = await Promise.all(clients.map((c, i) => applyMigrations(c, schema, { by: `host-${i}` })));
      expect(done.flat().sort((a, b) => a - b)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await checkSchema(clients[0], schema)).toBeNull();
      const applied = await readApplied(clients[0], schema);
      expect(applied.map((a) => a.version)).toEqual(MIGRATIONS.map((m) => m.version));
      // Again: nothing left to do.
      expect(await applyMigrations(clients[0], schema, { by: 'host-0' })).toEqual([]);
    } finally {
      clients.forEach((c) => c.release());
    }
  });

  it('names what is wrong with a database it cannot run against, and changes nothing', async () => {
    const c = await pool.connect();
    try {
      expect(await checkSchema(c, 'dagu_empty')).toBe(
        `the database has no schema "dagu_empty" of dagu yet; this build needs version ${EXPECTED_VERSION}`,
      );
      // A newer, breaking migration applied by a newer build.
      const schema = 'dagu_newer';
      const newer: Migration = { version: 99, name: 'from the future', breaking: true, sql: 'select 1' };
      await applyMigrations(c, schema, { by: 'new', known: [...MIGRATIONS, newer] });
      expect(await checkSchema(c, schema)).toMatch(
        new RegExp(
          `schema is at version 99, newer than this build's ${EXPECTED_VERSION}, and version 99 is breaking`,
        ),
      );
      await expect(applyMigrations(c, schema, { by: 'old' })).rejects.toThrow(/version 99 is breaking/);
      // An applied migration whose text was edited afterwards.
      const edited = { ...MIGRATIONS[0], sql: `${MIGRATIONS[0].sql}\n-- edited` };
      expect(await checkSchema(c, SCHEMA, [edited])).toMatch(
        new RegExp(`migration 1 .* differs from this build's \\(checksum ${checksumOf(MIGRATIONS[0])}`),
      );
      // A failing migration leaves no half-applied version behind.
      const broken: Migration = { version: 2, name: 'broken', breaking: false, sql: 'create table x (' };
      await expect(
        applyMigrations(c, 'dagu_broken', { by: 't', known: [MIGRATIONS[0], broken] }),
      ).rejects.toThrow(/migration 2 \(broken\) failed/);
      expect((await readApplied(c, 'dagu_broken')).map((a) => a.version)).toEqual([1]);
    } finally {
      c.release();
    }
  });

  it('refuses a schema of another application before creating anything in it', async () => {
    const c = await pool.connect();
    const tables = async (schema: string) =>
      (
        await c.query<{ name: string }>(
          `select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = $1 and c.relkind = 'r' order by 1`,
          [schema],
        )
      ).rows.map((r) => r.name);
    try {
      // Its own table of a name a later migration (2) uses.
      await c.query('create schema app_shared');
      await c.query('create table app_shared.events (id serial primary key, what text)');
      await c.query('create table app_shared.users (id int)');
      const events = MIGRATIONS.find((m) => /create table \{schema\}\.events\b/.test(m.sql))!;
      await expect(applyMigrations(c, 'app_shared', { by: 't' })).rejects.toThrow(
        `the schema "app_shared" already holds "events", a table of another application where migration ${events.version} (${events.name}) would create dagu's: nothing was created; set storage.postgres.schema to a schema of dagu's own`,
      );
      expect(await tables('app_shared')).toEqual(['events', 'users']);

      // Another tool's schema_migrations (Rails keeps one): named, not read as dagu's versions.
      await c.query('create schema app_rails');
      await c.query('create table app_rails.schema_migrations (version varchar primary key)');
      const foreign =
        'the schema "app_rails" holds a table "schema_migrations" that is not dagu\'s: set storage.postgres.schema to a schema of dagu\'s own';
      await expect(checkSchema(c, 'app_rails')).rejects.toThrow(foreign);
      await expect(applyMigrations(c, 'app_rails', { by: 't' })).rejects.toThrow(foreign);
      expect(await tables('app_rails')).toEqual(['schema_migrations']);
    } finally {
      c.release();
    }
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
