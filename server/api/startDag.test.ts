import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatchParams } from '../core/dispatcherApi';
import { newRunStatus } from '../core/runStatus';
import { BadRequestError, NotFoundError, toErrorResponse } from './errors';
import { getDag } from './dags';
import { getRun } from './runs';
import { RecordingLogger } from '../testing/recordingLogger';
import { NoCoordinatorError, NoWorkerError, startDag } from './startDag';
import { spawnTest, type SpawnTest } from './testFakeDagu';
import { T0, type TestServices } from './testServices';

let t: SpawnTest;
let svc: TestServices;
beforeEach(() => {
  t = spawnTest();
  svc = t.svc;
});
afterEach(() => t.done());

const recordedCall = () => t.fakeDagu.recordedCall();

describe('startDag', () => {
  it('spawns `dagu start` with a new run ID, the manual trigger and the params after --', async () => {
    const result = await startDag(svc, 'hello', ['A=1', '$(rm -rf /)'], { waitMs: 0 });

    expect(result.run_id).toMatch(/^20261130-011430-[0-9a-f]{8}$/);
    expect(result.status).toBeNull();
    const call = await recordedCall();
    expect(call.argv).toEqual([
      'start',
      '--quiet',
      '--run-id',
      result.run_id,
      '--trigger-type',
      'manual',
      'hello',
      '--',
      'A=1',
      '$(rm -rf /)',
    ]);
    expect(call.home).toBe(svc.config.home);
  });

  it('asks `dagu start` for --no-reuse, before the DAG name, when the start disables reuse', async () => {
    const result = await startDag(svc, 'hello', ['A=1'], { waitMs: 0, noReuse: true });
    expect((await recordedCall()).argv).toEqual([
      'start',
      '--quiet',
      '--run-id',
      result.run_id,
      '--trigger-type',
      'manual',
      '--no-reuse',
      'hello',
      '--',
      'A=1',
    ]);
  });

  it('reports the run it started, even when its event cannot be recorded (a full disk)', async () => {
    svc.events.append = () =>
      Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    const logger = new RecordingLogger();
    svc.logger = logger;

    const result = await startDag(svc, 'hello', [], { waitMs: 0 });

    expect(result.outcome).toBe('started');
    expect((await recordedCall()).argv).toContain(result.run_id);
    expect(logger.find('Could not record an event').map((l) => l.fields)).toEqual([
      { type: 'run:start_requested', run_id: result.run_id, error: 'ENOSPC: no space left on device, write' },
    ]);
  });

  it('refuses params the DAG does not accept before any process starts', async () => {
    svc.writeDag('strict', 'params:\n  - FOO: bar\nsteps:\n  - name: s\n    run: echo "$FOO"\n');
    const refused = startDag(svc, 'strict', ['BOGUS=1'], { waitMs: 0 });
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toThrow(
      'DAG strict: unknown parameter(s): "BOGUS"; accepted parameters are: FOO',
    );
    await expect(startDag(svc, 'strict', ['a', 'b'], { waitMs: 0 })).rejects.toThrow(
      'too many positional params: expected at most 1, got 2',
    );
    expect(await svc.runs.listActive()).toEqual([]);
  });

  it("refuses values a schema-backed DAG's JSON Schema refuses before any process starts", async () => {
    svc.writeDag(
      'typed',
      'params:\n  type: object\n  properties:\n    port: {type: integer, default: 80, maximum: 65535}\n' +
        'steps:\n  - name: s\n    run: echo "$port"\n',
    );
    const refused = startDag(svc, 'typed', ['port=70000'], { waitMs: 0 });
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toThrow(/^DAG typed: params: parameter validation failed: .*port/);
    expect(await svc.runs.listActive()).toEqual([]);
  });

  it("returns the run's status once its process has recorded it", async () => {
    const dag = (await getDag(svc, 'hello')).dag!;
    const readStatus = svc.runs.readStatus.bind(svc.runs);
    let polls = 0;
    // The record shows up on the third look, as if the run process had just written it.
    svc.runs.readStatus = async (runId) => {
      polls += 1;
      if (polls === 3) {
        await svc.runs.createRun(
          newRunStatus({
            dag,
            runId,
            status: 'running',
            triggerType: 'manual',
            scheduleTime: null,
            params: [],
            nowIso: '2026-11-30T01:14:30Z',
          }),
        );
      }
      return readStatus(runId);
    };

    const result = await startDag(svc, 'hello', [], { waitMs: 10_000, pollMs: 1 });

    expect(result.status).toMatchObject({ run_id: result.run_id, status: 'running' });
    expect(polls).toBe(3);
  });

  it('refuses a missing DAG without starting anything', async () => {
    await expect(startDag(svc, 'missing', [], { waitMs: 0 })).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('startDag of a DAG that runs on workers', () => {
  const REMOTE = 'worker_selector:\n  zone: b\nsteps:\n  - name: greet\n    command: echo hi\n';

  async function registerWorker(labels: Record<string, string>) {
    await svc.workers.put({
      worker_id: 'worker-b',
      labels,
      max_active_runs: 2,
      running: [],
      host: 'host-b',
      pid: 7,
      registered_at_ms: T0,
      last_heartbeat_ms: T0,
    });
  }

  it('hands the run to the dispatcher: recorded queued with a task for the selector, no local process', async () => {
    svc.writeDag('remote', REMOTE);
    await registerWorker({ zone: 'b' });

    const result = await startDag(svc, 'remote', ['A=1'], { waitMs: 0 });

    expect(result).toMatchObject({ dag_name: 'remote', outcome: 'dispatched', pid: null, process_log: null });
    expect(result.status).toMatchObject({ run_id: result.run_id, status: 'queued', trigger_type: 'manual' });
    expect(await getRun(svc, result.run_id)).toMatchObject({ status: 'queued', params: ['A=1'] });
    expect(await svc.tasks.findByRun(result.run_id)).toMatchObject({
      operation: 'start',
      trigger_type: 'manual',
      worker_selector: { zone: 'b' },
      params: ['A=1'],
    });
    // A local start creates the run's log directory (for process.log) before it spawns.
    expect(existsSync(svc.runs.logDir('remote', result.run_id, 1))).toBe(false);
  });

  it('sends every DAG to the workers under default_execution_mode distributed', async () => {
    svc.config.default_execution_mode = 'distributed';
    await registerWorker({});
    const result = await startDag(svc, 'hello', [], { waitMs: 0 });
    expect(result.outcome).toBe('dispatched');
    expect((await svc.tasks.findByRun(result.run_id))?.worker_selector).toEqual({});
  });

  it('answers held with the waiting run when no worker matches and waiting is on', async () => {
    svc.writeDag('remote', REMOTE);
    const calls: DispatchParams[] = [];
    svc.dispatcher = {
      async dispatch(p) {
        calls.push(p);
        const status = newRunStatus({
          dag: p.dag,
          runId: p.runId,
          status: 'queued',
          triggerType: p.triggerType,
          scheduleTime: null,
          params: p.params,
          nowIso: '2026-11-30T01:14:30Z',
        });
        return { outcome: 'held', status };
      },
      cancel: () => Promise.reject(new Error('not used')),
    };

    const result = await startDag(svc, 'remote', [], { waitMs: 0 });

    expect(result.outcome).toBe('held');
    expect(result.status?.status).toBe('queued');
    expect(calls).toEqual([
      expect.objectContaining({
        operation: 'start',
        triggerType: 'manual',
        fromQueue: false,
        selector: { zone: 'b' },
      }),
    ]);
  });

  it('refuses with 409 no_coordinator and records nothing while no coordinator is alive', async () => {
    svc.writeDag('remote', REMOTE);
    await registerWorker({ zone: 'b' });
    const [record] = await svc.coordinators.list();
    await svc.coordinators.put({ ...record, stopped_at_ms: svc.clock.nowMs() });

    const err = await startDag(svc, 'remote', [], { waitMs: 0 }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NoCoordinatorError);
    expect(toErrorResponse(err)).toEqual({
      status: 409,
      body: { error: { code: 'no_coordinator', message: 'no coordinators available' } },
    });
    expect((await svc.runs.listRuns({})).items).toEqual([]);
    expect(await svc.tasks.listPending()).toEqual([]);
  });

  it('refuses with 409 no_worker and the refusal text when no worker can take it and it cannot be held', async () => {
    svc.writeDag('remote', REMOTE);
    await registerWorker({ zone: 'a' });

    const err = await startDag(svc, 'remote', [], { waitMs: 0 }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NoWorkerError);
    expect(toErrorResponse(err)).toEqual({
      status: 409,
      body: { error: { code: 'no_worker', message: 'no worker matches the selector {zone: b}' } },
    });
    expect((await svc.runs.listRuns({})).items).toEqual([]);
  });
});
