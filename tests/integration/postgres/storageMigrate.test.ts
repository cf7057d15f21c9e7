// `dagu storage migrate --to postgres` on a file home written by the real stores and a real `dagu start` run,
// into a throwaway PostgreSQL: every kind of record arrives as the file stores read it (read back through
// the PostgreSQL stores), a second copy inserts and changes nothing, --verify finds no difference after a
// copy and every difference introduced afterwards, and unreadable files are reported and skipped. The home
// is never written to. Needs the built CLI (`npm run build:cli`).

import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PgArtifactStore } from '../../../server/store/postgres/pgArtifactStore';
import { PgDagDefinitions } from '../../../server/store/postgres/pgDagDefinitions';
import { PgDispatchStore } from '../../../server/store/postgres/pgDispatchStore';
import { PgEventLog } from '../../../server/store/postgres/pgEventLog';
import { PgQueueStore } from '../../../server/store/postgres/pgQueueStore';
import { PgRunLogStore } from '../../../server/store/postgres/pgRunLogStore';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { PgSchedulerLock } from '../../../server/store/postgres/pgSchedulerLock';
import { slotNamespaceOf } from '../../../server/store/postgres/pgControlPlane';
import { PgSchedulerStateCell } from '../../../server/store/postgres/pgSchedulerStores';
import { PgStateStore } from '../../../server/store/postgres/pgStateStore';
import {
  PgCancelRequests,
  PgCoordinatorRegistry,
  PgSuspendFlags,
  PgWorkerRegistry,
} from '../../../server/store/postgres/pgSmallStores';
import { FileDagDefinitions } from '../../../server/store/fileDagDefinitions';
import type { RunLogRef, RunLogStore } from '../../../server/store/runLogStore';
import { testTask } from '../../../server/store/dispatchStore.contract';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import { dagu, tempHome, type TempHome } from '../harness';
import { buildFileHome, fileStoresOf, snapshotDatabase, snapshotTree } from './fileHomeFixture';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

const homes: TempHome[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

let schemas = 0;
/** A home with one real run and the fixture's records, copying into a schema of its own. */
async function fixtureHome() {
  const schema = `move_${++schemas}`;
  const h = tempHome({ DAGU_POSTGRES_URL: pg().cluster.url, DAGU_POSTGRES_SCHEMA: schema });
  homes.push(h);
  h.writeDag(
    'hello',
    'steps:\n  - name: one\n    command: echo hi\n  - name: two\n    command: echo there\n',
  );
  const run = await dagu(['start', 'hello', '-q'], h.env);
  expect(run.code, run.stderr).toBe(0);
  const facts = await buildFileHome(h.home);
  return { h, schema, ...facts };
}

const migrate = (h: TempHome, ...flags: string[]) =>
  dagu(['storage', 'migrate', '--to', 'postgres', ...flags], h.env);

function pgStoresOf(schema: string) {
  return {
    runs: new PgRunStore(pool, schema, '/unused'),
    queues: new PgQueueStore(pool, schema),
    suspendFlags: new PgSuspendFlags(pool, schema),
    workers: new PgWorkerRegistry(pool, schema),
    coordinators: new PgCoordinatorRegistry(pool, schema),
    cancels: new PgCancelRequests(pool, schema),
    tasks: new PgDispatchStore(pool, schema),
    logs: new PgRunLogStore(pool, schema),
    dags: new PgDagDefinitions(pool, schema),
    artifacts: new PgArtifactStore(pool, schema),
    state: new PgStateStore(pool, schema),
  };
}

async function readAll(store: RunLogStore, ref: RunLogRef, start = 0): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const piece of store.read(ref, start, Infinity)) parts.push(piece);
  return Buffer.concat(parts).toString();
}

