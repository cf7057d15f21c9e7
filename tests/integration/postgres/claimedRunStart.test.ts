// Starting a queued run on PostgreSQL with real `bin/dagu start --run-id` processes: the claim of its attempt
// lets exactly one process run it, and a process whose claim the active scheduler gave back (it claimed, then
// lost the database before it could record its start) runs nothing when it comes back, however late.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { dagu, eventually, startService, tempHome, type Service } from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const cleanups: Array<() => Promise<void> | void> = [];
let schemaN = 0;

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A home on a fresh schema with DAG `count`, whose one step appends a line to `countFile`. */
async function setUp() {
  const schema = `claims_${process.pid}_${++schemaN}`;
  const h = tempHome({
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: pg().cluster.url,
    DAGU_POSTGRES_SCHEMA: schema,
    DAGU_SKIP_EXAMPLES: 'true',
  });
  cleanups.push(() => h.cleanup());
  const countFile = path.join(h.home, 'count');
  h.writeDag('count', `steps:\n  - name: a\n    command: echo ran >> ${countFile}\n`);
  const queued = await dagu(['enqueue', '--run-id', 'queued-1', 'count'], h.env);
  expect(queued.code, queued.stderr).toBe(0);
  return { schema, env: h.env, countFile };
}

function exitOf(svc: Service): Promise<number | null> {
  if (svc.child.exitCode !== null) return Promise.resolve(svc.child.exitCode);
  return new Promise((resolve) => svc.child.once('exit', (code) => resolve(code)));
}

describe('starting a claimed run on PostgreSQL', () => {
  it('runs a queued run once when two processes are told to start it at the same time', async () => {
    const { env, countFile } = await setUp();
    const [a, b] = await Promise.all([
      dagu(['start', '--run-id', 'queued-1', 'count'], env),
      dagu(['start', '--run-id', 'queued-1', 'count'], env),
    ]);
    expect([a.code, b.code].sort()).toEqual([0, 2]);
    // The loser either lost the claim, or came after the winner had recorded its start or its end.
    expect(a.stderr + b.stderr).toMatch(
      /run queued-1 is already (being started by another process|running|succeeded)/,
    );
    expect(readFileSync(countFile, 'utf8')).toBe('ran\n');
  });

  it('runs nothing in a process whose claim was given back before it recorded its start; the next one runs it', async () => {
    const { schema, env, countFile } = await setUp();
    // The run's row held by the test: the first process claims the attempt, then waits to record its start.
    const lock = await pg().pool.connect();
    cleanups.push(() => lock.release());
    await lock.query('begin');
    await lock.query(`select 1 from ${schema}.runs where run_id = 'queued-1' for update`);
    const late = startService(['start', '--run-id', 'queued-1', 'count'], env);
    cleanups.push(() => void late.stop('SIGKILL'));
    const owner = await eventually(
      async () => {
        const r = await pg().pool.query<{ claimed_by: string | null }>(
          `select claimed_by from ${schema}.run_attempts where run_id = 'queued-1'`,
        );
        return r.rows[0]?.claimed_by ?? null;
      },
      20_000,
      20,
    );
    expect(owner).toMatch(/^.+:\d+@\d{4}-\d\d-\d\dT/);

    // The active scheduler gives the claim back (its claimant fell silent), then the first process goes on.
    const runs = new PgRunStore(pg().pool, schema, '/unused');
    expect(await runs.releaseClaim('queued-1', 1, owner)).toBe(true);
    await lock.query('commit');
    expect(await exitOf(late)).not.toBe(0);
    expect(late.output()).toMatch(/given back to its queue by the active scheduler/);
    expect(existsSync(countFile)).toBe(false);

    // Started again (as the queue does), it runs once; a process told to start it after that is refused.
    const again = await dagu(['start', '--run-id', 'queued-1', 'count'], env);
    expect(again.code, again.stderr).toBe(0);
    const after = await dagu(['start', '--run-id', 'queued-1', 'count'], env);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/run queued-1 is already succeeded/);
    expect(readFileSync(countFile, 'utf8')).toBe('ran\n');
  });
});
