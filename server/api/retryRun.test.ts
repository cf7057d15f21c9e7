import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatchParams } from '../core/dispatcherApi';
import { freshStepStatus } from '../core/runStatus';
import type { RunStatus, StepStatus } from '../core/types';
import { RecordingLogger } from '../testing/recordingLogger';
import { testRunStatus } from '../testing/testRunStatus';
import { ConflictError, NotFoundError, toErrorResponse } from './errors';
import { retryRun } from './retryRun';
import { NoWorkerError } from './startDag';
import { spawnTest, type SpawnTest } from './testFakeDagu';
import type { TestServices } from './testServices';

let t: SpawnTest;
let svc: TestServices;
beforeEach(() => {
  t = spawnTest();
  svc = t.svc;
});
afterEach(() => t.done());

const recordedCall = () => t.fakeDagu.recordedCall();

describe('retryRun of a local DAG', () => {
  it('spawns `dagu retry <run-id>` for the same home and reports the next attempt', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'hello', status: 'failed' }));

    const result = await retryRun(svc, 'r1');

    expect(result).toEqual({ run_id: 'r1', dag_name: 'hello', attempt: 2, outcome: 'started' });
    expect(await recordedCall()).toEqual({ argv: ['retry', '--quiet', 'r1'], home: svc.config.home });
    const [event] = await svc.events.list({ types: ['run:retry_requested'] });
    expect(event.data).toMatchObject({ run_id: 'r1', dag: 'hello', attempt: 2 });
  });

  it('reports the retry it started, even when its event cannot be recorded (a full disk)', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'hello', status: 'failed' }));
    svc.events.append = () =>
      Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    const logger = new RecordingLogger();
    svc.logger = logger;

    await expect(retryRun(svc, 'r1')).resolves.toMatchObject({ attempt: 2, outcome: 'started' });

    expect((await recordedCall()).argv).toEqual(['retry', '--quiet', 'r1']);
    expect(logger.find('Could not record an event').map((l) => l.fields)).toEqual([
      { type: 'run:retry_requested', run_id: 'r1', error: 'ENOSPC: no space left on device, write' },
    ]);
  });

  it.each(['queued', 'running'] as const)(
    'refuses a %s run with a conflict naming its state',
    async (status) => {
      await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'hello', status }));
      const err = await retryRun(svc, 'r1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConflictError);
      expect((err as Error).message).toBe(`run r1 is ${status}; only a finished run can be retried`);
    },
  );

  it('finds the DAG of a local sub-DAG run in the file it was written in', async () => {
    svc.writeDag(
      'mend',
      'steps:\n  - name: go\n    call: part\n---\nname: part\nsteps:\n  - name: build\n    run: "true"\n',
    );
    const file = path.join(svc.config.paths.dags_dir, 'mend.yaml');
    const local = { dag_name: 'part', status: 'failed' as const, local_dag_file: file };
    await svc.runs.createRun(testRunStatus({ run_id: 'c1', ...local }));
    await svc.runs.createRun(testRunStatus({ run_id: 'c2', ...local, dag_name: 'ghost' }));

    expect(await retryRun(svc, 'c1')).toMatchObject({ dag_name: 'part', attempt: 2, outcome: 'started' });
    expect((await recordedCall()).argv).toEqual(['retry', '--quiet', 'c1']);
    await expect(retryRun(svc, 'c2')).rejects.toThrow(
      `local DAG ghost is no longer in ${JSON.stringify(file)}`,
    );
  });

  it('answers not found for an unknown run or a DAG that is gone', async () => {
    await expect(retryRun(svc, 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await svc.runs.createRun(testRunStatus({ run_id: 'r2', dag_name: 'deleted', status: 'failed' }));
    await expect(retryRun(svc, 'r2')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('retryRun of one step', () => {
  const step = (name: string, status: StepStatus['status'], extra: Partial<StepStatus> = {}): StepStatus => ({
    ...freshStepStatus(name),
    status,
    ...extra,
  });
  /** Run r0 of hello whose call step `go` started c1, whose step `build` failed. */
  async function nested(rootStatus: RunStatus['status'] = 'failed') {
    const sub = { dag_name: 'hello', run_id: 'c1', status: 'failed' as const };
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'r0',
        dag_name: 'hello',
        status: rootStatus,
        steps: [step('go', 'failed', { sub_runs: [sub] })],
      }),
    );
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'c1',
        dag_name: 'hello',
        status: 'failed',
        trigger_type: 'subdag',
        parent: { run_id: 'r0', dag_name: 'hello', step: 'go' },
        steps: [step('build', 'failed'), step('pack', 'aborted')],
      }),
    );
  }

  it('spawns `dagu retry --step` of the run, with --downstream when asked', async () => {
    await svc.runs.createRun(
      testRunStatus({ run_id: 'r1', dag_name: 'hello', status: 'failed', steps: [step('build', 'failed')] }),
    );

    const result = await retryRun(svc, 'r1', { step: 'build', downstream: true });

    expect(result).toEqual({
      run_id: 'r1',
      dag_name: 'hello',
      attempt: 2,
      outcome: 'started',
      step: 'build',
    });
    expect((await recordedCall()).argv).toEqual([
      'retry',
      '--quiet',
      '--step',
      'build',
      '--downstream',
      'r1',
    ]);
    const [event] = await svc.events.list({ types: ['run:retry_requested'] });
    expect(event.data).toMatchObject({ run_id: 'r1', step: 'build', downstream: true });
  });

  it('retries a step of a sub-run through its root run, in place', async () => {
    await nested();

    const result = await retryRun(svc, 'c1', { step: 'build' });

    expect(result).toEqual({
      run_id: 'r0',
      dag_name: 'hello',
      attempt: 2,
      outcome: 'started',
      step: 'build',
      sub_run_id: 'c1',
    });
    expect((await recordedCall()).argv).toEqual([
      'retry',
      '--quiet',
      '--sub-run-id',
      'c1',
      '--step',
      'build',
      'r0',
    ]);
  });

  it('refuses a step the run lacks, a root still running, and a sub-run its parent does not name', async () => {
    await nested('running');
    await expect(retryRun(svc, 'c1', { step: 'nope' })).rejects.toThrow('run c1 has no step "nope"');
    const running = await retryRun(svc, 'c1', { step: 'build' }).catch((e: unknown) => e);
    expect(running).toBeInstanceOf(ConflictError);
    expect((running as Error).message).toBe(
      'run r0, which run c1 is part of, is running; a step can be retried once it has ended',
    );
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'c2',
        dag_name: 'hello',
        status: 'failed',
        parent: { run_id: 'r9', dag_name: 'hello', step: 'go' },
        steps: [step('build', 'failed')],
      }),
    );
    await svc.runs.createRun(testRunStatus({ run_id: 'r9', dag_name: 'hello', status: 'failed', steps: [] }));
    await expect(retryRun(svc, 'c2', { step: 'build' })).rejects.toThrow(
      'retry path is invalid: parent DAG run r9 does not reference child c2',
    );
  });

  it('refuses a step of a run whose DAG goes to the workers', async () => {
    svc.writeDag('remote', 'worker_selector:\n  zone: b\nsteps:\n  - name: greet\n    command: echo hi\n');
    await svc.runs.createRun(
      testRunStatus({ run_id: 'r1', dag_name: 'remote', status: 'failed', steps: [step('greet', 'failed')] }),
    );
    const err = await retryRun(svc, 'r1', { step: 'greet' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as Error).message).toContain('its runs go to the workers; retry the whole run');
  });
});

