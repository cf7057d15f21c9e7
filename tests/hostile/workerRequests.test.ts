// Hostile and broken worker API requests, over HTTP to a real coordinator server on the file stores of a seeded
// DAGU_HOME: a wrong or missing token, an unknown worker, a claim that is not the sender's, a status for a
// superseded attempt or for another worker's run, malformed bodies and paths. Each gets its exact answer, and
// the data directory (runs, claims, pending tasks, workers) is byte for byte what it was.

import http from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config/loadConfig';
import { assembleCoordinator, type CoordinatorParts } from '../../server/coordinator/assembleCoordinator';
import { fileCoordinatorStores } from '../../server/cli/composeCoordinator';
import { newRunDispatch, nextAttemptDispatch } from '../../server/core/dispatcherApi';
import { COORDINATOR_PATHS } from '../../server/coordinator/protocol';
import { systemClock, systemTimers } from '../../server/core/clock';
import type { DagSpec, RunStatus } from '../../server/core/types';
import { RecordingLogger } from '../../server/testing/recordingLogger';
import { loadDag } from '../../server/store/dagCatalog';
import type { DispatchStore, DispatchTask } from '../../server/store/dispatchTypes';
import type { RunStore } from '../../server/store/types';
import { snapshotTree } from './dataDirSnapshot';
import { seededHome, type SeededHome } from './seededHome';
import { jsonError } from './jsonError';

const TOKEN = 'worker-suite-token';
const ZONE_B = { zone: 'b' };

let home: SeededHome;
let parts: CoordinatorParts;
let runs: RunStore;
let tasks: DispatchStore;
let logger: RecordingLogger;
let dag: DagSpec;
/** A task w1 claimed and has not acknowledged yet. */
let claimed: DispatchTask;
/** Attempt 1 of `retried-1` as w1 last reported it, before attempt 2 superseded it. */
let superseded: RunStatus;
/** `taken-1`, which w1 acknowledged and reported running. */
let taken: RunStatus;

interface Reply {
  status: number;
  body: Record<string, unknown> | null;
}

function call(
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
): Promise<Reply> {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const url = new URL(parts.server.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: urlPath,
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Reply['body']) : null });
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
    req.end(payload);
  });
}

const heartbeat = (workerId: string, running: Array<{ run_id: string; attempt: number }> = []) => ({
  worker_id: workerId,
  labels: ZONE_B,
  max_active_runs: 4,
  running,
  host: `${workerId}.example`,
  pid: 100,
});

async function poll(workerId: string): Promise<DispatchTask> {
  const r = await call('POST', COORDINATOR_PATHS.poll, {
    worker_id: workerId,
    labels: ZONE_B,
    wait_ms: 2000,
  });
  expect(r.status).toBe(200);
  return (r.body as { task: DispatchTask }).task;
}

async function latest(runId: string): Promise<RunStatus> {
  const r = await runs.readStatus(runId);
  if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
  return r.status;
}

/** What w1 would send for `s`: running, first step started. */
function running(s: RunStatus): RunStatus {
  const now = new Date().toISOString();
  return { ...s, status: 'running', started_at: now, conditions: [] };
}

