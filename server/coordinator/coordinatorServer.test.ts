import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock, systemTimers } from '../core/clock';
import type { Labels } from '../core/distributed';
import { dagFromYaml } from '../testing/dagFromYaml';
import { RecordingLogger } from '../testing/recordingLogger';
import { newRunDispatch } from '../core/dispatcherApi';
import { freshStepStatus } from '../core/runStatus';
import type { DispatchTask } from '../store/dispatchTypes';
import { MemoryStateStore } from '../store/memoryStateStore';
import { MemoryCancelRequests } from '../store/memoryCancelRequests';
import { FileRunLogStore } from '../store/fileRunLogStore';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryRunStore } from '../store/memoryRunStore';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';
import { assembleCoordinator, type CoordinatorParts } from './assembleCoordinator';
import { TlsFileError } from './errors';
import { writeSelfSignedCert } from '../testing/selfSignedCert';
import { COORDINATOR_PATHS } from './protocol';
import { etl } from './testing/coordinatorHarness';
import { FaultyDispatchStore } from './testing/faultyDispatchStore';

const TOKEN = 's3cret-token';
const child = dagFromYaml('child', 'worker_selector:\n  zone: b\n');

/** MemoryRunStore whose log directories are real directories under `root`. */
class TmpLogRunStore extends MemoryRunStore {
  constructor(private readonly root: string) {
    super();
  }
  override logDir(dagName: string, runId: string, attempt: number): string {
    super.logDir(dagName, runId, attempt);
    return path.join(this.root, dagName, runId, String(attempt));
  }
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

interface Started extends CoordinatorParts {
  dir: string;
  logsRoot: string;
  runs: TmpLogRunStore;
  /** The dispatch store the coordinator works on. */
  tasks: FaultyDispatchStore;
  logger: RecordingLogger;
  call(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  heartbeat(workerId: string, labels: Labels): Promise<Reply>;
}

const started: Started[] = [];

afterEach(async () => {
  for (const s of started.splice(0)) {
    await s.server.stop();
    await rm(s.dir, { recursive: true, force: true });
  }
});

function request(
  url: string,
  method: string,
  body: string | undefined,
  headers: Record<string, string>,
  ca?: Buffer,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const lib = url.startsWith('https:') ? https : http;
    const req = lib.request(url, { method, headers, ...(ca ? { ca } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Resolves once a poll has looked for a task and found none, and so waits: from here on a dispatch must
 * wake it and a stop must end it. (After the poller's own continuation: it starts waiting in the same turn.)
 */
function pollWaiting(s: Started): Promise<void> {
  return new Promise((resolve) => {
    const claimNext = s.tasks.claimNext.bind(s.tasks);
    const spy = vi.spyOn(s.tasks, 'claimNext').mockImplementation(async (worker, nowMs) => {
      const task = await claimNext(worker, nowMs);
      if (task === null) {
        spy.mockRestore();
        setImmediate(resolve);
      }
      return task;
    });
  });
}

async function startCoordinator(
  opts: { token?: string | null; tls?: { cert_file: string; key_file: string }; ca?: Buffer } = {},
): Promise<Started> {
  const dir = await mkdtemp(path.join(tmpdir(), 'dagu-coord-http-'));
  const logsRoot = path.join(dir, 'logs');
  const runs = new TmpLogRunStore(logsRoot);
  const logger = new RecordingLogger();
  const tasks = new FaultyDispatchStore(new MemoryDispatchStore(), { durable: true });
  const parts = assembleCoordinator({
    stores: {
      runs,
      tasks,
      workers: new MemoryWorkerRegistry(),
      cancels: new MemoryCancelRequests(),
      logs: new FileRunLogStore(logsRoot),
      state: new MemoryStateStore(),
    },
    settings: {
      host: '127.0.0.1',
      port: 0,
      token: opts.token === undefined ? TOKEN : opts.token,
      tls: opts.tls ?? { cert_file: null, key_file: null },
      waitMs: 60_000,
      staleMs: 10_000,
      detectionIntervalMs: 5_000,
      reservationTtlMs: 30_000,
      logsRoot,
      pollTickMs: 20,
    },
    clock: systemClock,
    timers: systemTimers,
    logger,
    loadDag: async (name) =>
      name === 'child' ? { ok: true, dag: child, warnings: [] } : { ok: false, notFound: true },
  });
  await parts.server.start();
  const s: Started = {
    ...parts,
    dir,
    logsRoot,
    runs,
    tasks,
    logger,
    call: (method, urlPath, body, headers = {}) =>
      request(
        parts.server.url + urlPath,
        method,
        body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        {
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(opts.token === null ? {} : { Authorization: `Bearer ${TOKEN}` }),
          ...headers,
        },
        opts.ca,
      ),
    heartbeat: (workerId, labels) =>
      s.call('POST', COORDINATOR_PATHS.heartbeat, {
        worker_id: workerId,
        labels,
        max_active_runs: 2,
        running: [],
        host: `${workerId}.example`,
        pid: 99,
      }),
  };
  started.push(s);
  return s;
}

function dispatchEtl(s: Started, runId: string, selector: Labels) {
  return s.dispatcher.dispatch(newRunDispatch(etl, runId, { selector }));
}

/** Polls and acknowledges for `workerId`; returns the task. */
async function take(s: Started, workerId: string, labels: Labels): Promise<DispatchTask> {
  const polled = await s.call('POST', COORDINATOR_PATHS.poll, { worker_id: workerId, labels, wait_ms: 2000 });
  expect(polled.status).toBe(200);
  const task = polled.body.task as DispatchTask;
  const ack = await s.call('POST', COORDINATOR_PATHS.ack(task.task_id), {
    worker_id: workerId,
    token: task.claim!.token,
  });
  expect(ack.body).toEqual({ accepted: true });
  return task;
}

describe('CoordinatorServer', () => {
  it('serves GET /health without a token', async () => {
    const s = await startCoordinator();

    const reply = await s.call('GET', '/health', undefined, { Authorization: '' });

    expect(reply).toMatchObject({ status: 200, body: { status: 'healthy' } });
  });

  it('refuses every other route without the configured bearer token', async () => {
    const s = await startCoordinator();

    const none = await s.call('GET', COORDINATOR_PATHS.workers, undefined, { Authorization: '' });
    const wrong = await s.call('GET', COORDINATOR_PATHS.workers, undefined, { Authorization: 'Bearer nope' });
    const right = await s.call('GET', COORDINATOR_PATHS.workers);

    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
    expect(wrong.status).toBe(401);
    expect(right).toMatchObject({ status: 200, body: { workers: [] } });
  });

  it('asks for no token when none is configured', async () => {
    const s = await startCoordinator({ token: null });

    expect((await s.call('GET', COORDINATOR_PATHS.workers)).status).toBe(200);
  });

  it('answers an unknown route 404 and a wrong method 405, in JSON', async () => {
    const s = await startCoordinator();

    const missing = await s.call('GET', '/api/v1/nothing');
    const method = await s.call('GET', COORDINATOR_PATHS.poll);

    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    expect(method.status).toBe(405);
    expect(method.headers.allow).toBe('POST');
  });

  it('answers a bad body 400 naming the field, and a body that is not JSON 400', async () => {
    const s = await startCoordinator();

    const badField = await s.call('POST', COORDINATOR_PATHS.heartbeat, {
      worker_id: 'w1',
      labels: { zone: 5 },
      max_active_runs: 1,
      running: [],
      host: 'h',
      pid: 1,
    });
    const notJson = await s.call('POST', COORDINATOR_PATHS.heartbeat, '{nope');
    const badId = await s.call('POST', COORDINATOR_PATHS.heartbeat, {
      worker_id: '../etc',
      labels: {},
      max_active_runs: 1,
      running: [],
      host: 'h',
      pid: 1,
    });

    expect(badField.status).toBe(400);
    expect(badField.body.error.message).toMatch(/^labels\.zone: /);
    expect(notJson).toMatchObject({
      status: 400,
      body: { error: { message: 'the body is not valid JSON' } },
    });
    expect(badId.body.error.message).toMatch(/^worker_id: not a valid worker ID/);
  });

  it('refuses a body over the limit with 413', async () => {
    const s = await startCoordinator();

    const reply = await s.call('POST', COORDINATOR_PATHS.heartbeat, { pad: 'x'.repeat(300 * 1024) });

    expect(reply.status).toBe(413);
  });

  it('tells an unregistered worker to register before it polls', async () => {
    const s = await startCoordinator();

    const reply = await s.call('POST', COORDINATOR_PATHS.poll, { worker_id: 'w1', labels: {}, wait_ms: 0 });

    expect(reply).toMatchObject({ status: 409, body: { error: { code: 'not_registered' } } });
  });

  it('answers a poll 204 once its wait passed with nothing to do', async () => {
    const s = await startCoordinator();
    await s.heartbeat('w1', {});

    const before = Date.now();
    const reply = await s.call('POST', COORDINATOR_PATHS.poll, { worker_id: 'w1', labels: {}, wait_ms: 200 });

    expect(reply.status).toBe(204);
    expect(Date.now() - before).toBeGreaterThanOrEqual(190);
  });

  it('hands a held run to the first matching worker that polls, and records it on ack', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-a', { zone: 'a' });
    expect((await dispatchEtl(s, 'run-1', { zone: 'b' })).outcome).toBe('held');

    const mismatch = await s.call('POST', COORDINATOR_PATHS.poll, {
      worker_id: 'worker-a',
      labels: { zone: 'a' },
      wait_ms: 50,
    });
    expect(mismatch.status).toBe(204);
    await s.heartbeat('worker-b', { zone: 'b' });
    await take(s, 'worker-b', { zone: 'b' });

    const run = await s.call('GET', COORDINATOR_PATHS.run('run-1'));
    expect(run.body.status).toMatchObject({
      status: 'queued',
      worker_id: 'worker-b',
      host: 'worker-b.example',
      conditions: [],
    });
    expect(s.logger.find('A worker claimed a held run')).toHaveLength(1);
  });

  it('wakes a waiting poll when a dispatch comes in through this coordinator', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', { zone: 'b' });

    const before = Date.now();
    const waiting = pollWaiting(s);
    const polling = s.call('POST', COORDINATOR_PATHS.poll, {
      worker_id: 'worker-b',
      labels: { zone: 'b' },
      wait_ms: 10_000,
    });
    await waiting;
    await dispatchEtl(s, 'run-1', { zone: 'b' });
    const reply = await polling;

    expect(reply.status).toBe(200);
    expect(reply.body.task.run_id).toBe('run-1');
    expect(Date.now() - before).toBeLessThan(5_000);
  });

  it('answers an ack of a claim that is not the worker’s 409', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', {});
    await dispatchEtl(s, 'run-1', {});
    const polled = await s.call('POST', COORDINATOR_PATHS.poll, {
      worker_id: 'worker-b',
      labels: {},
      wait_ms: 0,
    });
    const task = polled.body.task as DispatchTask;

    const other = await s.call('POST', COORDINATOR_PATHS.ack(task.task_id), {
      worker_id: 'worker-c',
      token: task.claim!.token,
    });

    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ accepted: false });
  });

  it('rejects a status report from a worker the run is not on', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', {});
    await dispatchEtl(s, 'run-1', {});
    await take(s, 'worker-b', {});
    const current = (await s.call('GET', COORDINATOR_PATHS.run('run-1'))).body.status;

    const reply = await s.call('POST', COORDINATOR_PATHS.status('run-1'), {
      worker_id: 'worker-c',
      status: { ...current, status: 'running' },
    });
    const mine = await s.call('POST', COORDINATOR_PATHS.status('run-1'), {
      worker_id: 'worker-b',
      status: { ...current, status: 'running' },
    });

    expect(reply).toMatchObject({ status: 200, body: { accepted: false, cancel: true } });
    expect(mine.body).toEqual({ accepted: true, cancel: false });
  });

  it("serves state operations of the worker's running run only, and refuses a bad request 400", async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', {});
    await dispatchEtl(s, 'run-1', {});
    await take(s, 'worker-b', {});
    const current = (await s.call('GET', COORDINATOR_PATHS.run('run-1'))).body.status;
    await s.call('POST', COORDINATOR_PATHS.status('run-1'), {
      worker_id: 'worker-b',
      status: { ...current, status: 'running' },
    });
    const ref = { scope: 'dag', namespace: 'etl', key: 'k' };
    const put = await s.call('POST', COORDINATOR_PATHS.state('run-1'), {
      worker_id: 'worker-b',
      attempt: 1,
      op: 'put',
      ref,
      value: '"v"',
    });
    expect(put).toMatchObject({ status: 200, body: { entry: { value: '"v"', version: 1 } } });
    const other = await s.call('POST', COORDINATOR_PATHS.state('run-1'), {
      worker_id: 'worker-c',
      attempt: 1,
      op: 'get',
      ref,
    });
    expect(other).toMatchObject({ status: 409, body: { error: { code: 'not_your_run' } } });
    for (const bad of [
      { worker_id: 'worker-b', attempt: 1, op: 'drop', ref },
      { worker_id: 'worker-b', attempt: 1, op: 'get', ref: { ...ref, scope: 'planet' } },
      { worker_id: 'worker-b', attempt: 1, op: 'put', ref, value: 'x'.repeat(2 * 1024 * 1024) },
    ]) {
      expect((await s.call('POST', COORDINATOR_PATHS.state('run-1'), bad)).status).toBe(400);
    }
  });

