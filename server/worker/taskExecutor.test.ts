import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config/types';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec } from '../core/types';
import { chain, dagOf, minimalEnv, stepOf, tempDir } from '../runner/testSupport';
import type { DispatchTask } from '../store/dispatchTypes';
import { executeTask, type TaskOutcome } from './taskExecutor';
import { FakeCoordinator, taskOf, workerConfig } from './testSupport';
import { attemptDirs } from './workDirs';

let dir: string;
let cleanup: () => void;
let config: Config;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-worker-'));
  config = workerConfig(dir, { id: 'w1', work_dir: join(dir, 'work'), heartbeat_interval_ms: 50 });
  config.run.kill_grace_ms = 300;
});
afterEach(() => cleanup());

function run(coordinator: FakeCoordinator, task: DispatchTask, signal = new AbortController().signal) {
  let accepted = false;
  const outcome: Promise<TaskOutcome> = executeTask(
    {
      config,
      client: coordinator,
      clock: systemClock,
      timers: systemTimers,
      logger: silentLogger,
      env: minimalEnv(),
      logIntervalMs: 50,
    },
    task,
    {
      workerId: 'w1',
      signal,
      onAccepted: () => {
        accepted = true;
      },
    },
  );
  return { outcome, accepted: () => accepted };
}

const finishedStatus = (o: TaskOutcome) => (o.kind === 'finished' ? o.status : null);

