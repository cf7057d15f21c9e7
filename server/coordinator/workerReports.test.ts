import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoUtc } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import {
  coordinatorHarness,
  START,
  STORE_KITS,
  type CoordinatorHarness,
  type StoreKit,
} from './testing/coordinatorHarness';
import { countedCalls } from './testing/countedCalls';
import { UnmarkingRunStore } from '../testing/unmarkingRunStore';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';
import { MemoryCancelRequests } from '../store/memoryCancelRequests';
import { WORKER_RECORD_REUSE_MS, WorkerReports, type WorkerReportsDeps } from './workerReports';

describe.each(STORE_KITS)('WorkerReports on $name', ({ make }) => {
  let kit: StoreKit;
  let h: CoordinatorHarness;

  beforeEach(async () => {
    kit = await make();
    h = await coordinatorHarness(kit);
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
  });
  afterEach(() => kit.dispose());

  /** The worker's view of the run, as its own runner records it under its work directory. */
  async function workerStatus(patch: Partial<RunStatus>): Promise<RunStatus> {
    const s = await h.status('run-1');
    return {
      ...s,
      worker_id: null,
      host: 'somewhere-else',
      log_dir: '/var/lib/dagu-worker/logs/etl/run-1/1',
      ...patch,
    };
  }

  it('keeps the first registration time across heartbeats', async () => {
    await h.time.advance(3 * SECOND);
    await h.heartbeat('worker-b', { zone: 'b' });

    const rec = await h.workers.get('worker-b');
    expect(rec).toMatchObject({
      registered_at_ms: START,
      last_heartbeat_ms: START + 3 * SECOND,
      host: 'worker-b-host',
    });
  });

  it('accepts the statuses of the worker that took the run, with log paths under the coordinator', async () => {
    await h.take('worker-b', { zone: 'b' });
    const now = isoUtc(h.time.nowMs());
    const base = await workerStatus({});
    const running = await workerStatus({
      status: 'running',
      started_at: now,
      pid: 777,
      steps: base.steps.map((st, i) =>
        i === 0
          ? {
              ...st,
              status: 'running',
              stdout: '/var/lib/dagu-worker/logs/etl/run-1/1/extract.out',
              stderr: 'etl/run-1/1/extract.err',
            }
          : st,
      ),
    });

    const reply = await h.reports.reportStatus('run-1', { worker_id: 'worker-b', status: running });

    expect(reply).toEqual({ accepted: true, cancel: false });
    const stored = await h.status('run-1');
    expect(stored).toMatchObject({
      status: 'running',
      worker_id: 'worker-b',
      host: 'worker-b-host',
      pid: 777,
      log_dir: 'etl/run-1/1',
    });
    expect(stored.steps[0]).toMatchObject({
      stdout: 'etl/run-1/1/extract.out',
      stderr: 'etl/run-1/1/extract.err',
    });
    expect(await h.runs.readHeartbeat('run-1', 1)).toBe(h.time.nowMs());
  });

  it('rejects a status from another worker and tells it to stop', async () => {
    await h.heartbeat('worker-c', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });

    const reply = await h.reports.reportStatus('run-1', {
      worker_id: 'worker-c',
      status: await workerStatus({ status: 'running' }),
    });

    expect(reply).toMatchObject({
      accepted: false,
      cancel: true,
      error: "run run-1 is not worker worker-c's",
    });
    expect((await h.status('run-1')).status).toBe('queued');
  });

  it('rejects a status before the ack and for a superseded attempt', async () => {
    expect(
      await h.reports.reportStatus('run-1', {
        worker_id: 'worker-b',
        status: await workerStatus({ status: 'running' }),
      }),
    ).toMatchObject({ accepted: false });
    await h.take('worker-b', { zone: 'b' });
    expect(
      await h.reports.reportStatus('run-1', {
        worker_id: 'worker-b',
        status: await workerStatus({ attempt: 2 }),
      }),
    ).toMatchObject({ accepted: false, error: 'stale attempt: run run-1 is at attempt 1' });
  });

  it('accepts the same final status twice, and nothing after it', async () => {
    await h.take('worker-b', { zone: 'b' });
    const done = await workerStatus({ status: 'succeeded', finished_at: isoUtc(h.time.nowMs()) });

    expect(await h.reports.reportStatus('run-1', { worker_id: 'worker-b', status: done })).toEqual({
      accepted: true,
      cancel: false,
    });
    expect(await h.activeIds()).toEqual([]);
    expect(await h.reports.reportStatus('run-1', { worker_id: 'worker-b', status: done })).toEqual({
      accepted: true,
      cancel: false,
    });
    expect(
      await h.reports.reportStatus('run-1', {
        worker_id: 'worker-b',
        status: await workerStatus({ status: 'running' }),
      }),
    ).toMatchObject({ accepted: false, error: 'run run-1 already ended (succeeded)' });
  });

  it('carries a pending cancel request in the status reply', async () => {
    await h.take('worker-b', { zone: 'b' });
    await h.dispatcher.cancel('run-1');

    const reply = await h.reports.reportStatus('run-1', {
      worker_id: 'worker-b',
      status: await workerStatus({ status: 'running' }),
    });

    expect(reply).toEqual({ accepted: true, cancel: true });
  });

  it('answers a heartbeat with the runs the worker must stop and keeps its own runs alive', async () => {
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');
    await h.time.advance(2 * SECOND);

    const reply = await h.heartbeat('worker-b', { zone: 'b' }, [
      { run_id: 'run-1', attempt: 1 },
      { run_id: 'run-1-old', attempt: 1 },
    ]);

    expect(reply).toEqual({ cancel: ['run-1-old'] });
    expect(await h.runs.readHeartbeat('run-1', 1)).toBe(h.time.nowMs());
    const other = await h.reports.heartbeat({
      worker_id: 'worker-c',
      labels: {},
      max_active_runs: 1,
      running: [{ run_id: 'run-1', attempt: 1 }],
      host: 'c',
      pid: 1,
    });
    expect(other).toEqual({ cancel: ['run-1'] });
  });

  it('reads the runs of a heartbeat and writes their heartbeats once each, where the run store can', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-2', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');
    await h.reportRunning('worker-b', 'run-2');
    await h.time.advance(2 * SECOND);
    const calls = new Map<string, number>();
    const count = (name: string) => calls.set(name, (calls.get(name) ?? 0) + 1);
    // As PostgreSQL's store does it, over the harness's store: many runs, one call each way.
    const runs = Object.assign(Object.create(h.runs) as typeof h.runs, {
      readStatus: async (runId: string) => {
        count('readStatus');
        return h.runs.readStatus(runId);
      },
      writeHeartbeat: async (runId: string, attempt: number, nowMs: number) => {
        count('writeHeartbeat');
        return h.runs.writeHeartbeat(runId, attempt, nowMs);
      },
      readStatusesAndClaims: async (runIds: readonly string[]) => {
        count('readStatusesAndClaims');
        const out = new Map<string, { read: Awaited<ReturnType<typeof h.runs.readStatus>>; claim: null }>();
        for (const id of runIds) out.set(id, { read: await h.runs.readStatus(id), claim: null });
        return out;
      },
      writeHeartbeats: async (
        attempts: ReadonlyArray<{ run_id: string; attempt: number }>,
        nowMs: number,
      ) => {
        count('writeHeartbeats');
        for (const a of attempts) await h.runs.writeHeartbeat(a.run_id, a.attempt, nowMs);
      },
    });
    const reports = reportsWith({ runs });
    const beat = (running: Array<{ run_id: string; attempt: number }>) =>
      reports.heartbeat({
        worker_id: 'worker-b',
        labels: { zone: 'b' },
        max_active_runs: 4,
        running,
        host: 'b',
        pid: 1,
      });

    const reply = await beat([
      { run_id: 'run-1', attempt: 1 },
      { run_id: 'run-2', attempt: 1 },
      { run_id: 'run-gone', attempt: 1 },
    ]);

    expect(reply).toEqual({ cancel: ['run-gone'] });
    expect(Object.fromEntries(calls)).toEqual({ readStatusesAndClaims: 1, writeHeartbeats: 1 });
    expect(await h.runs.readHeartbeat('run-1', 1)).toBe(h.time.nowMs());
    expect(await h.runs.readHeartbeat('run-2', 1)).toBe(h.time.nowMs());
    // One run: read and written as before.
    calls.clear();
    await h.time.advance(2 * SECOND);
    await beat([{ run_id: 'run-1', attempt: 1 }]);
    expect(Object.fromEntries(calls)).toEqual({ readStatus: 1, writeHeartbeat: 1 });
    expect(await h.runs.readHeartbeat('run-1', 1)).toBe(h.time.nowMs());
  });

  /** Reports over the harness's stores and clock, with `deps` in their place. */
  const reportsWith = (deps: Partial<WorkerReportsDeps>) =>
    new WorkerReports({
      runs: h.runs,
      tasks: h.tasks,
      workers: h.workers,
      cancels: h.cancels,
      clock: h.time,
      logger: h.logger,
      logsRoot: kit.logsRoot,
      ...deps,
    });

  /** Reports over the same stores, counting the calls made to the cancel requests. */
  function countingCancels() {
    const calls = new Map<string, number>();
    const reports = reportsWith({ cancels: countedCalls(h.cancels, calls) });
    return { calls, reports };
  }

  it('asks for a cancel request with a running status, and only clears it with a final one', async () => {
    await h.take('worker-b', { zone: 'b' });
    const { calls, reports } = countingCancels();
    const running = await workerStatus({ status: 'running', started_at: isoUtc(h.time.nowMs()) });
    await h.cancels.request('run-1', h.time.nowMs());

    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: running })).toEqual({
      accepted: true,
      cancel: true,
    });
    expect(Object.fromEntries(calls)).toEqual({ has: 1 });
    const ended = { ...running, status: 'aborted' as const, finished_at: isoUtc(h.time.nowMs()) };
    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: ended })).toEqual({
      accepted: true,
      cancel: false,
    });
    expect(Object.fromEntries(calls)).toEqual({ has: 1, clear: 1 });
    expect(await h.cancels.has('run-1')).toBe(false);
  });

  /**
   * Reports over a run store that reads a run's cancel request with its status (as PostgreSQL's does),
   * counting the calls made to the cancel requests and to that read.
   */
  function cancelsReadWithStatus() {
    const calls = new Map<string, number>();
    const runs = Object.assign(Object.create(h.runs) as typeof h.runs, {
      readStatusAndCancel: async (runId: string) => {
        calls.set('readStatusAndCancel', (calls.get('readStatusAndCancel') ?? 0) + 1);
        return { read: await h.runs.readStatus(runId), cancelRequested: await h.cancels.has(runId) };
      },
    });
    const reports = reportsWith({ runs, cancels: countedCalls(h.cancels, calls) });
    return { calls, reports };
  }

  it('takes the cancel request read with the status where the run store reads both at once', async () => {
    await h.take('worker-b', { zone: 'b' });
    const { calls, reports } = cancelsReadWithStatus();
    const running = await workerStatus({ status: 'running', started_at: isoUtc(h.time.nowMs()) });

    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: running })).toEqual({
      accepted: true,
      cancel: false,
    });
    await h.cancels.request('run-1', h.time.nowMs());
    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: running })).toEqual({
      accepted: true,
      cancel: true,
    });
    expect(Object.fromEntries(calls)).toEqual({ readStatusAndCancel: 2 });
  });

  it('aborts at its ack a run cancelled after its claim, from the cancel request read with the status', async () => {
    const task = (await h.claim('worker-b', { zone: 'b' }))!;
    await h.cancels.request('run-1', h.time.nowMs());
    const { calls, reports } = cancelsReadWithStatus();

    const ack = await reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });

    expect(ack).toMatchObject({ accepted: false, reason: 'cancelled' });
    expect((await h.status('run-1')).status).toBe('aborted');
    // Read once with the status; the request is then cleared, as the ack always did.
    expect(Object.fromEntries(calls)).toEqual({ readStatusAndCancel: 1, clear: 1 });
  });

  /** Reports over the same stores that write the logs a final status carries, into `written`. */
  function withLogs() {
    const written: Array<{ file: string; offset: number; data: string; statusThen: string }> = [];
    const held = new Map<string, number>();
    const reports = reportsWith({
      logs: {
        appendChunks: async (s, chunks) => {
          const statusThen = (await h.status(s.run_id)).status;
          return chunks.map((c) => {
            const size = held.get(c.file) ?? 0;
            if (c.offset !== size) return { accepted: c.offset + c.data.length <= size, next_offset: size };
            if (c.data === '') return { accepted: true, next_offset: size };
            written.push({ file: c.file, offset: c.offset, data: c.data, statusThen });
            held.set(c.file, size + c.data.length);
            return { accepted: true, next_offset: size + c.data.length };
          });
        },
      },
    });
    return { reports, written };
  }

  it('writes the logs a final status carries before the status, and answers each piece', async () => {
    await h.take('worker-b', { zone: 'b' });
    const { reports, written } = withLogs();
    const ended = await workerStatus({ status: 'succeeded', finished_at: isoUtc(h.time.nowMs()) });
    const logs = [
      { file: '_run.log', offset: 0, data: 'done\n', encoding: 'utf8' as const },
      { file: 'extract.out', offset: 0, data: '', encoding: 'utf8' as const },
    ];
    const taken = {
      accepted: true,
      cancel: false,
      logs: [
        { accepted: true, next_offset: 5 },
        { accepted: true, next_offset: 0 },
      ],
    };
    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: ended, logs })).toEqual(
      taken,
    );
    // Written while the run was still queued: nobody sees it ended without its logs.
    expect(written.map((w) => [w.file, w.statusThen])).toEqual([['_run.log', 'queued']]);
    expect((await h.status('run-1')).status).toBe('succeeded');

    // The same report again (its reply was lost): taken, and nothing is written twice.
    expect(await reports.reportStatus('run-1', { worker_id: 'worker-b', status: ended, logs })).toEqual(
      taken,
    );
    expect(written).toHaveLength(1);
  });

  it('writes no logs from a worker whose run it is not', async () => {
    await h.take('worker-b', { zone: 'b' });
    const { reports, written } = withLogs();
    const ended = await workerStatus({ status: 'succeeded', finished_at: isoUtc(h.time.nowMs()) });
    const logs = [{ file: '_run.log', offset: 0, data: 'not mine\n', encoding: 'utf8' as const }];
    const reply = await reports.reportStatus('run-1', { worker_id: 'worker-c', status: ended, logs });
    expect(reply).toMatchObject({ accepted: false });
    expect(reply.logs).toBeUndefined();
    expect(written).toEqual([]);
  });

  it('reads the cancel requests once for a heartbeat listing several runs', async () => {
    await h.dispatch('run-2', { zone: 'b' });
    await h.dispatch('run-3', { zone: 'b' });
    for (let i = 0; i < 3; i++) await h.take('worker-b', { zone: 'b' });
    await h.cancels.request('run-2', h.time.nowMs());
    const { calls, reports } = countingCancels();
    const beat = (running: string[]) =>
      reports.heartbeat({
        worker_id: 'worker-b',
        labels: { zone: 'b' },
        max_active_runs: 4,
        running: running.map((run_id) => ({ run_id, attempt: 1 })),
        host: 'worker-b-host',
        pid: 4242,
      });

    expect(await beat(['run-1', 'run-2', 'run-3'])).toEqual({ cancel: ['run-2'] });
    expect(Object.fromEntries(calls)).toEqual({ list: 1 });
    expect(await beat(['run-2'])).toEqual({ cancel: ['run-2'] });
    expect(await beat(['run-3'])).toEqual({ cancel: [] });
    expect(Object.fromEntries(calls)).toEqual({ list: 1, has: 2 });
  });

  it('reuses the record it just wrote for a worker: its poll check and its ack read no registry', async () => {
    const calls = new Map<string, number>();
    const reports = new WorkerReports({
      runs: h.runs,
      tasks: h.tasks,
      workers: countedCalls(h.workers, calls),
      cancels: h.cancels,
      clock: h.time,
      logger: h.logger,
      logsRoot: kit.logsRoot,
    });
    const beat = () =>
      reports.heartbeat({
        worker_id: 'worker-b',
        labels: { zone: 'b' },
        max_active_runs: 4,
        running: [],
        host: 'worker-b-host',
        pid: 4242,
      });
    await beat();
    await h.time.advance(SECOND);
    await beat();
    expect(await reports.isRegistered('worker-b')).toBe(true);
    const task = (await h.claim('worker-b', { zone: 'b' }))!;
    const ack = await reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });

    expect(ack).toMatchObject({ accepted: true, status: { worker_id: 'worker-b', host: 'worker-b-host' } });
    expect(Object.fromEntries(calls)).toEqual({ get: 1, put: 2 });
    expect(await h.workers.get('worker-b')).toMatchObject({ registered_at_ms: START });
  });

  it('reads the registry again once the record it wrote is older than the reuse window', async () => {
    expect(await h.reports.isRegistered('worker-b')).toBe(true);
    await h.workers.remove('worker-b');
    expect(await h.reports.isRegistered('worker-b')).toBe(true);

    await h.time.advance(WORKER_RECORD_REUSE_MS);

    expect(await h.reports.isRegistered('worker-b')).toBe(false);
    expect(await h.reports.isRegistered('worker-c')).toBe(false);
  });

  it('forgets the record of a worker that left', async () => {
    await h.reports.leave({ worker_id: 'worker-b' });

    expect(await h.workers.get('worker-b')).toBeNull();
    expect(await h.reports.isRegistered('worker-b')).toBe(false);
  });

  it('accepts a repeated ack from the worker that already holds the run (its first reply was lost)', async () => {
    const task = (await h.claim('worker-b', { zone: 'b' }))!;
    const first = await h.reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });
    const again = await h.reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });
    const stranger = await h.reports.ack(task.task_id, { worker_id: 'worker-c', token: task.claim!.token });

    expect(first.accepted).toBe(true);
    expect(again).toMatchObject({ accepted: true, status: { worker_id: 'worker-b', status: 'queued' } });
    expect(stranger).toMatchObject({ accepted: false, reason: 'claim_gone' });
  });

  it('refuses an ack whose claim went back to pending', async () => {
    const task = (await h.claim('worker-b', { zone: 'b' }))!;
    await h.time.advance(31 * SECOND);
    await h.detector.sweep();

    const ack = await h.reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });

    expect(ack).toMatchObject({ accepted: false, reason: 'claim_gone' });
  });
});

describe('WorkerReports on a store whose end writes unmark the run', () => {
  it('makes no unmark of its own for a final status', async () => {
    const runs = new UnmarkingRunStore();
    const h = await coordinatorHarness({
      runs,
      tasks: new MemoryDispatchStore(),
      workers: new MemoryWorkerRegistry(),
      cancels: new MemoryCancelRequests(),
      logsRoot: '/logs',
      dispose: async () => {},
    });
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    const s = await h.status('run-1');

    const reply = await h.reports.reportStatus('run-1', {
      worker_id: 'worker-b',
      status: { ...s, status: 'succeeded', finished_at: isoUtc(h.time.nowMs()) },
    });

    expect(reply).toEqual({ accepted: true, cancel: false });
    expect(await h.activeIds()).toEqual([]);
    expect(runs.unmarkCalls).toBe(0);
  });
});