/** The row of `kind` in the copy's table: its counts as printed. */
const countsRow = (stdout: string, kind: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${kind}  `))
    ?.slice(kind.length)
    .trim()
    .split(/ +/)
    .map(Number);

describe('dagu storage migrate --to postgres', () => {
  it('copies every kind of record as the file stores read it, and a second copy changes nothing', async () => {
    const { h, schema, queued, tickState } = await fixtureHome();
    const files = fileStoresOf(h.home);
    const home = await snapshotTree(h.home);

    const first = await migrate(h);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    // in files, copied, already there, differing, skipped
    expect(countsRow(first.stdout, 'runs')).toEqual([10, 10, 0, 0, 0]);
    expect(countsRow(first.stdout, 'queue items')).toEqual([4, 4, 0, 0, 0]);
    expect(countsRow(first.stdout, 'dispatch tasks')).toEqual([3, 3, 0, 0, 0]);
    expect(countsRow(first.stdout, 'failover history')).toEqual([2, 2, 0, 0, 0]);
    expect(countsRow(first.stdout, 'DAG definitions')).toEqual([2, 2, 0, 0, 0]);
    expect(countsRow(first.stdout, 'scheduler state')).toEqual([1, 1, 0, 0, 0]);
    // The logs of r-done and of the real run.
    expect(countsRow(first.stdout, 'run logs')).toEqual([2, 2, 0, 0, 0]);
    // r-done's artifacts in its run folder, r-other's in its DAG's own artifacts.dir.
    expect(countsRow(first.stdout, 'run artifacts')).toEqual([2, 2, 0, 0, 0]);
    expect(countsRow(first.stdout, 'DAG state')).toEqual([3, 3, 0, 0, 0]);
    expect(await snapshotTree(h.home)).toEqual(home);

    const db = pgStoresOf(schema);
    const all = { limit: 500 };
    expect((await db.runs.listRuns(all)).items).toEqual((await files.runs.listRuns(all)).items);
    for (const { run_id: id } of (await files.runs.listRuns(all)).items) {
      expect(await db.runs.readStatus(id), id).toEqual(await files.runs.readStatus(id));
      for (const a of (await files.runs.readStoredAttempts(id))!) {
        expect(await db.runs.isClaimed(id, a.attempt)).toBe(a.claimedBy !== null);
        expect(await db.runs.readHeartbeat(id, a.attempt)).toBe(a.heartbeatMs);
        expect(await db.runs.readUnwrittenFinalStatus(id, a.attempt)).toEqual(a.unwritten);
      }
    }
    // Logs: the same files with the same bytes and line counts, read back and sought by line.
    for (const { run_id, dag_name } of (await files.runs.listRuns(all)).items) {
      const logs = await files.logs.list({ dag_name, run_id });
      expect(await db.logs.list({ dag_name, run_id }), run_id).toEqual(logs);
      for (const l of logs) {
        const ref = { dag_name, run_id, attempt: l.attempt, name: l.name };
        expect(await readAll(db.logs, ref), `${run_id} ${l.name}`).toBe(await readAll(files.logs, ref));
      }
    }
    // Artifacts: the same paths and bytes.
    for (const runId of ['r-done', 'r-other']) {
      const listed = await files.artifacts.list(runId);
      expect(listed.length, runId).toBeGreaterThan(0);
      expect(await db.artifacts.list(runId), runId).toEqual(listed);
      for (const a of listed) {
        expect(await db.artifacts.read(runId, a.path), a.path).toEqual(
          await files.artifacts.read(runId, a.path),
        );
      }
    }
    // State: every entry with its value, version, hash, times and last writer.
    for (const [scope, namespace] of [
      ['dag', 'etl'],
      ['global', '_'],
      ['custom', 'équipe'],
    ] as const) {
      const opts = { scope, namespace, keyPrefix: '', limit: 0 };
      const entries = await files.state.list(opts);
      expect(entries.length, namespace).toBe(1);
      expect(await db.state.list(opts), namespace).toEqual(entries);
    }
    expect((await db.state.get({ scope: 'dag', namespace: 'etl', key: 'count' }))?.version).toBe(2);
    const bigLog = { dag_name: 'etl', run_id: 'r-done', attempt: 1, name: 'extract.out' };
    const at = await db.logs.seekLine(bigLog, 9000);
    const fromThere = (await readAll(db.logs, bigLog, at.offset)).split('\n');
    expect(fromThere[9000 - at.line]).toBe(`line 9000 ${'x'.repeat(9000 % 50)}`);
    expect(at.offset).toBeGreaterThan(0);
    // DAGs: the same texts, file names kept, each recorded as written by the copy.
    const dagFiles = new FileDagDefinitions(h.dags);
    const texts = (dags: Awaited<ReturnType<typeof dagFiles.getMany>>) =>
      dags.map(({ name, yaml, version, fileName }) => ({ name, yaml, version, fileName }));
    const names = (await dagFiles.list()).map((d) => d.name);
    expect(names).toEqual(['hello', 'report']);
    expect(texts(await db.dags.getMany(names))).toEqual(texts(await dagFiles.getMany(names)));
    expect((await db.dags.get('report'))?.fileName).toBe('report.yml');
    expect((await db.dags.list()).map((d) => d.updatedBy)).toEqual([
      'dagu storage migrate',
      'dagu storage migrate',
    ]);
    const attempts = await pool.query<{ attempt: number; status: { status: string } }>(
      `select attempt, status from ${schema}.run_attempts where run_id = 'r-done' order by attempt`,
    );
    expect(attempts.rows.map((r) => [r.attempt, r.status.status])).toEqual([
      [1, 'failed'],
      [2, 'succeeded'],
    ]);
    expect(await db.runs.listActive()).toEqual(await files.runs.listActive());
    expect((await db.queues.list('etl')).map((q) => q.run_id)).toEqual(queued);
    for (const q of ['etl', 'other']) expect(await db.queues.list(q)).toEqual(await files.queues.list(q));
    const events = await files.events.list({ limit: 1000 });
    const eventLog = new PgEventLog(pool, schema, { nowMs: () => Date.UTC(2020, 0, 1), monoMs: () => 0 });
    expect(await eventLog.list({ limit: 1000 })).toEqual(events);
    expect(await db.suspendFlags.list()).toEqual(await files.suspendFlags.list());
    expect(await db.workers.list()).toEqual(await files.workers.list());
    expect(await db.coordinators.list()).toEqual(await files.coordinators.list());
    expect(await db.cancels.list()).toEqual(await files.cancels.list());
    expect(await db.tasks.listPending()).toEqual(await files.tasks.listPending());
    expect(await db.tasks.listClaims()).toEqual(await files.tasks.listClaims());
    const history = await new PgSchedulerLock(pool, schema).failovers();
    expect(history.map(({ at: _at, ...f }) => f)).toEqual([
      { epoch: 2, from: 'sched-a', to: 'sched-b', reason: 'stale' },
      { epoch: 1, from: null, to: 'sched-a', reason: 'acquired' },
    ]);
    expect(await new PgSchedulerStateCell(pool, schema).read()).toEqual(tickState);
    // Slots keep the run IDs they had on the files: the database names its slots as the data directory did.
    const installation = await pool.query(`select installation_id from ${schema}.installation`);
    const dataDir = path.join(h.home, 'data');
    expect(slotNamespaceOf(installation.rows[0].installation_id as string)).toBe(dataDir);
    expect(first.stdout).toContain(`slot run IDs on the database continue those of ${dataDir}`);
    // An event appended afterwards sorts after every copied one, even from a clock years behind.
    const late = await eventLog.append('after.copy', {});
    expect(late.id > events[events.length - 1].id).toBe(true);

    const before = await snapshotDatabase(pool, schema);
    const second = await migrate(h);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(countsRow(second.stdout, 'runs')).toEqual([10, 0, 10, 0, 0]);
    expect(countsRow(second.stdout, 'events')).toEqual([events.length, 0, events.length, 0, 0]);
    expect(second.stdout).toMatch(/^Copied 0 records, \d+ already there\.$/m);
    expect(await snapshotDatabase(pool, schema)).toEqual(before);
    expect(await snapshotTree(h.home)).toEqual(home);
  });

  it('--verify finds no difference after a copy, then every difference introduced on either side', async () => {
    const { h, schema } = await fixtureHome();
    expect((await migrate(h)).code).toBe(0);
    const clean = await migrate(h, '--verify');
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.stdout).toContain('No differences: the database holds every readable record of the files.');

    await pool.query(
      `update ${schema}.run_attempts set status = jsonb_set(status::jsonb, '{status}', '"failed"')::json
        where run_id = 'r-done' and attempt = 2`,
    );
    const gone = await pool.query<{ item_id: string }>(
      `delete from ${schema}.queue_items where run_id = 'r-q2' returning item_id`,
    );
    await pool.query(`update ${schema}.suspend_flags set by_whom = 'api' where dag = 'etl'`);
    await new PgWorkerRegistry(pool, schema).put({
      worker_id: 'w-extra',
      labels: {},
      max_active_runs: 1,
      running: [],
      host: 'h',
      pid: 1,
      registered_at_ms: 1,
      last_heartbeat_ms: 1,
    });
    await fileStoresOf(h.home).runs.createRun(testRunStatus({ run_id: 'r-new', status: 'succeeded' }));
    await pool.query(
      `update ${schema}.dags set yaml = yaml || '# edited', version = 'sha256:' || encode(sha256(convert_to(yaml || '# edited', 'UTF8')), 'hex')
        where name = 'report'`,
    );
    await pool.query(
      `update ${schema}.run_log_files set size = size - 1 where run_id = 'r-done' and attempt = 2 and name = 'extract.out'`,
    );
    await pool.query(
      `update ${schema}.run_artifacts set data = convert_to('# Changed\n', 'UTF8') where run_id = 'r-done' and path = 'report.md'`,
    );
    await pool.query(`delete from ${schema}.run_artifacts where run_id = 'r-other'`);
    await new PgStateStore(pool, schema).put({ scope: 'dag', namespace: 'etl', key: 'count' }, '3');
    const home = await snapshotTree(h.home);

    const found = await migrate(h, '--verify');
    expect(found.code).toBe(1);
    const lines = found.stdout.split('\n');
    expect(lines).toContain(
      'differs: run r-done: attempt 2 is succeeded in the files, failed in the database',
    );
    expect(lines).toContain(`only in the files: queue item ${gone.rows[0].item_id}`);
    expect(lines).toContain('differs: suspend flag of etl: field by differs');
    expect(lines).toContain('only in the database: worker w-extra');
    expect(lines).toContain('only in the files: run r-new');
    expect(lines).toContain('differs: DAG report: the text differs');
    expect(lines).toContain(
      'differs: logs of run r-done: attempt 2 extract.out has 5 bytes in the files, 4 in the database',
    );
    expect(lines).toContain('differs: artifacts of run r-done: report.md has other bytes in the database');
    expect(lines).toContain('only in the files: artifacts of run r-other');
    expect(lines).toContain(
      'differs: state entry ["dag","etl","count"]: fields hash, updated_at, updated_by, version differ',
    );
    expect(lines).toContain('10 differences.');
    // Verifying writes nothing on either side.
    expect(await snapshotTree(h.home)).toEqual(home);

    // A copy adds what is missing and leaves what differs as the database has it.
    const copy = await migrate(h);
    expect(copy.code).toBe(1);
    expect(copy.stdout).toContain(
      'differs: run r-done: attempt 2 is succeeded in the files, failed in the database',
    );
    expect(countsRow(copy.stdout, 'runs')).toEqual([11, 1, 9, 1, 0]);
    expect(countsRow(copy.stdout, 'run artifacts')).toEqual([2, 1, 0, 1, 0]);
    const after = await migrate(h, '--verify');
    expect(after.stdout.split('\n').filter((l) => /^(differs|only in)/.test(l))).toEqual([
      'differs: DAG report: the text differs',
      'differs: run r-done: attempt 2 is succeeded in the files, failed in the database',
      'differs: logs of run r-done: attempt 2 extract.out has 5 bytes in the files, 4 in the database',
      'differs: artifacts of run r-done: report.md has other bytes in the database',
      'differs: suspend flag of etl: field by differs',
      'differs: state entry ["dag","etl","count"]: fields hash, updated_at, updated_by, version differ',
      'only in the database: worker w-extra',
    ]);
  });

  it('reports unreadable files and skips them, copying everything else', async () => {
    const { h, schema } = await fixtureHome();
    const s = fileStoresOf(h.home);
    const data = s.dataDir;
    await s.runs.createRun(testRunStatus({ run_id: 'r-broken', status: 'succeeded' }));
    const brokenStatus = path.join(data, 'runs/r-broken/attempts/1/status.json');
    await fs.writeFile(brokenStatus, '{"version":1,"run_id":"r-bro');
    // Its active-run mark, queue item, cancel request and dispatch task are readable, but would be orphans
    // without the run (a worker given the task would start a run the database does not have).
    await s.runs.markActive({ run_id: 'r-broken', dag_name: 'etl', queue: 'stuck' });
    const stuckItem = await s.queues.enqueue({
      queue: 'stuck',
      run_id: 'r-broken',
      dag_name: 'etl',
      enqueued_at: new Date().toISOString(),
    });
    await s.cancels.request('r-broken', Date.now());
    const brokenTask = await s.tasks.enqueue(testTask({ run_id: 'r-broken', enqueued_at_ms: Date.now() }));
    const [day] = await fs.readdir(path.join(data, 'events'));
    await fs.appendFile(path.join(data, 'events', day), '{"id":"17961","type":"torn\n');
    const etl = path.join(data, 'queue', 'etl');
    const brokenItem = path.join(etl, `${(await fs.readdir(etl)).sort()[0]}`);
    await fs.writeFile(brokenItem, 'not json');
    const brokenWorker = path.join(data, 'cluster/workers/w-2.json');
    await fs.writeFile(brokenWorker, '{"worker_id":"w-2"');
    const brokenCancel = path.join(data, 'cluster/cancels/r-done');
    await fs.writeFile(brokenCancel, '');
    await fs.writeFile(path.join(h.dags, 'binary.yaml'), 'steps:\n  - name: a\u0000\n');
    const brokenState = path.join(
      data,
      'state',
      'dag',
      Buffer.from('etl').toString('hex'),
      `${Buffer.from('torn').toString('hex')}.json`,
    );
    await fs.writeFile(brokenState, '{"value":');
    await s.artifacts.put('r-broken', 'orphan.txt', Buffer.from('x'));
    // Logs of the unreadable run are not copied either: there is no attempt in the database for them.
    await s.logs.append(
      { dag_name: 'etl', run_id: 'r-broken', attempt: 1, name: 'a.out' },
      0,
      Buffer.from('x\n'),
    );

    const r = await migrate(h);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(
      lines.some((l) => l.startsWith(`skipped (unreadable): runs: r-broken: ${brokenStatus}: invalid JSON`)),
    ).toBe(true);
    expect(
      lines.some((l) =>
        l.startsWith(`skipped (unreadable): events: ${path.join(data, 'events', day)}: line `),
      ),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`skipped (unreadable): queue items: ${brokenItem}: invalid JSON`)),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`skipped (unreadable): workers: ${brokenWorker}: invalid JSON`)),
    ).toBe(true);
    expect(lines).toContain(`skipped (unreadable): cancel requests: ${brokenCancel}: empty file`);
    expect(
      lines.some((l) =>
        l.startsWith(`skipped (unreadable): DAG state: ${brokenState}: corrupt state entry: `),
      ),
    ).toBe(true);
    expect(lines).toContain(
      `skipped (unreadable): DAG definitions: binary: ${h.dags}/binary.yaml: the text contains a NUL character`,
    );
    const withRun = `run r-broken is not copied, as its status is unreadable (${brokenStatus}: invalid JSON`;
    expect(lines.some((l) => l.startsWith(`skipped with its run: active run r-broken: ${withRun}`))).toBe(
      true,
    );
    expect(
      lines.some((l) => l.startsWith(`skipped with its run: queue item ${stuckItem.item_id}: ${withRun}`)),
    ).toBe(true);
    expect(
      lines.some((l) => l.startsWith(`skipped with its run: cancel request of r-broken: ${withRun}`)),
    ).toBe(true);
    expect(
      lines.some((l) =>
        l.startsWith(`skipped with its run: dispatch task ${brokenTask.task_id}: ${withRun}`),
      ),
    ).toBe(true);
    expect(countsRow(r.stdout, 'runs')).toEqual([10, 10, 0, 0, 1]);
    expect(countsRow(r.stdout, 'queue items')).toEqual([3, 3, 0, 0, 2]);
    expect(countsRow(r.stdout, 'active runs')?.at(-1)).toBe(1);
    expect(countsRow(r.stdout, 'run logs')).toEqual([2, 2, 0, 0, 0]);
    // The unreadable run's artifacts stay behind with it; the torn state entry is skipped, the rest copied.
    expect(countsRow(r.stdout, 'run artifacts')).toEqual([2, 2, 0, 0, 0]);
    expect(countsRow(r.stdout, 'DAG state')).toEqual([3, 3, 0, 0, 1]);
    expect(countsRow(r.stdout, 'cancel requests')?.at(-1)).toBe(2);
    expect(countsRow(r.stdout, 'dispatch tasks')?.at(-1)).toBe(1);
    expect(r.stdout).toMatch(/7 skipped as unreadable; 4 skipped with their unreadable runs\.$/m);
    for (const table of [
      'runs',
      'active_runs',
      'queue_items',
      'cancel_requests',
      'dispatch_tasks',
      'run_artifacts',
    ]) {
      const there = await pool.query(`select 1 from ${schema}.${table} where run_id = 'r-broken'`);
      expect(there.rowCount, table).toBe(0);
    }

    // What was readable is all there; the unreadable files are listed again, and are no difference.
    const verify = await migrate(h, '--verify');
    expect(verify.code, verify.stdout).toBe(0);
    expect(verify.stdout).toContain(`skipped (unreadable): runs: r-broken: ${brokenStatus}`);
    expect(verify.stdout).toContain(`skipped with its run: queue item ${stuckItem.item_id}: ${withRun}`);
    expect(verify.stdout).toContain(`skipped with its run: active run r-broken: ${withRun}`);
    expect(verify.stdout).toContain(`skipped with its run: cancel request of r-broken: ${withRun}`);
    expect(verify.stdout).toContain(`skipped with its run: dispatch task ${brokenTask.task_id}: ${withRun}`);
    expect(verify.stdout).not.toMatch(/^only in the files/m);
  });
});
