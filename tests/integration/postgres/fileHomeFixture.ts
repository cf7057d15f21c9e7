// A file DAGU_HOME with a record of every kind `dagu storage migrate` copies, written by the real file
// stores (runs with several attempts, claims, heartbeats and an unwritten-status note; queued runs in two
// queues; events with two acquisitions of the scheduler lock; suspend flags, one empty as Dagu writes them;
// a worker, a coordinator, a cancel request; a pending, a held and a claimed dispatch task), plus helpers
// that capture a directory tree and a database schema, to show that a command changed neither.

import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Pool } from 'pg';
import { systemClock } from '../../../server/core/clock';
import { silentLogger } from '../../../server/core/ports';
import { testTask } from '../../../server/store/dispatchStore.contract';
import { FileArtifactStore, recordArtifactsDir } from '../../../server/store/fileArtifactStore';
import { FileCancelRequests } from '../../../server/store/fileCancelRequests';
import { FileCoordinatorRegistry } from '../../../server/store/fileCoordinatorRegistry';
import { FileDispatchStore } from '../../../server/store/fileDispatchStore';
import { FileEventLog } from '../../../server/store/fileEventLog';
import { FileQueueStore } from '../../../server/store/fileQueueStore';
import { FileRunLogStore } from '../../../server/store/fileRunLogStore';
import { FileRunStore } from '../../../server/store/fileRunStore';
import { FileStateStore } from '../../../server/store/fileStateStore';
import { FileSuspendFlags } from '../../../server/store/fileSuspendFlags';
import { FileWorkerRegistry } from '../../../server/store/fileWorkerRegistry';
import { withRunEvents } from '../../../server/store/runEvents';
import { testRunStatus } from '../../../server/testing/testRunStatus';