beforeAll(async () => {
  home = await seededHome();
  home.writeDag('remote', 'worker_selector:\n  zone: b\nsteps:\n  - name: work\n    command: echo work\n');
  const config = loadConfig({ env: home.env });
  logger = new RecordingLogger();
  const stores = fileCoordinatorStores(config, logger);
  runs = stores.runs;
  tasks = stores.tasks;
  parts = assembleCoordinator({
    stores,
    settings: {
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      tls: { cert_file: null, key_file: null },
      waitMs: 60_000,
      staleMs: 60_000,
      detectionIntervalMs: 5_000,
      reservationTtlMs: 60_000,
      logsRoot: config.paths.log_dir,
      pollTickMs: 20,
    },
    clock: systemClock,
    timers: systemTimers,
    logger,
    loadDag: (name) => loadDag(config.paths.dags_dir, name),
  });
  await parts.server.start();
  const loaded = await loadDag(config.paths.dags_dir, 'remote');
  if (!loaded.ok) throw new Error('remote DAG does not load');
  dag = loaded.dag;

  for (const w of ['w1', 'w2'])
    expect((await call('POST', COORDINATOR_PATHS.heartbeat, heartbeat(w))).status).toBe(200);
  const take = async (runId: string) => {
    await parts.dispatcher.dispatch(newRunDispatch(dag, runId, { selector: ZONE_B }));
    const task = await poll('w1');
    const ack = await call('POST', COORDINATOR_PATHS.ack(task.task_id), {
      worker_id: 'w1',
      token: task.claim!.token,
    });
    expect(ack.body).toEqual({ accepted: true });
    const report = await call('POST', COORDINATOR_PATHS.status(runId), {
      worker_id: 'w1',
      status: running(await latest(runId)),
    });
    expect(report.body).toEqual({ accepted: true, cancel: false });
    return latest(runId);
  };
  taken = await take('taken-1');
  // retried-1 fails on w1, then a retry makes attempt 2: w1's attempt 1 is superseded.
  superseded = await take('retried-1');
  const failed = { ...superseded, status: 'failed' as const, finished_at: new Date().toISOString() };
  expect(
    (await call('POST', COORDINATOR_PATHS.status('retried-1'), { worker_id: 'w1', status: failed })).body,
  ).toEqual({
    accepted: true,
    cancel: false,
  });
  await parts.dispatcher.dispatch(newRunDispatch(dag, 'claimed-1', { selector: ZONE_B }));
  claimed = await poll('w1');
  await parts.dispatcher.dispatch(nextAttemptDispatch(dag, await latest('retried-1'), 'retry'));
  expect(await latest('retried-1')).toMatchObject({ attempt: 2, status: 'queued' });
});

afterAll(async () => {
  await parts.server.stop();
  home.cleanup();
});

const NO_TOKEN = 'a valid bearer token is required (Authorization: Bearer <coordinator.token>)';

interface WorkerCase {
  what: string;
  request: () => Promise<Reply>;
  status: number;
  body: () => unknown;
}

const refused = (code: string, message: string) => () => ({ error: { code, message } });
const rejected = (error: string) => () => ({ accepted: false, cancel: true, error });