describe('executeTask', () => {
  it('acks the claim, runs in the attempt work dir and ships the rest of the logs with the final status', async () => {
    const coordinator = new FakeCoordinator();
    const dag = dagOf(chain([stepOf('hello', 'echo hello'), stepOf('where', 'pwd')]));
    const { outcome, accepted } = run(coordinator, taskOf(dag, { run_id: 'run-7', attempt: 2 }));
    const result = await outcome;

    expect(accepted()).toBe(true);
    expect(coordinator.acks).toEqual([
      { taskId: '1700000000000-run-7-2', req: { worker_id: 'w1', token: 'tok-1' } },
    ]);
    expect(coordinator.calls[0]).toBe('ack:1700000000000-run-7-2');
    expect(result).toMatchObject({ kind: 'finished', delivery: 'delivered' });
    const final = coordinator.statuses.at(-1)!;
    expect(final).toMatchObject({
      status: 'succeeded',
      run_id: 'run-7',
      attempt: 2,
      worker_id: 'w1',
      log_dir: 'runs/run-7/2/logs',
    });
    expect(final.steps[0].stdout).toBe('runs/run-7/2/logs/hello.out');
    expect(coordinator.logText('run-7', 'hello.out')).toBe('hello\n');
    const workDir = attemptDirs(config.worker.work_dir, 'w1', 'run-7', 2).dir;
    expect(coordinator.logText('run-7', 'where.out').trim()).toBe(realpathSync(workDir));
    // The last of the logs went with the final status (the coordinator writes them first); none after it.
    const finalCall = coordinator.calls.findIndex((c) => c.startsWith('status:succeeded'));
    expect(coordinator.calls[finalCall]).toMatch(/^status:succeeded\+logs:/);
    expect(coordinator.calls.slice(finalCall + 1).filter((c) => c.startsWith('log'))).toEqual([]);
  });

  it('ships the logs on their own to a coordinator that takes none with a status', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.acceptsStatusLogs = false;
    const dag = dagOf(chain([stepOf('hello', 'echo hello'), stepOf('bye', 'echo bye >&2')]));
    const result = await run(coordinator, taskOf(dag, { run_id: 'run-9', attempt: 1 })).outcome;
    expect(result).toMatchObject({ kind: 'finished', delivery: 'delivered' });
    expect(coordinator.logText('run-9', 'hello.out')).toBe('hello\n');
    expect(coordinator.logText('run-9', 'bye.err')).toBe('bye\n');
    expect(coordinator.logText('run-9', '_run.log')).toContain('Run finished');
  });

  it("copies a run's artifacts to the coordinator's store before its final status", async () => {
    const coordinator = new FakeCoordinator();
    await coordinator.artifactStore.put('run-8', 'earlier/kept.txt', new TextEncoder().encode('from before'));
    const dag = dagOf(
      [
        stepOf(
          'write',
          'mkdir -p "$DAG_RUN_ARTIFACTS_DIR/out" && printf report > "$DAG_RUN_ARTIFACTS_DIR/out/r.txt"',
        ),
        { ...stepOf('read', 'cat "$DAG_RUN_ARTIFACTS_DIR/earlier/kept.txt"'), depends: ['write'] },
      ],
      { artifacts: { enabled: true, dir: null } },
    );
    const { outcome } = run(coordinator, taskOf(dag, { run_id: 'run-8', attempt: 1 }));
    const final = finishedStatus(await outcome)!;
    expect(final.status).toBe('succeeded');
    // What an earlier attempt stored was brought back first; what this one made was copied.
    expect(coordinator.logText('run-8', 'read.out')).toBe('from before');
    expect(await coordinator.artifactStore.list('run-8')).toEqual([
      { path: 'earlier/kept.txt', size: 11 },
      { path: 'out/r.txt', size: 6 },
    ]);
    const lastPut = coordinator.calls.lastIndexOf('artifacts:put');
    expect(lastPut).toBeGreaterThan(-1);
    expect(lastPut).toBeLessThan(coordinator.calls.findIndex((c) => c.startsWith('status:succeeded')));
  });

  it('drops a task whose ack is refused without running anything', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.ackReply = () => ({ accepted: false, error: 'claim not found or expired' });
    const marker = join(dir, 'ran');
    const { outcome, accepted } = run(coordinator, taskOf(dagOf([stepOf('a', `touch ${marker}`)])));

    expect(await outcome).toEqual({ kind: 'dropped', reason: 'claim not found or expired' });
    expect(accepted()).toBe(false);
    expect(coordinator.calls).toEqual(['ack:1700000000000-run-1-1']);
    expect(existsSync(marker)).toBe(false);
  });

  it('leaves a task stopped before its ack to another worker', async () => {
    const coordinator = new FakeCoordinator();
    const stop = new AbortController();
    stop.abort('SIGTERM');
    const { outcome } = run(coordinator, taskOf(dagOf([stepOf('a', 'true')])), stop.signal);
    expect(await outcome).toEqual({ kind: 'dropped', reason: 'stopped before the ack' });
    expect(coordinator.calls).toEqual([]);
  });

  it('stops the run and reports it aborted when it is cancelled (as a heartbeat reply does)', async () => {
    const coordinator = new FakeCoordinator();
    const cancel = new AbortController();
    const { outcome } = run(coordinator, taskOf(dagOf([stepOf('long', 'sleep 30')])), cancel.signal);
    await coordinator.until(() => coordinator.statuses.some((s) => s.steps[0].status === 'running'));
    cancel.abort('SIGTERM');
    const final = finishedStatus(await outcome)!;

    expect(final.status).toBe('aborted');
    expect(coordinator.statuses.at(-1)).toMatchObject({ status: 'aborted', error: 'run aborted (SIGTERM)' });
  });

  it('aborts the run when the coordinator refuses its status', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.statusReply = (r) =>
      r.status.steps[0].status === 'running'
        ? { accepted: false, cancel: false, error: "run is not this worker's" }
        : { accepted: true, cancel: false };
    const started = Date.now();
    const result = await run(coordinator, taskOf(dagOf([stepOf('long', 'sleep 30')]))).outcome;

    expect(result).toMatchObject({ kind: 'finished', delivery: 'rejected', status: { status: 'aborted' } });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('aborts the run when a status reply carries a cancel, and the aborted end is accepted', async () => {
    const coordinator = new FakeCoordinator();
    coordinator.statusReply = (r) => ({ accepted: true, cancel: r.status.steps[0].status === 'running' });
    const result = await run(coordinator, taskOf(dagOf([stepOf('long', 'sleep 30')]))).outcome;

    expect(result).toMatchObject({ kind: 'finished', delivery: 'delivered', status: { status: 'aborted' } });
    expect(coordinator.statuses.at(-1)!.status).toBe('aborted');
  });

  it('resumes: steps that succeeded in the previous attempt keep their status and output and do not run', async () => {
    const coordinator = new FakeCoordinator();
    const marker = join(dir, 'extract-ran');
    const dag: DagSpec = dagOf(
      chain([
        stepOf('extract', `touch ${marker}; echo fresh`, { output: 'DATA' }),
        stepOf('load', 'echo "got $DATA"'),
      ]),
    );
    const previous = newRunStatus({
      dag,
      runId: 'run-1',
      status: 'failed',
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: '2026-01-01T00:00:00Z',
    });
    previous.steps[0] = { ...previous.steps[0], status: 'succeeded', exit_code: 0, output: { DATA: 'kept' } };
    previous.steps[1] = { ...previous.steps[1], status: 'failed', exit_code: 1, error: 'exit code 1' };
    const task = taskOf(dag, { attempt: 2, operation: 'resume', trigger_type: 'retry', previous });
    const final = finishedStatus(await run(coordinator, task).outcome)!;

    expect(final.status).toBe('succeeded');
    expect(existsSync(marker)).toBe(false);
    expect(final.steps[0]).toMatchObject({ status: 'succeeded', output: { DATA: 'kept' } });
    expect(coordinator.logText('run-1', 'load.out')).toBe('got kept\n');
    expect(
      readFileSync(join(attemptDirs(config.worker.work_dir, 'w1', 'run-1', 2).logDir, 'load.out'), 'utf8'),
    ).toBe('got kept\n');
  });
});