describe('retryRun of a DAG that runs on workers', () => {
  beforeEach(() => {
    svc.writeDag('remote', 'worker_selector:\n  zone: b\nsteps:\n  - name: greet\n    command: echo hi\n');
  });

  it('hands a new attempt to the dispatcher the way `dagu retry` does', async () => {
    const previous = testRunStatus({
      run_id: 'r1',
      dag_name: 'remote',
      status: 'failed',
      params: ['A=1'],
      attempt: 1,
    });
    await svc.runs.createRun(previous);
    const calls: DispatchParams[] = [];
    svc.dispatcher = {
      async dispatch(p) {
        calls.push(p);
        return { outcome: 'held', status: { ...previous, attempt: 2, status: 'queued' } };
      },
      cancel: () => Promise.reject(new Error('not used')),
    };

    expect(await retryRun(svc, 'r1')).toEqual({
      run_id: 'r1',
      dag_name: 'remote',
      attempt: 2,
      outcome: 'held',
    });
    expect(calls).toEqual([
      expect.objectContaining({
        runId: 'r1',
        operation: 'retry',
        triggerType: 'retry',
        params: ['A=1'],
        selector: { zone: 'b' },
        previous,
        fromQueue: false,
      }),
    ]);
  });

  it('records the new attempt queued with its task when a worker matches', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'remote', status: 'aborted' }));
    await svc.workers.put({
      worker_id: 'w-b',
      labels: { zone: 'b' },
      max_active_runs: 1,
      running: [],
      host: 'h',
      pid: 1,
      registered_at_ms: svc.clock.nowMs(),
      last_heartbeat_ms: svc.clock.nowMs(),
    });
    expect((await retryRun(svc, 'r1')).outcome).toBe('dispatched');
    expect(await svc.tasks.findByRun('r1')).toMatchObject({ attempt: 2, operation: 'retry' });
  });

  it('refuses with 409 no_worker when no worker can take it and it cannot be held', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'remote', status: 'failed' }));
    const err = await retryRun(svc, 'r1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoWorkerError);
    expect(toErrorResponse(err).status).toBe(409);
  });
});