  it('appends log chunks at their offset, so a resend writes nothing twice', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', {});
    await dispatchEtl(s, 'run-1', {});
    await take(s, 'worker-b', {});
    const chunk = (offset: number, data: string, workerId = 'worker-b') =>
      s.call('POST', COORDINATOR_PATHS.logs('run-1'), {
        worker_id: workerId,
        attempt: 1,
        file: 'extract.out',
        offset,
        data: Buffer.from(data).toString('base64'),
        encoding: 'base64',
      });

    expect((await chunk(0, 'hello ')).body).toEqual({ accepted: true, next_offset: 6 });
    expect((await chunk(0, 'hello ')).body).toEqual({ accepted: true, next_offset: 6 });
    expect((await chunk(6, 'world')).body).toEqual({ accepted: true, next_offset: 11 });
    expect((await chunk(20, 'gap')).body).toEqual({ accepted: false, next_offset: 11 });
    expect((await chunk(11, 'intruder', 'worker-c')).status).toBe(409);

    const file = path.join(s.logsRoot, 'etl', 'run-1', '1', 'extract.out');
    expect(await readFile(file, 'utf8')).toBe('hello world');
    const badName = await s.call('POST', COORDINATOR_PATHS.logs('run-1'), {
      worker_id: 'worker-b',
      attempt: 1,
      file: '..',
      offset: 0,
      data: '',
      encoding: 'utf8',
    });
    expect(badName.status).toBe(400);
    // A file that is not a log (a step's script) is kept in the attempt's directory on this host.
    const script = await s.call('POST', COORDINATOR_PATHS.logs('run-1'), {
      worker_id: 'worker-b',
      attempt: 1,
      file: 'extract.script',
      offset: 0,
      data: 'echo hi',
      encoding: 'utf8',
    });
    expect(script.body).toEqual({ accepted: true, next_offset: 7 });
    expect(await readFile(path.join(s.logsRoot, 'etl', 'run-1', '1', 'extract.script'), 'utf8')).toBe(
      'echo hi',
    );
  });

