import { tmpdir } from 'node:os';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger } from '../core/ports';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Config } from '../config/types';
import type { RunState, RunStatus } from '../core/types';
import { dagOf, minimalEnv, stepOf, tempDir } from '../runner/testSupport';
import { FakeTime, settle } from '../testing/fakeTime';
import { RecordingLogger } from '../testing/recordingLogger';
import type { DispatchTask } from '../store/dispatchTypes';
import { CoordinatorError } from './coordinatorClient';
import { executeTask, type TaskContext, type TaskOutcome } from './taskExecutor';
import { FakeCoordinator, taskOf, workerConfig } from './testSupport';
import { LEAVE_TIMEOUT_MS, WorkerService, type ExecuteTaskFn } from './workerService';

const HOME = join(tmpdir(), 'dagu-worker-service-test');
const dag = dagOf([stepOf('a', 'true')]);

interface FakeRun {
  task: DispatchTask;
  ctx: TaskContext;
  finish(state: RunState): void;
}

/** An executor whose runs end when the test says, or `aborted` as soon as they are stopped. */
function fakeExecutor(opts: { ignoreAbort?: boolean } = {}) {
  const runs: FakeRun[] = [];
  let running = 0;
  let peak = 0;
  const execute: ExecuteTaskFn = (task, ctx) =>
    new Promise<TaskOutcome>((resolve) => {
      running += 1;
      peak = Math.max(peak, running);
      ctx.onAccepted();
      let ended = false;
      const finish = (state: RunState) => {
        if (ended) return;
        ended = true;
        running -= 1;
        resolve({ kind: 'finished', status: { status: state } as RunStatus, delivery: 'delivered' });
      };
      if (!opts.ignoreAbort) ctx.signal.addEventListener('abort', () => finish('aborted'));
      runs.push({ task, ctx, finish });
    });
  return {
    runs,
    execute,
    get peak() {
      return peak;
    },
  };
}

/** Stops the service and checks that the stop ends exactly `ms` of fake time later, not before. */
async function expectStopToTake(
  service: { stop(): Promise<void> },
  time: { advance(ms: number): Promise<void> },
  ms: number,
) {
  let stopped = false;
  const stopping = service.stop().then(() => (stopped = true));
  await time.advance(ms - 1);
  expect(stopped).toBe(false);
  await time.advance(1);
  await stopping;
}

function setup(worker: Partial<Config['worker']> = {}, executor = fakeExecutor()) {
  const time = new FakeTime(1_700_000_000_000);
  const coordinator = new FakeCoordinator();
  const logger = new RecordingLogger();
  const config = workerConfig(HOME, { id: 'w1', labels: { zone: 'b' }, max_active_runs: 2, ...worker });
  const service = new WorkerService({
    config,
    client: coordinator,
    clock: time,
    timers: time,
    logger,
    executeTask: executor.execute,
    host: 'host-a',
    pid: 42,
    random: () => 1,
  });
  return { time, coordinator, logger, config, service, executor };
}