/** The stores of a home's data directory, as every process opens them. */
export function fileStoresOf(home: string) {
  const dataDir = path.join(home, 'data');
  const events = new FileEventLog({ dataDir, clock: systemClock });
  return {
    dataDir,
    events,
    runs: new FileRunStore({ dataDir, logDir: path.join(home, 'logs') }),
    queues: new FileQueueStore({ dataDir }),
    suspendFlags: new FileSuspendFlags(path.join(dataDir, 'suspend')),
    workers: new FileWorkerRegistry({ dataDir }),
    coordinators: new FileCoordinatorRegistry({ dataDir }),
    cancels: new FileCancelRequests({ dataDir }),
    tasks: new FileDispatchStore({ dataDir }),
    logs: new FileRunLogStore(path.join(home, 'logs')),
    artifacts: new FileArtifactStore(dataDir),
    state: new FileStateStore(path.join(dataDir, 'state')),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Writes the records; answers the IDs tests refer to. */
export async function buildFileHome(home: string) {
  const s = fileStoresOf(home);
  const now = Date.now();
  const runs = withRunEvents(s.runs, s.events, { logger: silentLogger });

  await s.events.append('scheduler.lock.acquired', {
    instance: 'sched-a',
    host: 'host-a',
    pid: 11,
    how: 'fresh',
    epoch: 1,
    previous_instance: null,
    previous_host: null,
    gap_ms: null,
    observed_gap_ms: null,
  });
  await s.events.append('scheduler.lock.acquired', {
    instance: 'sched-b',
    host: 'host-b',
    pid: 12,
    how: 'stale',
    epoch: 2,
    previous_instance: 'sched-a',
    previous_host: 'host-a',
    gap_ms: 31000,
    observed_gap_ms: 30500,
  });

  // A run that failed, then succeeded on retry.
  await runs.createRun(testRunStatus({ run_id: 'r-done', status: 'running', created_at: iso(now - 60_000) }));
  await runs.claimAttempt('r-done', 1, 'host-a:101');
  await runs.writeHeartbeat('r-done', 1, now - 55_000);
  await runs.writeStatus(
    testRunStatus({ run_id: 'r-done', status: 'failed', created_at: iso(now - 60_000) }),
  );
  await runs.createAttempt(
    testRunStatus({ run_id: 'r-done', attempt: 2, status: 'running', created_at: iso(now - 30_000) }),
  );
  await runs.writeStatus(
    testRunStatus({
      run_id: 'r-done',
      attempt: 2,
      status: 'succeeded',
      trigger_type: 'retry',
      created_at: iso(now - 30_000),
    }),
  );
  await runs.unmarkActive('r-done');
  // Its logs: a large one (several chunks), one whose last line has no newline yet, an empty one.
  const log = (attempt: number, name: string) => ({ dag_name: 'etl', run_id: 'r-done', attempt, name });
  const big = Buffer.from(
    Array.from({ length: 12_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 50)}\n`).join(''),
  );
  await s.logs.append(log(1, 'extract.out'), 0, big);
  await s.logs.append(log(1, 'extract.err'), 0, Buffer.from('warning: slow\nfailed without a newline'));
  await s.logs.append(log(2, 'extract.out'), 0, Buffer.from('done\n'));
  await s.logs.append(log(2, 'extract.err'), 0, new Uint8Array(0));
  // Its artifacts, in the run's own folder: a text and a binary file in a subfolder.
  await s.artifacts.put('r-done', 'report.md', Buffer.from('# Report\n'));
  await s.artifacts.put(
    'r-done',
    'out/data.bin',
    Uint8Array.from({ length: 70_000 }, (_, i) => i % 251),
  );

  // Queued runs: three in queue etl, enqueued in this order, and one in queue other.
  const queued = ['r-q1', 'r-q2', 'r-q3'];
  for (const [i, runId] of queued.entries()) {
    const at = iso(now - 20_000 + i);
    await runs.createRun(testRunStatus({ run_id: runId, created_at: at, queued_at: at }));
    await s.queues.enqueue({ queue: 'etl', run_id: runId, dag_name: 'etl', enqueued_at: at });
  }
  await runs.createRun(
    testRunStatus({ run_id: 'r-other', dag_name: 'report', queue: 'other', created_at: iso(now - 19_000) }),
  );
  await s.queues.enqueue({ queue: 'other', run_id: 'r-other', dag_name: 'report', enqueued_at: iso(now) });
  // A run of a DAG with its own artifacts.dir, which the run recorded.
  await recordArtifactsDir(s.dataDir, 'r-other', path.join(home, 'own-artifacts', 'report', 'r-other'));
  await s.artifacts.put('r-other', 'summary.json', Buffer.from('{"rows":3}\n'));

  // Runs handed to workers: one held for a zone no worker serves yet, one a worker claimed.
  await runs.createRun(testRunStatus({ run_id: 'r-held', created_at: iso(now - 18_000) }));
  await s.tasks.enqueue(
    testTask({
      run_id: 'r-held',
      enqueued_at_ms: now - 18_000,
      worker_selector: { zone: 'b' },
      hold_until_ms: now + 600_000,
      wait_ms: 600_000,
    }),
  );
  await runs.createRun(testRunStatus({ run_id: 'r-claimed', created_at: iso(now - 17_000) }));
  await s.tasks.enqueue(testTask({ run_id: 'r-claimed', enqueued_at_ms: now - 17_000 }));
  const claimed = await s.tasks.claimNext({ worker_id: 'w-1', labels: { zone: 'a' } }, now - 16_000);
  if (claimed?.run_id !== 'r-claimed') throw new Error('the fixture expected r-claimed to be claimed');
  await runs.createRun(testRunStatus({ run_id: 'r-pending', created_at: iso(now - 15_000) }));
  await s.tasks.enqueue(testTask({ run_id: 'r-pending', enqueued_at_ms: now - 15_000 }));
  await s.cancels.request('r-claimed', now - 1000);

  // A running run whose final status could not be written.
  await runs.createRun(testRunStatus({ run_id: 'r-note', status: 'running', created_at: iso(now - 10_000) }));
  await runs.recordUnwrittenFinalStatus('r-note', 1, { state: 'succeeded', error_code: 'ENOSPC' });

  // The tick state a scheduler left: what the first scheduler on the database must not replay again.
  const tickState = {
    version: 1,
    last_tick_ms: now - 60_000,
    dags: { etl: { last_slot_ms: now - 120_000 } },
  };
  await fs.mkdir(path.join(s.dataDir, 'scheduler'), { recursive: true });
  await fs.writeFile(path.join(s.dataDir, 'scheduler', 'tick-state.json'), `${JSON.stringify(tickState)}\n`);

  // A DAG file named .yml, besides the home's own .yaml DAGs.
  await fs.writeFile(
    path.join(home, 'dags', 'report.yml'),
    'steps:\n  - name: report\n    command: echo report\n',
  );

  await s.suspendFlags.suspend({ dag: 'etl', suspended_at: iso(now - 5000), by: 'cli' });
  await fs.writeFile(path.join(s.dataDir, 'suspend', 'legacy.suspend'), '');
  await s.workers.put({
    worker_id: 'w-1',
    labels: { zone: 'a' },
    max_active_runs: 4,
    running: [{ run_id: 'r-claimed', attempt: 1 }],
    host: 'host-w',
    pid: 77,
    registered_at_ms: now - 100_000,
    last_heartbeat_ms: now - 2000,
  });
  await s.coordinators.put({
    version: 1,
    coordinator_id: 'host-c-50055',
    host: 'host-c',
    pid: 88,
    url: 'http://host-c:50055',
    started_at_ms: now - 200_000,
    last_seen_ms: now - 3000,
    fresh_for_ms: 15_000,
    stopped_at_ms: null,
  });
  // State entries of three scopes: one written twice (version 2), a key with a slash, a non-ASCII namespace.
  const by = { dag_name: 'etl', dag_run_id: 'r-done', step_name: 'count' };
  await s.state.put({ scope: 'dag', namespace: 'etl', key: 'count' }, '1', { updatedBy: by });
  await s.state.put({ scope: 'dag', namespace: 'etl', key: 'count' }, '2', { updatedBy: by });
  await s.state.put({ scope: 'global', namespace: '_', key: 'cursor/last' }, '{"b":1,"a":[true,null]}');
  await s.state.put({ scope: 'custom', namespace: 'équipe', key: 'ünïcode' }, '"value"');
  return { queued, tickState };
}

/** Every file and directory under `dir` with its size, mtime and content hash: equal means untouched. */
export async function snapshotTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for (const e of (await fs.readdir(d, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const p = path.join(d, e.name);
      const st = await fs.lstat(p);
      if (e.isDirectory()) {
        out.push(`${path.relative(dir, p)}/ ${st.mtimeMs}`);
        await walk(p);
      } else {
        const hash = createHash('sha256')
          .update(await fs.readFile(p))
          .digest('hex');
        out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs} ${hash}`);
      }
    }
  };
  await walk(dir);
  return out;
}

const TABLES = [
  'dags',
  'dag_revision',
  'run_log_files',
  'run_log_chunks',
  'runs',
  'run_attempts',
  'active_runs',
  'queue_items',
  'events',
  'event_clock',
  'failover_events',
  'scheduler_state',
  'suspend_flags',
  'workers',
  'coordinators',
  'cancel_requests',
  'dispatch_tasks',
  'scheduler_lease',
];

/** Every row of every table of the schema, as text: equal means the database did not change. */
export async function snapshotDatabase(pool: Pool, schema: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const r = await pool.query<{ row: string }>(`select t::text as row from ${schema}.${t} t order by 1`);
    out[t] = r.rows.map((x) => x.row);
  }
  return out;
}