const CASES: WorkerCase[] = [
  {
    what: 'a worker list without a token',
    request: () => call('GET', COORDINATOR_PATHS.workers, undefined, {}),
    status: 401,
    body: refused('unauthorized', NO_TOKEN),
  },
  {
    what: 'a heartbeat with a wrong token',
    request: () =>
      call('POST', COORDINATOR_PATHS.heartbeat, heartbeat('intruder'), { authorization: 'Bearer guessed' }),
    status: 401,
    body: refused('unauthorized', NO_TOKEN),
  },
  {
    what: 'a poll with the token sent as basic auth',
    request: () =>
      call(
        'POST',
        COORDINATOR_PATHS.poll,
        { worker_id: 'w1', labels: ZONE_B, wait_ms: 0 },
        {
          authorization: `Basic ${Buffer.from(`w1:${TOKEN}`).toString('base64')}`,
        },
      ),
    status: 401,
    body: refused('unauthorized', NO_TOKEN),
  },
  {
    what: 'a poll from a worker that never registered',
    request: () => call('POST', COORDINATOR_PATHS.poll, { worker_id: 'ghost', labels: ZONE_B, wait_ms: 0 }),
    status: 409,
    body: refused('not_registered', 'worker ghost must register first (send a heartbeat)'),
  },
  {
    what: 'an acknowledgement of a claim that is not the sender’s',
    request: () =>
      call('POST', COORDINATOR_PATHS.ack(claimed.task_id), { worker_id: 'w2', token: claimed.claim!.token }),
    status: 409,
    body: () => ({
      accepted: false,
      error: `the claim of task ${claimed.task_id} belongs to another worker`,
    }),
  },
  {
    what: 'an acknowledgement with a wrong claim token',
    request: () => call('POST', COORDINATOR_PATHS.ack(claimed.task_id), { worker_id: 'w1', token: 'forged' }),
    status: 409,
    body: () => ({
      accepted: false,
      error: `task ${claimed.task_id} has no claim to acknowledge (it expired, or was never made)`,
    }),
  },
  {
    what: 'an acknowledgement of a task ID that climbs out of the claims directory',
    request: () => call('POST', '/api/v1/tasks/..%2F..%2Fpending%2Fx/ack', { worker_id: 'w1', token: 't' }),
    status: 400,
    body: refused('bad_request', 'invalid task ID "../../pending/x"'),
  },
  {
    what: 'a status for a superseded attempt',
    request: () =>
      call('POST', COORDINATOR_PATHS.status('retried-1'), { worker_id: 'w1', status: running(superseded) }),
    status: 200,
    body: rejected('stale attempt: run retried-1 is at attempt 2'),
  },
  {
    what: 'a status for a run another worker holds',
    request: () =>
      call('POST', COORDINATOR_PATHS.status('taken-1'), { worker_id: 'w2', status: running(taken) }),
    status: 200,
    body: rejected("run taken-1 is not worker w2's"),
  },
  {
    what: 'a status posted under another run’s path',
    request: () =>
      call('POST', COORDINATOR_PATHS.status('good-run'), { worker_id: 'w1', status: running(taken) }),
    status: 200,
    body: rejected('the status names run taken-1, not good-run'),
  },
  {
    what: 'a status for a run that does not exist',
    request: () =>
      call('POST', COORDINATOR_PATHS.status('no-such-run'), {
        worker_id: 'w1',
        status: { ...running(taken), run_id: 'no-such-run' },
      }),
    status: 200,
    body: rejected('run no-such-run does not exist'),
  },
  {
    what: 'a status whose steps are not a list',
    request: () =>
      call('POST', COORDINATOR_PATHS.status('taken-1'), {
        worker_id: 'w1',
        status: { ...running(taken), steps: 'all' },
      }),
    status: 400,
    body: refused('bad_request', 'status.steps: Invalid input: expected array, received string'),
  },
  {
    what: 'a log chunk whose file name climbs out of the log directory',
    request: () =>
      call('POST', COORDINATOR_PATHS.logs('taken-1'), {
        worker_id: 'w1',
        attempt: 1,
        file: '../../config.yaml',
        offset: 0,
        data: 'x',
        encoding: 'utf8',
      }),
    status: 400,
    body: refused('bad_request', 'file: use 1 to 200 letters, digits, "_", "." or "-"'),
  },
  {
    what: 'a log chunk for a run another worker holds',
    request: () =>
      call('POST', COORDINATOR_PATHS.logs('taken-1'), {
        worker_id: 'w2',
        attempt: 1,
        file: 'work.stdout.log',
        offset: 0,
        data: 'forged output',
        encoding: 'utf8',
      }),
    status: 409,
    body: refused('not_your_run', "attempt 1 of run taken-1 is not worker w2's"),
  },
  {
    what: 'a heartbeat with a worker ID that climbs out of the workers directory',
    request: () => call('POST', COORDINATOR_PATHS.heartbeat, heartbeat('../w1')),
    status: 400,
    body: refused('bad_request', 'worker_id: not a valid worker ID'),
  },
  {
    what: 'a heartbeat missing its fields',
    request: () => call('POST', COORDINATOR_PATHS.heartbeat, { worker_id: 'w9' }),
    status: 400,
    body: refused(
      'bad_request',
      'labels: Invalid input: expected record, received undefined; ' +
        'max_active_runs: Invalid input: expected number, received undefined; ' +
        'running: Invalid input: expected array, received undefined; ' +
        'host: Invalid input: expected string, received undefined; ' +
        'pid: Invalid input: expected number, received undefined',
    ),
  },
  {
    what: 'a heartbeat that is not JSON',
    request: () => call('POST', COORDINATOR_PATHS.heartbeat, '{"worker_id": "w1",'),
    status: 400,
    body: refused('bad_request', 'the body is not valid JSON'),
  },
  {
    what: 'a heartbeat with an empty body',
    request: () => call('POST', COORDINATOR_PATHS.heartbeat, ''),
    status: 400,
    body: refused('bad_request', 'a JSON body is required'),
  },
  {
    what: 'a heartbeat sent as a form',
    request: () =>
      call('POST', COORDINATOR_PATHS.heartbeat, 'worker_id=w1', {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/x-www-form-urlencoded',
      }),
    status: 415,
    body: refused(
      'unsupported_media_type',
      'the body must be JSON (Content-Type: application/x-www-form-urlencoded)',
    ),
  },
  {
    what: 'a heartbeat over 256 KiB',
    request: () =>
      call('POST', COORDINATOR_PATHS.heartbeat, { ...heartbeat('w1'), host: 'h'.repeat(300 * 1024) }),
    status: 413,
    body: refused('payload_too_large', 'the body is larger than 262144 bytes'),
  },
  {
    what: 'a GET on the poll route',
    request: () => call('GET', COORDINATOR_PATHS.poll),
    status: 405,
    body: refused('method_not_allowed', 'GET is not allowed on /api/v1/tasks/poll'),
  },
  {
    what: 'a run ID that climbs out of the runs directory',
    request: () => call('GET', '/api/v1/runs/..%2F..%2Fscheduler'),
    status: 400,
    body: refused('bad_request', 'invalid run ID "../../scheduler"'),
  },
  {
    what: 'a path that is not valid percent-encoding',
    request: () => call('POST', '/api/v1/runs/%E0%A4%A/cancel', {}),
    status: 400,
    body: refused('bad_request', 'the path segment "%E0%A4%A" is not valid percent-encoding'),
  },
];

