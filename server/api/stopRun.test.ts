import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
import { ConflictError } from './errors';
import { enqueueDag } from './queue';
import { getRun } from './runs';
import { startDag } from './startDag';
import { dequeueOrCancel, requestStop, stopRun } from './stopRun';
import { T0, testServices, type TestServices } from './testServices';
import { RecordingLogger } from '../testing/recordingLogger';
import { registerHostedRun, takeStopRequests } from '../store/runHostFiles';

// Above Linux's pid_max, so a wrong signal could never reach a real process.
const NO_SUCH_PID = 2 ** 22 + 1;

let svc: TestServices;
let queued: RunStatus;

beforeEach(async () => {
  svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: sleep 60\n');
  queued = await enqueueDag(svc, 'hello', []);
});
afterEach(() => svc.cleanup());

async function markRunning(patch: Partial<RunStatus>): Promise<RunStatus> {
  const running: RunStatus = { ...queued, status: 'running', started_at: '2026-11-30T01:14:31Z', ...patch };
  await svc.runs.writeStatus(running);
  return running;
}

describe('stopRun', () => {
  it('sends SIGTERM to the run process of a run running on this host', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = once(child, 'exit');
    try {
      await markRunning({ pid: child.pid!, host: hostname() });
      await svc.runs.writeHeartbeat(queued.run_id, 1, svc.clock.nowMs());

      const status = await stopRun(svc, queued.run_id);

      expect(status.status).toBe('running');
      const [, signal] = await exited;
      expect(signal).toBe('SIGTERM');
      expect((await svc.events.list({})).map((e) => e.type)).toContain('run:stop_requested');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('reports a stop it signalled, even when its event cannot be recorded (a full disk)', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = once(child, 'exit');
    try {
      await markRunning({ pid: child.pid!, host: hostname() });
      await svc.runs.writeHeartbeat(queued.run_id, 1, svc.clock.nowMs());
      svc.events.append = () =>
        Promise.reject(
          Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
        );
      const logger = new RecordingLogger();
      svc.logger = logger;

      await expect(stopRun(svc, queued.run_id)).resolves.toMatchObject({ status: 'running' });

      const [, signal] = await exited;
      expect(signal).toBe('SIGTERM');
      expect(logger.find('Could not record an event').map((l) => l.fields)).toEqual([
        {
          type: 'run:stop_requested',
          run_id: queued.run_id,
          error: 'ENOSPC: no space left on device, write',
        },
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('asks the run host running the run to stop that run only, through a stop request, not a signal', async () => {
    // The host's pid is every one of its runs' pid: a signal would stop them all.
    const host = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await markRunning({ pid: host.pid!, host: hostname() });
      await svc.runs.writeHeartbeat(queued.run_id, 1, svc.clock.nowMs());
      const dataDir = svc.config.paths.data_dir;
      await registerHostedRun(dataDir, queued.run_id, host.pid!);

      const r = await requestStop(svc, queued.run_id);

      expect(r.outcome).toBe('signalled');
      expect((await svc.events.list({})).map((e) => e.type)).toContain('run:stop_requested');
      expect(await takeStopRequests(dataDir, new Set([queued.run_id, 'other-run']))).toEqual([
        { runId: queued.run_id, signal: 'SIGTERM' },
      ]);
      // Taken once; and the host process got no signal.
      expect(await takeStopRequests(dataDir, new Set([queued.run_id]))).toEqual([]);
      await new Promise((r) => setTimeout(r, 200));
      expect(host.exitCode === null && host.signalCode === null).toBe(true);
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('signals a run process of its own when a host record of the run names another pid (a dead host)', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = once(child, 'exit');
    try {
      await markRunning({ pid: child.pid!, host: hostname() });
      await svc.runs.writeHeartbeat(queued.run_id, 1, svc.clock.nowMs());
      await registerHostedRun(svc.config.paths.data_dir, queued.run_id, NO_SUCH_PID);

      await stopRun(svc, queued.run_id);

      const [, signal] = await exited;
      expect(signal).toBe('SIGTERM');
      expect(await takeStopRequests(svc.config.paths.data_dir, new Set([queued.run_id]))).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('dequeues a queued run', async () => {
    const status = await stopRun(svc, queued.run_id);
    expect(status).toMatchObject({ status: 'aborted', error: 'dequeued by user' });
    expect(await svc.queue.list('hello')).toEqual([]);
  });

  it('refuses a finished run', async () => {
    await markRunning({ status: 'succeeded' });
    await expect(stopRun(svc, queued.run_id)).rejects.toThrow(/already finished \(status: succeeded\)/);
  });

  it('refuses a run on another host and signals nothing', async () => {
    await markRunning({ pid: NO_SUCH_PID, host: 'elsewhere.example' });
    await expect(stopRun(svc, queued.run_id)).rejects.toThrow(
      /runs on host elsewhere\.example; stop it there/,
    );
  });

  it('does not signal the pid of a run whose heartbeat went stale (the pid may belong to another process now)', async () => {
    await markRunning({ pid: NO_SUCH_PID, host: hostname() });
    await svc.runs.writeHeartbeat(queued.run_id, 1, svc.clock.nowMs());
    svc.clock.advance(svc.config.run.heartbeat_stale_threshold_ms + 1000);

    const err = await stopRun(svc, queued.run_id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toMatch(/has not sent a heartbeat for \d+s/);
    expect((await getRun(svc, queued.run_id)).status).toBe('running');
  });

  it('reports a run process that is already gone', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    await markRunning({ pid: child.pid!, host: hostname() });
    await expect(stopRun(svc, queued.run_id)).rejects.toThrow(
      /is gone; the scheduler will mark the run failed/,
    );
  });
});

describe('stopping a run handed to the workers', () => {
  let remote: RunStatus;

  beforeEach(async () => {
    svc.writeDag('remote', 'worker_selector:\n  zone: b\nsteps:\n  - name: greet\n    command: sleep 60\n');
    await svc.workers.put({
      worker_id: 'worker-b',
      labels: { zone: 'b' },
      max_active_runs: 2,
      running: [],
      host: 'host-b',
      pid: NO_SUCH_PID,
      registered_at_ms: T0,
      last_heartbeat_ms: T0,
    });
    remote = (await startDag(svc, 'remote', [], { waitMs: 0 })).status!;
  });

  it('aborts a run still waiting for a worker at once and drops its task', async () => {
    const result = await requestStop(svc, remote.run_id);

    expect(result.outcome).toBe('aborted');
    expect(result.status).toMatchObject({ status: 'aborted', error: 'cancelled before a worker took it' });
    expect(await svc.tasks.findByRun(remote.run_id)).toBeNull();
    expect(await svc.runs.listActive()).not.toContainEqual(
      expect.objectContaining({ run_id: remote.run_id }),
    );
    // A worker polling afterwards finds nothing to run.
    expect(await svc.tasks.claimNext({ worker_id: 'worker-b', labels: { zone: 'b' } }, T0)).toBeNull();
  });

  it('the console dequeue of a run waiting for a worker cancels it and drops its task', async () => {
    const status = await dequeueOrCancel(svc, remote.run_id);

    expect(status).toMatchObject({ status: 'aborted', error: 'cancelled before a worker took it' });
    expect(await svc.tasks.findByRun(remote.run_id)).toBeNull();
  });

  it('asks the worker to stop a run it runs, and leaves the run to report aborted', async () => {
    await svc.tasks.delete((await svc.tasks.findByRun(remote.run_id))!.task_id);
    const running: RunStatus = {
      ...remote,
      status: 'running',
      worker_id: 'worker-b',
      host: 'host-b',
      pid: NO_SUCH_PID,
    };
    await svc.runs.writeStatus(running);

    const result = await requestStop(svc, remote.run_id);

    expect(result).toEqual({ outcome: 'requested', status: running });
    expect(await svc.cancels.has(remote.run_id)).toBe(true);
    expect((await getRun(svc, remote.run_id)).status).toBe('running');
    expect((await svc.events.list({ types: ['run:stop_requested'] }))[0].data).toEqual({
      run_id: remote.run_id,
      dag: 'remote',
      worker_id: 'worker-b',
    });
  });

  it('asks the worker when it has claimed the task but not yet started the run', async () => {
    await svc.tasks.claimNext({ worker_id: 'worker-b', labels: { zone: 'b' } }, T0);
    const status = await stopRun(svc, remote.run_id);
    expect(status.status).toBe('queued');
    expect(await svc.cancels.has(remote.run_id)).toBe(true);
  });

  it('refuses a run on a worker that already finished', async () => {
    await svc.runs.writeStatus({ ...remote, status: 'succeeded', worker_id: 'worker-b' });
    await expect(stopRun(svc, remote.run_id)).rejects.toThrow(/already finished \(status: succeeded\)/);
    expect(await svc.cancels.list()).toEqual([]);
  });
});