  it('takes a piece of several logs in one request, answering each as a chunk of its own', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-b', {});
    await dispatchEtl(s, 'run-1', {});
    await take(s, 'worker-b', {});
    const batch = (chunks: Array<{ file: string; offset: number; data: string }>, workerId = 'worker-b') =>
      s.call('POST', COORDINATOR_PATHS.logs('run-1'), {
        worker_id: workerId,
        attempt: 1,
        chunks: chunks.map((c) => ({ ...c, encoding: 'utf8' })),
      });

    const first = await batch([
      { file: 'extract.out', offset: 0, data: 'hello ' },
      { file: 'extract.err', offset: 0, data: '' },
      { file: 'extract.script', offset: 0, data: 'echo hi' },
    ]);
    const again = await batch([
      { file: 'extract.out', offset: 0, data: 'hello ' },
      { file: 'load.out', offset: 4, data: 'gap' },
    ]);

    expect(first).toMatchObject({
      status: 200,
      body: {
        replies: [
          { accepted: true, next_offset: 6 },
          { accepted: true, next_offset: 0 },
          { accepted: true, next_offset: 7 },
        ],
      },
    });
    expect(again.body).toEqual({
      replies: [
        { accepted: true, next_offset: 6 },
        { accepted: false, next_offset: 0 },
      ],
    });
    const dir = path.join(s.logsRoot, 'etl', 'run-1', '1');
    expect(await readFile(path.join(dir, 'extract.out'), 'utf8')).toBe('hello ');
    expect(await readFile(path.join(dir, 'extract.err'), 'utf8')).toBe('');
    expect(await readFile(path.join(dir, 'extract.script'), 'utf8')).toBe('echo hi');
    expect((await batch([{ file: 'extract.out', offset: 6, data: 'x' }], 'worker-c')).status).toBe(409);
    const twice = await batch([
      { file: 'a.out', offset: 0, data: '' },
      { file: 'a.out', offset: 0, data: '' },
    ]);
    expect(twice).toMatchObject({ status: 400, body: { error: { code: 'bad_request' } } });
    expect((await batch([{ file: '..', offset: 0, data: '' }])).status).toBe(400);
    expect((await batch([])).status).toBe(400);
  });

  it('dispatches a sub-DAG from the catalogue with the DAG’s selector, once', async () => {
    const s = await startCoordinator();
    const body = {
      dag_name: 'child',
      run_id: 'parent-1-abc',
      params: ['X=1'],
      worker_selector: null,
      parent: null,
    };

    const first = await s.call('POST', COORDINATOR_PATHS.dispatch, body);
    const again = await s.call('POST', COORDINATOR_PATHS.dispatch, body);
    const unknown = await s.call('POST', COORDINATOR_PATHS.dispatch, { ...body, dag_name: 'missing' });

    expect(first.body).toMatchObject({
      outcome: 'held',
      run_id: 'parent-1-abc',
      status: { trigger_type: 'subdag', params: ['X=1'] },
    });
    expect(first.body.status.worker_selector).toEqual({ zone: 'b' });
    expect(again.body.outcome).toBe('held');
    expect(unknown.status).toBe(404);
  });

  it('retries one step of an ended sub-run in a new attempt, once, and refuses what cannot be retried', async () => {
    const s = await startCoordinator();
    const parent = { run_id: 'root-1', dag_name: 'root', step: 'go' };
    const body = { dag_name: 'child', run_id: 'root-1-abc', params: [], worker_selector: null, parent };
    const retry = { attempt: 1, step: 'build', downstream: false, path: null };
    expect((await s.call('POST', COORDINATOR_PATHS.dispatch, body)).body.status.parent).toEqual(parent);
    const running = await s.call('POST', COORDINATOR_PATHS.dispatch, { ...body, retry });
    expect(running.body).toMatchObject({ outcome: 'refused' });
    expect(running.body.error).toContain('attempt 1 of run root-1-abc has not ended');
    // The first attempt ends failed at its step build.
    const r = await s.runs.readStatus('root-1-abc');
    if (r.kind !== 'ok') throw new Error('no run');
    await s.runs.writeStatus(
      { ...r.status, status: 'failed', steps: [{ ...freshStepStatus('build'), status: 'failed' }] },
      r.status,
    );
    await s.tasks.delete((await s.tasks.findByRun('root-1-abc'))!.task_id);

    const unknownStep = await s.call('POST', COORDINATOR_PATHS.dispatch, {
      ...body,
      retry: { ...retry, step: 'nope' },
    });
    expect(unknownStep.body.error).toBe('retry step not found: nope in DAG run root-1-abc');
    const first = await s.call('POST', COORDINATOR_PATHS.dispatch, { ...body, retry });
    const resent = await s.call('POST', COORDINATOR_PATHS.dispatch, { ...body, retry });

    expect(first.body).toMatchObject({
      outcome: 'held',
      status: { attempt: 2, trigger_type: 'retry', parent, worker_selector: { zone: 'b' } },
    });
    expect(resent.body).toMatchObject({ outcome: 'exists', status: { attempt: 2 } });
    const task = (await s.tasks.findByRun('root-1-abc'))!;
    expect(task).toMatchObject({ attempt: 2, operation: 'retry', parent });
    expect(task.step_retry).toEqual({ step: 'build', downstream: false, path: null });
    expect(task.previous).toMatchObject({ attempt: 1, status: 'failed' });
    const badPath = await s.call('POST', COORDINATOR_PATHS.dispatch, {
      ...body,
      retry: { ...retry, path: { hops: [], step: 'x', downstream: false } },
    });
    expect(badPath.status).toBe(400);
  });

  it('cancels a held run through the API and lists workers with their health', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-a', { zone: 'a' });
    await dispatchEtl(s, 'run-1', { zone: 'b' });

    const cancelled = await s.call('POST', COORDINATOR_PATHS.cancel('run-1'));
    const workers = await s.call('GET', COORDINATOR_PATHS.workers);
    const missing = await s.call('POST', COORDINATOR_PATHS.cancel('no-such-run'));

    expect(cancelled.body).toMatchObject({
      cancelled: true,
      outcome: 'aborted',
      status: { status: 'aborted' },
    });
    expect(workers.body.workers).toEqual([
      expect.objectContaining({
        worker_id: 'worker-a',
        labels: { zone: 'a' },
        health: 'healthy',
        host: 'worker-a.example',
      }),
    ]);
    expect(missing.status).toBe(404);
  });

  it('removes a leaving worker from the worker list, and refuses a leave without a valid worker ID', async () => {
    const s = await startCoordinator();
    await s.heartbeat('worker-a', { zone: 'a' });
    await s.heartbeat('worker-b', { zone: 'b' });

    const left = await s.call('POST', COORDINATOR_PATHS.leave, { worker_id: 'worker-a' });
    const workers = await s.call('GET', COORDINATOR_PATHS.workers);
    const bad = await s.call('POST', COORDINATOR_PATHS.leave, { worker_id: '../etc' });
    const noToken = await s.call(
      'POST',
      COORDINATOR_PATHS.leave,
      { worker_id: 'worker-b' },
      {
        Authorization: 'Bearer wrong',
      },
    );

    expect(left).toMatchObject({ status: 200, body: { removed: true, run_ids: [] } });
    expect(workers.body.workers.map((w: { worker_id: string }) => w.worker_id)).toEqual(['worker-b']);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^worker_id: not a valid worker ID/);
    expect(noToken.status).toBe(401);
    expect((await s.call('GET', COORDINATOR_PATHS.workers)).body.workers).toHaveLength(1);
  });

  it('refuses a sub-DAG dispatch whose parameter contains a NUL character', async () => {
    const s = await startCoordinator();
    const reply = await s.call('POST', COORDINATOR_PATHS.dispatch, {
      dag_name: 'child',
      run_id: 'child-1',
      params: ['A=x\u0000y'],
      worker_selector: null,
      parent: null,
    });
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe('params.0: a parameter cannot contain a NUL character');
    expect(await s.runs.readStatus('child-1')).toMatchObject({ kind: 'missing' });
  });

  it('ends a waiting poll with nothing to do when it stops, and claims nothing for it afterwards', async () => {
    const s = await startCoordinator();
    await s.heartbeat('w1', {});
    const waiting = pollWaiting(s);
    const polling = s.call('POST', COORDINATOR_PATHS.poll, { worker_id: 'w1', labels: {}, wait_ms: 30_000 });
    await waiting;

    const before = Date.now();
    const stopped = s.server.stop();
    // A run dispatched as the coordinator stops waits for the next coordinator, not for this poll.
    await dispatchEtl(s, 'run-1', {});
    await stopped;

    expect((await polling).status).toBe(204);
    expect(Date.now() - before).toBeLessThan(2_000);
    expect((await s.tasks.listPending()).map((t) => t.run_id)).toEqual(['run-1']);
  });

  it('names the unreadable file when its TLS certificate cannot be read', async () => {
    await expect(
      startCoordinator({ tls: { cert_file: '/nonexistent/cert.pem', key_file: '/nonexistent/key.pem' } }),
    ).rejects.toThrow(TlsFileError);
    await expect(
      startCoordinator({ tls: { cert_file: '/nonexistent/cert.pem', key_file: '/nonexistent/key.pem' } }),
    ).rejects.toThrow(/coordinator\.tls\.cert_file: cannot use "\/nonexistent\/cert\.pem"/);
  });

  it('serves HTTPS with a configured certificate and key', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'dagu-coord-tls-'));
    try {
      const { cert, key } = writeSelfSignedCert(dir);
      const s = await startCoordinator({ tls: { cert_file: cert, key_file: key }, ca: await readFile(cert) });

      expect(s.server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect((await s.call('GET', '/health')).body).toEqual({ status: 'healthy' });
      expect((await s.call('GET', COORDINATOR_PATHS.workers)).status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