describe('a hostile or broken worker API request', () => {
  it.each(CASES)('$what: $status with the exact answer, and nothing written', async (c) => {
    const before = snapshotTree(home.data);
    const reply = await c.request();
    expect(reply.status).toBe(c.status);
    expect(reply.body).toEqual(c.body());
    expect(snapshotTree(home.data)).toEqual(before);
  });

  it('leaves every run, claim and pending task as it was', async () => {
    expect(await latest('taken-1')).toEqual(taken);
    expect(await latest('retried-1')).toMatchObject({ attempt: 2, status: 'queued', worker_id: null });
    expect((await tasks.listClaims()).map((t) => [t.task_id, t.claim?.worker_id])).toEqual([
      [claimed.task_id, 'w1'],
    ]);
    const workers = await call('GET', COORDINATOR_PATHS.workers);
    expect(
      (workers.body as { workers: Array<{ worker_id: string }> }).workers.map((w) => w.worker_id),
    ).toEqual(['w1', 'w2']);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});

/** The head of a pending task file of run `lost-<n>`: the fields the store checks first. */
function lostTask(n: number) {
  return {
    version: 1,
    task_id: `000000000000${n}-lost-${n}-1`,
    run_id: `lost-${n}`,
    attempt: 1,
    dag_name: 'remote',
  };
}

const truncatedTask = JSON.stringify(lostTask(1)).slice(0, 90);
const DISPATCH_CASES = [
  { what: 'a truncated task file', n: 1, content: truncatedTask, error: jsonError(truncatedTask) },
  { what: 'an empty task file', n: 2, content: '', error: 'empty file' },
  {
    what: 'a task file of another version',
    n: 3,
    content: JSON.stringify({ ...lostTask(3), version: 2 }),
    error: 'unknown version 2',
  },
  {
    what: 'a task file renamed to another run',
    n: 4,
    content: JSON.stringify({ ...lostTask(4), run_id: 'taken-1' }),
    error: 'run_id or attempt does not match the file name',
  },
];

describe('a damaged dispatch task file', () => {
  beforeAll(async () => {
    // retried-1's attempt 2 is the oldest pending task: out of the way, so each case sees only its own.
    expect(await poll('w2')).toMatchObject({ run_id: 'retried-1', attempt: 2 });
  });

  it.each(DISPATCH_CASES)(
    '$what: skipped with one warning naming it, kept, and the task behind it still reaches a worker',
    async (c) => {
      const pending = path.join(home.data, 'cluster', 'pending', `${lostTask(c.n).task_id}.json`);
      writeFileSync(pending, c.content);
      // Its file name is older than any real task: first in line, so a poller stuck on it would starve.
      await parts.dispatcher.dispatch(newRunDispatch(dag, `behind-${c.n}`, { selector: ZONE_B }));
      expect(await poll('w2')).toMatchObject({ run_id: `behind-${c.n}`, attempt: 1 });
      // A second poll reads the pending directory again: the damage is not reported twice.
      const again = await call('POST', COORDINATOR_PATHS.poll, {
        worker_id: 'w2',
        labels: ZONE_B,
        wait_ms: 0,
      });
      expect(again.status).toBe(204);

      const warnings = logger.lines.filter(
        (l) => l.msg === 'Skipping a corrupt dispatch task file' && l.fields.path === pending,
      );
      expect(warnings.map((w) => w.fields)).toEqual([{ path: pending, error: c.error }]);
      expect(readFileSync(pending, 'utf8')).toBe(c.content);
    },
  );
});
