import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BadRequestError, ConflictError, NotFoundError, toErrorResponse } from './errors';
import { dequeueRun, enqueueDag } from './queue';
import { getRun } from './runs';
import { NoCoordinatorError } from './startDag';
import { testServices, type TestServices } from './testServices';
import { RecordingLogger } from '../testing/recordingLogger';

const HELLO = 'steps:\n  - name: greet\n    command: echo hello\n  - name: bye\n    command: echo bye\n';

/** What a write on a full disk throws. */
const noSpace = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });

/** Makes every event append fail as on a full disk; returns the logger that sees the warnings. */
function eventsOnFullDisk(s: TestServices): RecordingLogger {
  s.events.append = () => Promise.reject(noSpace());
  const logger = new RecordingLogger();
  s.logger = logger;
  return logger;
}

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag('hello', HELLO);
});
afterEach(() => svc.cleanup());

describe('enqueueDag', () => {
  it("keeps the caller's one JSON word on the record for DAG_PARAMS_JSON, and nothing for other params", async () => {
    svc.writeDag('p', 'params: "A=1 B=2"\nsteps:\n  - run: "true"\n');
    const json = await enqueueDag(svc, 'p', [' {"B": 3} ']);
    expect(json).toMatchObject({ params: ['A=1', 'B=3'], params_json: '{"B": 3}' });
    expect((await getRun(svc, json.run_id)).params_json).toBe('{"B": 3}');
    const cli = await enqueueDag(svc, 'p', ['B=3'], { paramsJson: '{"B":3}' });
    expect(cli.params_json).toBe('{"B":3}');
    expect(await enqueueDag(svc, 'p', ['B=3'])).not.toHaveProperty('params_json');
  });

  it("records the DAG's labels and enqueue --labels on the queued run, and lists them with it", async () => {
    svc.writeDag('lab', 'labels: [Team=Data]\nsteps:\n  - run: "true"\n');
    const status = await enqueueDag(svc, 'lab', [], { labels: ['env=prod', 'team=data'] });
    expect(status.labels).toEqual(['team=data', 'env=prod']);
    expect((await getRun(svc, status.run_id)).labels).toEqual(['team=data', 'env=prod']);
    expect((await svc.runs.listRuns({ dag: 'lab' })).items[0].labels).toEqual(['team=data', 'env=prod']);
    const plain = await enqueueDag(svc, 'hello', []);
    expect(plain).not.toHaveProperty('labels');
    expect((await svc.runs.listRuns({ dag: 'hello' })).items[0]).not.toHaveProperty('labels');
  });

  it('records no_reuse on a run enqueued with it (any DAG: harmless where nothing is reused), nothing without', async () => {
    const status = await enqueueDag(svc, 'hello', [], { noReuse: true });
    expect(status.no_reuse).toBe(true);
    expect((await getRun(svc, status.run_id)).no_reuse).toBe(true);
    expect(await enqueueDag(svc, 'hello', [], { noReuse: false })).not.toHaveProperty('no_reuse');
    expect(await enqueueDag(svc, 'hello', [])).not.toHaveProperty('no_reuse');
  });

  it('records a queued run with every step not started, marks it active and queues it in the DAG queue', async () => {
    const status = await enqueueDag(svc, 'hello', ['A=1', 'b c']);

    expect(status).toMatchObject({
      dag_name: 'hello',
      status: 'queued',
      trigger_type: 'manual',
      queue: 'hello',
      // The second word is the positional param at place 2, stored under its place as Dagu does.
      params: ['A=1', '2=b c'],
      queued_at: '2026-11-30T01:14:30Z',
    });
    expect(status.steps.map((s) => [s.name, s.status])).toEqual([
      ['greet', 'not_started'],
      ['bye', 'not_started'],
    ]);
    expect(await getRun(svc, status.run_id)).toEqual(status);
    expect(await svc.runs.listActive()).toEqual([
      { run_id: status.run_id, dag_name: 'hello', queue: 'hello' },
    ]);
    expect((await svc.queue.list('hello')).map((i) => i.run_id)).toEqual([status.run_id]);
  });

  it("records the DAG's default params with the caller's laid over them", async () => {
    svc.writeDag(
      'withParams',
      'params:\n  - FOO: bar\n  - MODE: fast\nsteps:\n  - name: s\n    run: echo "$FOO"\n',
    );
    expect((await enqueueDag(svc, 'withParams', [])).params).toEqual(['FOO=bar', 'MODE=fast']);
    expect((await enqueueDag(svc, 'withParams', ['MODE=slow'])).params).toEqual(['FOO=bar', 'MODE=slow']);
    expect((await enqueueDag(svc, 'withParams', ['{"MODE": "json"}'])).params).toEqual([
      'FOO=bar',
      'MODE=json',
    ]);
  });

  it('refuses params the DAG does not declare and records nothing', async () => {
    svc.writeDag('withParams', 'params:\n  - FOO: bar\nsteps:\n  - name: s\n    run: echo "$FOO"\n');
    const refused = enqueueDag(svc, 'withParams', ['BOGUS=1']);
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toThrow(
      'DAG withParams: unknown parameter(s): "BOGUS"; accepted parameters are: FOO',
    );
    expect(await svc.runs.listActive()).toEqual([]);
    expect(await svc.queue.list('withParams')).toEqual([]);
  });

  it('keeps the trigger type, slot time and run ID a catch-up enqueue asks for', async () => {
    const status = await enqueueDag(svc, 'hello', [], {
      runId: 'sched-abc-20261130T0100Z',
      triggerType: 'catchup',
      scheduleTime: '2026-11-30T01:00:00Z',
    });
    expect(status).toMatchObject({
      run_id: 'sched-abc-20261130T0100Z',
      trigger_type: 'catchup',
      schedule_time: '2026-11-30T01:00:00Z',
    });
  });

  it('refuses a run ID that is already taken', async () => {
    await enqueueDag(svc, 'hello', [], { runId: 'same' });
    await expect(enqueueDag(svc, 'hello', [], { runId: 'same' })).rejects.toBeInstanceOf(ConflictError);
    expect(await svc.queue.list('hello')).toHaveLength(1);
  });

  it('refuses with a clear error and writes nothing when queues are disabled', async () => {
    const off = testServices((c) => ({ ...c, queues: { enabled: false, config: [] } }));
    try {
      off.writeDag('hello', HELLO);
      await expect(enqueueDag(off, 'hello', [])).rejects.toThrow(
        'queues are disabled (queues.enabled: false)',
      );
      expect((await off.runs.listRuns({})).items).toEqual([]);
      expect(await off.queue.queues()).toEqual([]);
    } finally {
      off.cleanup();
    }
  });

  it('refuses a DAG that runs on workers with no_coordinator while none is alive, and writes nothing', async () => {
    svc.writeDag('remote', `worker_selector:\n  zone: b\n${HELLO}`);
    const [record] = await svc.coordinators.list();
    await svc.coordinators.put({ ...record, stopped_at_ms: svc.clock.nowMs() });

    const err = await enqueueDag(svc, 'remote', []).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NoCoordinatorError);
    expect(toErrorResponse(err)).toEqual({
      status: 409,
      body: { error: { code: 'no_coordinator', message: 'no coordinators available' } },
    });
    expect((await svc.runs.listRuns({})).items).toEqual([]);
    expect(await svc.queue.queues()).toEqual([]);
    // A DAG that runs here does not need one.
    expect((await enqueueDag(svc, 'hello', [])).status).toBe('queued');
  });

  it('reports a run queued once it is, even when its event cannot be recorded (a full disk)', async () => {
    const logger = eventsOnFullDisk(svc);

    const status = await enqueueDag(svc, 'hello', []);

    expect(status.status).toBe('queued');
    expect((await svc.queue.list('hello')).map((i) => i.run_id)).toEqual([status.run_id]);
    expect(logger.find('Could not record an event')).toEqual([
      {
        level: 'warn',
        msg: 'Could not record an event; the operation itself was done',
        fields: {
          type: 'run:enqueued',
          run_id: status.run_id,
          error: 'ENOSPC: no space left on device, write',
        },
      },
    ]);
  });

  it('keeps a run whose queue item cannot be written (a full disk) and says the scheduler queues it again', async () => {
    svc.queue.enqueue = () => Promise.reject(noSpace());
    const logger = new RecordingLogger();
    svc.logger = logger;

    const status = await enqueueDag(svc, 'hello', []);

    // Listed, queued and marked active: the dead-run check finds it and puts it back in its queue.
    expect(await getRun(svc, status.run_id)).toMatchObject({ status: 'queued' });
    expect(await svc.runs.listActive()).toEqual([
      { run_id: status.run_id, dag_name: 'hello', queue: 'hello' },
    ]);
    expect(logger.find('queue item')).toEqual([
      {
        level: 'warn',
        msg: 'Queued a run whose queue item could not be written; the active scheduler queues it again',
        fields: {
          dag: 'hello',
          run_id: status.run_id,
          queue: 'hello',
          error: 'ENOSPC: no space left on device, write',
        },
      },
    ]);
  });

  it('refuses a missing DAG with NotFoundError and writes nothing', async () => {
    await expect(enqueueDag(svc, 'missing', [])).rejects.toBeInstanceOf(NotFoundError);
    expect((await svc.runs.listRuns({})).items).toEqual([]);
  });

  it('refuses an invalid DAG with the first error and writes nothing', async () => {
    svc.writeDag('bad', 'steps:\n  - name: a\n');
    await expect(enqueueDag(svc, 'bad', [])).rejects.toThrow(/bad\.yaml/);
    expect((await svc.runs.listRuns({})).items).toEqual([]);
  });
});

