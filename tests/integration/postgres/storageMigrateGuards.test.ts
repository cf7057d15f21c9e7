// What `dagu storage migrate` refuses, and `dagu storage schema`: no copy while a real scheduler holds the
// data directory's lock (unless --force, with a warning), a copy once that lock is released or has gone
// stale (watched first), no copy into a database a scheduler has run on, exit 2 for bad configuration; and
// the schema command reporting and applying migrations, as an operator does with auto_migrate off. Needs the
// built CLI (`npm run build:cli`).

import type { Pool } from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PgSchedulerLock } from '../../../server/store/postgres/pgSchedulerLock';
import { EXPECTED_VERSION } from '../../../server/store/postgres/schemaVersion';
import { dagu, eventually, freePort, startService, tempHome, type Service, type TempHome } from '../harness';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import { buildFileHome, fileStoresOf, snapshotTree } from './fileHomeFixture';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

const homes: TempHome[] = [];
const services: Service[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop('SIGKILL');
  for (const h of homes.splice(0)) h.cleanup();
});

let schemas = 0;
function home(extra: Record<string, string> = {}) {
  const schema = `guard_${++schemas}`;
  const h = tempHome({
    DAGU_POSTGRES_URL: pg().cluster.url,
    DAGU_POSTGRES_SCHEMA: schema,
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
    DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
    ...extra,
  });
  homes.push(h);
  return { h, schema };
}

const migrate = (h: TempHome, ...flags: string[]) =>
  dagu(['storage', 'migrate', '--to', 'postgres', ...flags], h.env);
const runCount = async (schema: string) =>
  Number((await pool.query(`select count(*) as n from ${schema}.runs`)).rows[0].n);
const tableExists = async (schema: string, table: string) =>
  (
    await pool.query(`select 1 from information_schema.tables where table_schema = $1 and table_name = $2`, [
      schema,
      table,
    ])
  ).rowCount === 1;

/** Runs that have ended, which a scheduler leaves alone (unlike the fixture's queued and running ones). */
async function endedRuns(h: TempHome, n: number) {
  const { runs } = fileStoresOf(h.home);
  for (let i = 0; i < n; i++)
    await runs.createRun(testRunStatus({ run_id: `ended-${i}`, status: 'succeeded' }));
}

function startScheduler(h: TempHome): Service {
  const s = startService(['scheduler'], h.env);
  services.push(s);
  return s;
}

describe('dagu storage migrate refuses', () => {
  it('while a scheduler holds the lock, copies with --force and a warning, and copies once it is released', async () => {
    const { h, schema } = home();
    await endedRuns(h, 3);
    const scheduler = startScheduler(h);
    await scheduler.waitFor(/Acquired the free scheduler lock/);

    const refused = await migrate(h);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^dagu storage migrate: refusing to copy while a scheduler is active on .*: the scheduler lock is held by instance \S+ on \S+ \(pid \d+\), renewed \d+s ago\. Stop every scheduler first, or pass --force to copy anyway$/m,
    );
    // Refused before the database was even opened: not a table made, nothing copied.
    expect(await tableExists(schema, 'runs')).toBe(false);

    const forced = await migrate(h, '--force');
    expect(forced.code, forced.stdout + forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/warning: the scheduler lock is held by .*; copying anyway \(--force\)/);
    expect(await runCount(schema)).toBe(3);

    expect(await scheduler.stop('SIGTERM')).toBe(0);
    const after = await migrate(h);
    expect(after.stderr).toBe('');
    // What the scheduler wrote after the forced copy (its release of the lock, an event) is copied now.
    expect(after.stdout).toMatch(/^events +2 +1 +1 +0 +0$/m);
    expect(after.stdout).toMatch(/^Copied 1 record, \d+ already there/m);
    // A tick it completed meanwhile (at the turn of a minute) changed its tick state, which a copy never
    // overwrites: the only record that may differ, and then the copy says so with exit 1.
    const differing = after.stdout.split('\n').filter((l) => l.startsWith('differs: '));
    expect(differing.filter((l) => !l.startsWith('differs: scheduler tick state: '))).toEqual([]);
    expect(after.code, after.stdout).toBe(differing.length > 0 ? 1 : 0);
  });

  it("until a killed scheduler's lock has gone stale, which it watches first", async () => {
    const { h, schema } = home();
    await endedRuns(h, 2);
    const scheduler = startScheduler(h);
    await scheduler.waitFor(/Acquired the free scheduler lock/);
    await scheduler.stop('SIGKILL');
    const files = await snapshotTree(h.home);

    // Renewed within the stale threshold (3s): refused without waiting.
    const early = await migrate(h);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/renewed \d+s ago/);
    // Past it, the lock is watched for longer than a renewal interval, found unchanged, and the copy runs.
    const done = await eventually(async () => {
      const r = await migrate(h);
      return r.code === 0 ? r : null;
    }, 30_000);
    expect(done.stderr).toMatch(/watching the scheduler lock for 2s to see whether it is renewed/);
    expect(done.stdout).toMatch(/^Copied \d+ records, 0 already there\.$/m);
    expect(await runCount(schema)).toBe(2);
    expect(await snapshotTree(h.home)).toEqual(files);
  });

  it('into a database a scheduler has run on, unless forced', async () => {
    const { h, schema } = home();
    await buildFileHome(h.home);
    expect((await dagu(['storage', 'schema', '--apply'], h.env)).code).toBe(0);
    await new PgSchedulerLock(pool, schema).create({
      version: 1,
      holder: 'tok',
      instance_id: 'pg-sched-1',
      host: 'db-host',
      pid: 5,
      epoch: 1,
      counter: 0,
      released: false,
      acquired_at: new Date().toISOString(),
      renewed_at: new Date().toISOString(),
    });
    const refused = await migrate(h);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'refusing to copy into a database a scheduler has already run on (instance pg-sched-1 on db-host (epoch 1))',
    );
    expect(await runCount(schema)).toBe(0);
    const forced = await migrate(h, '--force');
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('warning: a scheduler has already run on this database');
    expect(await runCount(schema)).toBe(9);
    // Verifying is never refused: it writes nothing.
    expect((await migrate(h, '--verify')).code).toBe(1);
  });

  it('while another copy into the same database is running', async () => {
    const { h, schema } = home();
    await endedRuns(h, 1);
    expect((await dagu(['storage', 'schema', '--apply'], h.env)).code).toBe(0);
    // The lock a running copy holds for its whole length, taken here as such a copy would.
    const other = await pool.connect();
    try {
      await other.query('select pg_advisory_lock(7406215938002)');
      const r = await migrate(h);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('another `dagu storage migrate` is copying into this database now');
      expect(await runCount(schema)).toBe(0);
    } finally {
      await other.query('select pg_advisory_unlock(7406215938002)');
      other.release();
    }
    expect((await migrate(h)).code).toBe(0);
    expect(await runCount(schema)).toBe(1);
  });

  it('with exit 2 and one line for a missing URL, an unreachable database or a missing data directory', async () => {
    const { h } = home();
    await buildFileHome(h.home);
    const noUrl = await dagu(['storage', 'migrate', '--to', 'postgres'], { ...h.env, DAGU_POSTGRES_URL: '' });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toBe(
      'dagu storage migrate: storage.postgres.url (DAGU_POSTGRES_URL) is not set: it names the database to copy into\n',
    );
    const port = await freePort();
    const down = await dagu(['storage', 'migrate', '--to', 'postgres'], {
      ...h.env,
      DAGU_POSTGRES_URL: `postgres://dagu:secret@127.0.0.1:${port}/dagu`,
    });
    expect(down.code).toBe(2);
    expect(down.stderr).toMatch(
      /^dagu storage migrate: cannot connect to PostgreSQL at postgres:\/\/dagu:\*\*\*@127\.0\.0\.1:\d+\/dagu: /,
    );
    expect(down.stderr).not.toContain('secret');
    const empty = home();
    const noData = await migrate(empty.h);
    expect(noData.code).toBe(2);
    expect(noData.stderr).toMatch(
      /the data directory .* \(paths\.data_dir\) does not exist: there is nothing to copy/,
    );
    const wrongTo = await dagu(['storage', 'migrate', '--to', 'mysql'], h.env);
    expect(wrongTo.code).toBe(2);
  });
});