describe('WorkerService', () => {
  it('registers with its labels and capacity on the first heartbeat, then polls and keeps heartbeating', async () => {
    const { time, coordinator, logger, service } = setup();
    service.start();
    await settle();

    expect(coordinator.heartbeats[0]).toEqual({
      worker_id: 'w1',
      labels: { zone: 'b' },
      max_active_runs: 2,
      running: [],
      host: 'host-a',
      pid: 42,
    });
    expect(logger.find('Registered with the coordinator')[0].fields).toMatchObject({
      worker_id: 'w1',
      labels: { zone: 'b' },
      max_active_runs: 2,
      url: coordinator.url,
    });
    expect(coordinator.openPolls).toBe(1);
    await time.advance(1000);
    expect(coordinator.heartbeats).toHaveLength(2);
    await service.stop();
  });

  it('is named <host>-<pid> when no worker ID is configured', () => {
    const { service } = setup({ id: null });
    expect(service.id).toBe('host-a-42');
  });

  it('never runs more than max_active_runs at once and polls again when a slot frees', async () => {
    const { coordinator, service, executor } = setup({ max_active_runs: 2 });
    service.start();
    await settle();
    for (const id of ['r1', 'r2', 'r3']) coordinator.pushTask(taskOf(dag, { run_id: id }));
    await settle();

    expect(executor.runs.map((r) => r.task.run_id)).toEqual(['r1', 'r2']);
    expect(coordinator.openPolls).toBe(0);
    executor.runs[0].finish('succeeded');
    await settle();
    expect(executor.runs.map((r) => r.task.run_id)).toEqual(['r1', 'r2', 'r3']);
    expect(executor.peak).toBe(2);
    await service.stop();
  });

  it('lists its accepted runs in heartbeats and stops a run the heartbeat reply cancels', async () => {
    const { time, coordinator, service, executor } = setup();
    service.start();
    await settle();
    coordinator.pushTask(taskOf(dag, { run_id: 'r1', attempt: 3 }));
    await settle();
    await time.advance(1000);
    expect(coordinator.heartbeats.at(-1)!.running).toEqual([{ run_id: 'r1', attempt: 3 }]);

    coordinator.cancelOnHeartbeat = ['r1'];
    await time.advance(1000);
    expect(executor.runs[0].ctx.signal.aborted).toBe(true);
    expect(executor.runs[0].ctx.signal.reason).toBe('SIGTERM');
    expect(service.activeRuns).toBe(0);
    await service.stop();
  });

  it('backs off while the coordinator is unreachable, warns once, and polls only after registering', async () => {
    const { time, coordinator, logger, service } = setup();
    coordinator.unreachable = true;
    service.start();
    await time.advance(1000 + 2000 + 4000 + 8000 + 15000); // 1s, 2s, 4s, 8s, 15s apart
    const attempts = coordinator.calls.filter((c) => c === 'heartbeat!');
    expect(attempts).toHaveLength(6);
    expect(logger.find('Coordinator unreachable; retrying')).toHaveLength(1);
    expect(logger.find('Coordinator unreachable; retrying')[0].level).toBe('warn');
    expect(coordinator.calls.some((c) => c.startsWith('poll'))).toBe(false);

    coordinator.unreachable = false;
    await time.advance(15000);
    expect(logger.find('Registered with the coordinator')).toHaveLength(1);
    expect(coordinator.openPolls).toBe(1);
    await service.stop();
  });

  it('keeps its heartbeat pace while the coordinator answers with an error (its store is down)', async () => {
    const { time, coordinator, logger, service } = setup({ heartbeat_interval_ms: 1000 });
    service.start();
    await settle();
    coordinator.heartbeatError = new CoordinatorError(500, 'internal', 'connect ECONNREFUSED 127.0.0.1:5432');
    const beats = () => coordinator.calls.filter((c) => c === 'heartbeat').length;
    const before = beats();
    await time.advance(10_000);
    // One attempt a second, as before the error: a backoff would have sent 4 (1 s, 2 s, 4 s apart).
    expect(beats() - before).toBeGreaterThanOrEqual(9);
    expect(logger.find('Coordinator refused the heartbeat; retrying')).toHaveLength(1);
    await service.stop();
  });

  it('on stop, aborts its runs, waits for them, and sends a last heartbeat listing no runs', async () => {
    const { coordinator, service, executor, logger } = setup();
    service.start();
    await settle();
    coordinator.pushTask(taskOf(dag, { run_id: 'r1' }));
    await settle();

    await service.stop();
    expect(executor.runs[0].ctx.signal.aborted).toBe(true);
    expect(coordinator.heartbeats.at(-1)!.running).toEqual([]);
    expect(coordinator.openPolls).toBe(0);
    expect(service.state).toBe('stopped');
    expect(logger.find('Task finished')[0].fields).toMatchObject({ run_id: 'r1', state: 'aborted' });
  });

  it('on stop, after its last heartbeat, tells the coordinator it is leaving', async () => {
    const { coordinator, service, logger } = setup();
    service.start();
    await settle();

    await service.stop();
    expect(coordinator.calls.slice(-2)).toEqual(['heartbeat', 'leave']);
    expect(coordinator.leaves).toEqual([{ worker_id: 'w1' }]);
    expect(logger.lines.filter((l) => l.level === 'warn')).toEqual([]);
    expect(logger.find('Worker stopped')).toHaveLength(1);
  });

  it('on stop, logs the runs the coordinator still counts as its own when it keeps the record', async () => {
    const { coordinator, service, logger } = setup();
    coordinator.leaveReply = () => ({ removed: false, run_ids: ['r9'] });
    service.start();
    await settle();

    await service.stop();
    expect(
      logger.find('The coordinator keeps this worker listed until its runs are settled')[0].fields,
    ).toEqual({ worker_id: 'w1', run_ids: ['r9'] });
  });

  it('on stop, waits at most LEAVE_TIMEOUT_MS for a coordinator that does not answer', async () => {
    const { time, coordinator, service, logger } = setup();
    service.start();
    await settle();
    coordinator.silent = true;

    await expectStopToTake(service, time, LEAVE_TIMEOUT_MS);
    expect(service.state).toBe('stopped');
    expect(logger.find('The coordinator did not answer the leave in time')[0]).toMatchObject({
      level: 'warn',
      fields: { worker_id: 'w1', timeout: '2s' },
    });
  });

  it('on stop, counts a heartbeat still waiting for an answer within the same LEAVE_TIMEOUT_MS', async () => {
    const { time, coordinator, service } = setup();
    service.start();
    await settle();
    coordinator.silent = true;
    await time.advance(1000); // the next heartbeat goes out and is never answered

    await expectStopToTake(service, time, LEAVE_TIMEOUT_MS);
    expect(coordinator.calls.filter((c) => c.endsWith('…'))).toEqual(['heartbeat…']);
  });

  it('on stop, does not ask an unreachable coordinator a second time', async () => {
    const { coordinator, service, logger } = setup();
    service.start();
    await settle();
    coordinator.unreachable = true;

    await service.stop();
    expect(coordinator.calls.at(-1)).toBe('heartbeat!');
    expect(coordinator.calls).not.toContain('leave!');
    expect(logger.find('Last heartbeat failed')).toHaveLength(1);
    expect(logger.find('Could not tell the coordinator')).toEqual([]);
  });

  it('on stop, warns when the coordinator refuses the leave and stops all the same', async () => {
    const { coordinator, service, logger } = setup();
    coordinator.leave = () => Promise.reject(new Error('coordinator answered 500: disk full'));
    service.start();
    await settle();

    await service.stop();
    expect(service.state).toBe('stopped');
    expect(logger.find('Could not tell the coordinator this worker is leaving')[0]).toMatchObject({
      level: 'warn',
      fields: { error: 'coordinator answered 500: disk full' },
    });
  });

  it('on stop, gives a run that does not end the kill grace plus 5 s, then leaves anyway', async () => {
    const { time, coordinator, service, config, logger } = setup({}, fakeExecutor({ ignoreAbort: true }));
    service.start();
    await settle();
    coordinator.pushTask(taskOf(dag, { run_id: 'r1' }));
    await settle();

    let stopped = false;
    const stopping = service.stop().then(() => (stopped = true));
    await time.advance(config.run.kill_grace_ms + 4000);
    expect(stopped).toBe(false);
    await time.advance(1000);
    await stopping;
    expect(logger.find('Runs did not end in time')).toHaveLength(1);
    expect(coordinator.heartbeats.at(-1)!.running).toEqual([]);
  });

  it('with the real executor, a cancel in a heartbeat reply ends the run reported aborted', async () => {
    const { dir, cleanup } = tempDir('dagu-worker-service-');
    try {
      const coordinator = new FakeCoordinator();
      const config = workerConfig(dir, { id: 'w1', work_dir: join(dir, 'work'), heartbeat_interval_ms: 50 });
      config.run.kill_grace_ms = 300;
      const deps = {
        config,
        client: coordinator,
        clock: systemClock,
        timers: systemTimers,
        logger: silentLogger,
      };
      const service = new WorkerService({
        ...deps,
        executeTask: (task, ctx) => executeTask({ ...deps, env: minimalEnv() }, task, ctx),
      });
      service.start();
      coordinator.pushTask(taskOf(dagOf([stepOf('long', 'sleep 30')]), { run_id: 'r1' }));
      await coordinator.until(() =>
        coordinator.heartbeats.some((h) => h.running.some((r) => r.run_id === 'r1')),
      );
      coordinator.cancelOnHeartbeat = ['r1'];
      await coordinator.until(() => coordinator.statuses.at(-1)?.status === 'aborted');
      await coordinator.until(() => service.activeRuns === 0);
      await service.stop();
      expect(coordinator.calls.indexOf('ack:1700000000000-r1-1')).toBeLessThan(
        coordinator.calls.indexOf('status:running'),
      );
    } finally {
      cleanup();
    }
  });
});