describe('dequeueRun', () => {
  it('removes the queue item and ends the run aborted with "dequeued by user"', async () => {
    const { run_id } = await enqueueDag(svc, 'hello', []);
    svc.clock.advance(5000);

    const result = await dequeueRun(svc, run_id);

    expect(result).toMatchObject({
      status: 'aborted',
      error: 'dequeued by user',
      finished_at: '2026-11-30T01:14:35Z',
    });
    expect(await getRun(svc, run_id)).toEqual(result);
    expect(await svc.queue.list('hello')).toEqual([]);
    expect(await svc.runs.listActive()).toEqual([]);
  });

  it('refuses a run that is not queued and leaves it as it was', async () => {
    const queued = await enqueueDag(svc, 'hello', []);
    const running = { ...queued, status: 'running' as const, started_at: '2026-11-30T01:14:31Z' };
    await svc.runs.writeStatus(running);

    await expect(dequeueRun(svc, queued.run_id)).rejects.toThrow(/is not queued \(status: running\)/);
    expect(await getRun(svc, queued.run_id)).toEqual(running);
  });

  it('reports a run dequeued once it is, even when its event cannot be recorded (a full disk)', async () => {
    const { run_id } = await enqueueDag(svc, 'hello', []);
    const logger = eventsOnFullDisk(svc);

    await expect(dequeueRun(svc, run_id)).resolves.toMatchObject({ status: 'aborted' });

    expect(await svc.queue.list('hello')).toEqual([]);
    expect(logger.find('Could not record an event').map((l) => l.fields)).toEqual([
      { type: 'run:dequeued', run_id, error: 'ENOSPC: no space left on device, write' },
    ]);
  });

  it('leaves a note that the run ended when its end cannot be written (a full disk), and says it will not run', async () => {
    const { run_id } = await enqueueDag(svc, 'hello', []);
    svc.runs.writeStatus = () => Promise.reject(noSpace());

    const err = await dequeueRun(svc, run_id).catch((e: unknown) => e);

    expect(toErrorResponse(err)).toMatchObject({
      status: 500,
      body: {
        error: {
          code: 'dequeue_unrecorded',
          message: `run ${run_id} was taken out of its queue, but could not be marked aborted (ENOSPC: no space left on device, write); it will not run: the active scheduler marks it failed`,
        },
      },
    });
    expect(await svc.queue.list('hello')).toEqual([]);
    // The note the dead-run check goes by: it fails the run rather than queue it again.
    expect(await svc.runs.readUnwrittenFinalStatus(run_id, 1)).toEqual({
      state: 'aborted',
      error_code: 'ENOSPC',
    });
  });

  it('says the run is queued again when not even the note can be left', async () => {
    const { run_id } = await enqueueDag(svc, 'hello', []);
    svc.runs.writeStatus = () => Promise.reject(noSpace());
    svc.runs.recordUnwrittenFinalStatus = () => Promise.reject(new Error('EIO: i/o error, open'));

    await expect(dequeueRun(svc, run_id)).rejects.toThrow(
      `run ${run_id} was taken out of its queue, but could not be marked aborted (ENOSPC: no space left on device, write); the active scheduler queues it again: dequeue it again once the storage is back`,
    );
  });

  it('fails with NotFoundError for an unknown run', async () => {
    await expect(dequeueRun(svc, 'nope')).rejects.toBeInstanceOf(NotFoundError);
  });
});