describe('dagu storage schema', () => {
  it('reports the versions, applies pending migrations with --apply, and then reports it up to date', async () => {
    const { h, schema } = home({ DAGU_POSTGRES_AUTO_MIGRATE: 'false' });
    await buildFileHome(h.home);
    const none = await dagu(['storage', 'schema'], h.env);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain(
      `this build: version ${EXPECTED_VERSION}\ndatabase: no dagu schema yet\npending: 1 (`,
    );
    expect(none.stdout).toContain('run `dagu storage schema --apply` to apply them');
    expect(await tableExists(schema, 'schema_migrations')).toBe(false);

    // With auto_migrate off, the copy refuses a database behind this build and names the command.
    const behind = await migrate(h);
    expect(behind.code).toBe(2);
    expect(behind.stderr).toContain('(run `dagu storage schema --apply`)');

    const applied = await dagu(['storage', 'schema', '--apply'], h.env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.match(/^applied: version \d+ /gm)).toHaveLength(EXPECTED_VERSION);
    expect(applied.stdout).toMatch(/up to date\n$/);
    const again = await dagu(['storage', 'schema'], h.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(
        `^database: version ${EXPECTED_VERSION} \\(.*\\), applied \\S+ by dagu storage schema --apply on \\S+$`,
        'm',
      ),
    );
    expect((await migrate(h)).code).toBe(0);
  });

  it('calls a database whose applied migration was changed unusable', async () => {
    const { h, schema } = home();
    expect((await dagu(['storage', 'schema', '--apply'], h.env)).code).toBe(0);
    await pool.query(`update ${schema}.schema_migrations set checksum = 'edited' where version = 2`);
    const r = await dagu(['storage', 'schema'], h.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('not usable: migration 2 (queues and the event log) in the database differs');
  });

  it('calls a database at this version with a table dropped by hand unusable, as the services do', async () => {
    const { h, schema } = home();
    expect((await dagu(['storage', 'schema', '--apply'], h.env)).code).toBe(0);
    await pool.query(`alter table ${schema}.queue_items rename to queue_items_gone`);
    const r = await dagu(['storage', 'schema'], h.env);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('up to date');
    expect(r.stdout).toMatch(
      new RegExp(
        `\\nnot usable: the schema "${schema}" is at this build's version but table "queue_items" is missing: restore it from a backup \\(dagu does not recreate a table that held data\\)\\n$`,
      ),
    );
    // `--apply` does not recreate it either.
    expect((await dagu(['storage', 'schema', '--apply'], h.env)).code).toBe(1);
    expect(await tableExists(schema, 'queue_items')).toBe(false);
  });
});
