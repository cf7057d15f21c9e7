import { describe, expect, it, vi } from 'vitest';
import { systemClock } from '../core/clock';
import { waitingConditions } from '../core/distributed';
import type { StepStatus } from '../core/types';
import { RecordingLogger } from '../testing/recordingLogger';
import { MAX_EVENT_LINE_BYTES } from './eventRecord';
import { MemoryEventLog } from './memoryEventLog';
import { MemoryRunStore } from './memoryRunStore';
import { runEventData, runEventType, withRunEvents } from './runEvents';
import { testRunStatus } from '../testing/testRunStatus';
import type { EventLog } from './types';

function setup(events: EventLog = new MemoryEventLog({ clock: systemClock })) {
  const inner = new MemoryRunStore();
  const logger = new RecordingLogger();
  return { inner, events, logger, store: withRunEvents(inner, events, { logger }) };
}

const types = async (events: EventLog) => (await events.list({})).map((e) => e.type);

const step = (name: string, overrides: Partial<StepStatus> = {}): StepStatus => ({
  name,
  status: 'failed',
  started_at: null,
  finished_at: null,
  exit_code: 1,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
  ...overrides,
});

describe('withRunEvents', () => {
  it('flushes every run event to the disk but the one of a run starting', async () => {
    const appended: Array<[string, boolean | undefined]> = [];
    const memory = new MemoryEventLog({ clock: systemClock });
    const recording: EventLog = {
      append: (type, data, opts) => {
        appended.push([type, opts?.durable]);
        return memory.append(type, data);
      },
      list: (query) => memory.list(query),
    };
    const { store } = setup(recording);
    await store.createRun(testRunStatus({ run_id: 'r1', status: 'queued' }));
    await store.writeStatus(testRunStatus({ run_id: 'r1', status: 'running' }));
    await store.writeStatus(testRunStatus({ run_id: 'r1', status: 'succeeded' }));
    await store.createRun(testRunStatus({ run_id: 'r2', status: 'running' }));
    await store.writeStatus(testRunStatus({ run_id: 'r2', status: 'aborted' }));
    expect(appended).toEqual([
      ['dag.run.queued', true],
      ['dag.run.running', false],
      ['dag.run.succeeded', true],
      ['dag.run.running', false],
      ['dag.run.aborted', true],
    ]);
  });

  it('carries the conditions of a held run through the event snapshot', async () => {
    const { store, events } = setup();
    const conditions = waitingConditions('NoMatchingWorker', { zone: 'b' }, '2026-03-01T10:00:00.000Z');
    const queued = testRunStatus({
      run_id: 'r1',
      conditions,
      worker_selector: { zone: 'b' },
      queued_at: '2026-03-01T10:00:00.000Z',
    });
    await store.createRun(queued);
    const [event] = await events.list({});
    expect(event.type).toBe('dag.run.queued');
    expect(event.data).toEqual({
      dag_name: 'etl',
      run_id: 'r1',
      attempt: 1,
      worker_selector: { zone: 'b' },
      status: {
        dag_name: 'etl',
        run_id: 'r1',
        attempt: 1,
        status: 'queued',
        trigger_type: 'manual',
        queue: 'etl',
        error: null,
        conditions,
        worker_id: null,
        created_at: '2026-03-01T10:00:00.000Z',
        queued_at: '2026-03-01T10:00:00.000Z',
        started_at: null,
        finished_at: null,
        schedule_time: null,
        steps: [],
      },
    });
  });

  it('emits a state once however often it is written, and again on each transition', async () => {
    const { store, events } = setup();
    const queued = testRunStatus({ run_id: 'r1' });
    await store.createRun(queued);
    await store.writeStatus({ ...queued, worker_id: 'w1' });
    await store.writeStatus({ ...queued, status: 'running' });
    await store.writeStatus({ ...queued, status: 'running', steps: [step('s', { status: 'running' })] });
    await store.writeStatus({ ...queued, status: 'partially_succeeded' });
    await store.createAttempt({ ...queued, attempt: 2, trigger_type: 'retry' });
    await store.writeStatus({ ...queued, attempt: 2, status: 'failed', error: 'boom' });
    await store.writeStatus({ ...queued, attempt: 2, status: 'failed', error: 'boom' });
    expect(await types(events)).toEqual([
      'dag.run.queued',
      'dag.run.running',
      'dag.run.succeeded',
      'dag.run.queued',
      'dag.run.failed',
    ]);
    const last = (await events.list({})).at(-1)!;
    expect(last.data).toMatchObject({ attempt: 2, status: { status: 'failed', error: 'boom' } });
  });

  it('emits nothing for a write that failed or a run that already existed', async () => {
    const { store, events } = setup();
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    expect(await store.createRun(testRunStatus({ run_id: 'r1', status: 'running' }))).toEqual({
      created: false,
      reason: 'exists',
    });
    await expect(store.writeStatus(testRunStatus({ run_id: 'nope', status: 'running' }))).rejects.toThrow();
    expect(await types(events)).toEqual(['dag.run.queued']);
  });

  it('keeps the status write when the event cannot be appended, and logs it', async () => {
    const failing: EventLog = {
      append: async () => {
        throw new Error('disk full');
      },
      list: async () => [],
    };
    const { store, inner, logger } = setup(failing);
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    await store.writeStatus(testRunStatus({ run_id: 'r1', status: 'running' }));
    expect(await inner.readStatus('r1')).toMatchObject({ kind: 'ok', status: { status: 'running' } });
    expect(logger.find('Could not append a run event')).toEqual([
      expect.objectContaining({
        fields: expect.objectContaining({ type: 'dag.run.queued', error: 'disk full' }),
      }),
      expect.objectContaining({ fields: expect.objectContaining({ type: 'dag.run.running', run_id: 'r1' }) }),
    ]);
  });

  it('passes every other call through to the wrapped store', async () => {
    const { store, inner } = setup();
    await store.createRun(testRunStatus({ run_id: 'r1' }));
    await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    expect(await inner.listActive()).toEqual([{ run_id: 'r1', dag_name: 'etl', queue: 'etl' }]);
    expect(await store.claimAttempt('r1', 1, 'me')).toBe(true);
    await store.writeHeartbeat('r1', 1, 42);
    expect(await store.readHeartbeat('r1', 1)).toBe(42);
    expect((await store.listRuns({})).items.map((r) => r.run_id)).toEqual(['r1']);
    expect(store.logDir('etl', 'r1', 1)).toBe(inner.logDir('etl', 'r1', 1));
  });

  it("passes a store's one-step read and claim through, and has none where the store has none", async () => {
    const { store, events } = setup();
    expect(store.claimQueued).toBeUndefined();
    const inner = Object.assign(new MemoryRunStore(), {
      claimQueued: async (runId: string, owner: string) => ({
        kind: 'ok' as const,
        status: testRunStatus({ run_id: runId, status: 'queued' }),
        claimed: owner === 'me',
      }),
    });
    const wrapped = withRunEvents(inner, events);
    expect(await wrapped.claimQueued!('r1', 'me')).toMatchObject({ kind: 'ok', claimed: true });
    expect(await wrapped.claimQueued!('r1', 'other')).toMatchObject({ kind: 'ok', claimed: false });
  });
});

describe('runEventType', () => {
  it('names the event of each run state, with partial success counted as success', () => {
    expect(runEventType('queued')).toBe('dag.run.queued');
    expect(runEventType('running')).toBe('dag.run.running');
    expect(runEventType('succeeded')).toBe('dag.run.succeeded');
    expect(runEventType('partially_succeeded')).toBe('dag.run.succeeded');
    expect(runEventType('failed')).toBe('dag.run.failed');
    expect(runEventType('aborted')).toBe('dag.run.aborted');
    expect(runEventType('rejected')).toBe('dag.run.rejected');
    expect(runEventType('waiting')).toBeNull();
  });
});

describe('runEventData', () => {
  it('fits a run with many failing steps and long errors into one event line', async () => {
    const status = testRunStatus({
      run_id: 'r1',
      status: 'failed',
      error: 'x'.repeat(10_000),
      steps: Array.from({ length: 200 }, (_, i) => step(`step-number-${i}`, { error: 'e'.repeat(1000) })),
    });
    const data = runEventData(status);
    expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThan(MAX_EVENT_LINE_BYTES - 200);
    expect(data.status.error).toMatch(/^x{500}\.\.\. \(truncated\)$/);
    expect(data.status.steps.length + data.status.steps_omitted!).toBe(200);
    expect(data.status.steps[0]).toEqual({
      name: 'step-number-0',
      status: 'failed',
      error: expect.stringMatching(/truncated/),
    });
    const events = new MemoryEventLog({ clock: systemClock });
    const record = await events.append('dag.run.failed', data as unknown as Record<string, unknown>);
    expect(record.data).toEqual(JSON.parse(JSON.stringify(data)));
  });
});

/**
 * Two processes over one store and one event log: the CLI created a held run (r9, queued for zone b); the
 * coordinator's wrapper has seen nothing of it yet.
 */
async function heldRunCreatedByCli() {
  const inner = new MemoryRunStore();
  const events = new MemoryEventLog({ clock: systemClock });
  const cli = withRunEvents(inner, events);
  const coordinator = withRunEvents(inner, events);
  const queued = testRunStatus({ run_id: 'r9', status: 'queued', worker_selector: { zone: 'b' } });
  await cli.createRun(queued);
  return { inner, events, coordinator, queued };
}

describe('withRunEvents across processes', () => {
  it('does not announce again a state another process already wrote (the ack of a held run stays queued)', async () => {
    const { events, coordinator, queued } = await heldRunCreatedByCli();
    await coordinator.writeStatus({ ...queued, worker_id: 'worker-b' });
    await coordinator.writeStatus({ ...queued, worker_id: 'worker-b', status: 'running' });

    expect(await types(events)).toEqual(['dag.run.queued', 'dag.run.running']);
  });
});

describe('withRunEvents given the status a write replaces', () => {
  it('does not read the run again before its first write in this process', async () => {
    const { inner, events, coordinator, queued } = await heldRunCreatedByCli();
    const read = await coordinator.readStatus('r9');
    const reads = vi.spyOn(inner, 'readStatus');

    await coordinator.writeStatus(
      { ...queued, worker_id: 'worker-b' },
      read.kind === 'ok' ? read.status : undefined,
    );
    await coordinator.writeStatus({ ...queued, worker_id: 'worker-b', status: 'running' });

    expect(reads).not.toHaveBeenCalled();
    expect(await types(events)).toEqual(['dag.run.queued', 'dag.run.running']);
  });

  it('reads the run as before when what it names is another run', async () => {
    const inner = new MemoryRunStore();
    const events = new MemoryEventLog({ clock: systemClock });
    const store = withRunEvents(inner, events);
    const queued = testRunStatus({ run_id: 'r9', status: 'queued' });
    await withRunEvents(inner, events).createRun(queued);
    const reads = vi.spyOn(inner, 'readStatus');

    await store.writeStatus({ ...queued, worker_id: 'w' }, { ...queued, run_id: 'other', status: 'running' });

    expect(reads).toHaveBeenCalledTimes(1);
    expect(await types(events)).toEqual(['dag.run.queued']);
  });
});

describe('withRunEvents and waiting conditions', () => {
  it("announces a claimed attempt's start without reading the run first, also when a retry finds it begun", async () => {
    const { inner, events, store } = setup();
    await inner.createRun(testRunStatus({ run_id: 'r1', status: 'queued' }));
    expect(await store.claimAttempt('r1', 1, 'me')).toBe(true);
    let reads = 0;
    const read = inner.readStatus.bind(inner);
    inner.readStatus = (runId) => {
      reads++;
      return read(runId);
    };
    // The first start commits but its answer is lost; the retry finds the start its own.
    const begin = inner.beginClaimedAttempt.bind(inner);
    let lost = true;
    inner.beginClaimedAttempt = async (status, owner) => {
      const begun = await begin(status, owner);
      if (lost) {
        lost = false;
        throw new Error('connection lost');
      }
      return begun;
    };
    const running = testRunStatus({ run_id: 'r1', status: 'running' });
    await expect(store.beginClaimedAttempt(running, 'me')).rejects.toThrow('connection lost');
    expect(await store.beginClaimedAttempt(running, 'me')).toBe(true);
    await store.writeStatus(running);
    expect(reads).toBe(0);
    expect(await types(events)).toEqual(['dag.run.running']);
  });

  it('announces a queued run again once it says why it waits, but not on every refresh of that reason', async () => {
    const inner = new MemoryRunStore();
    const events = new MemoryEventLog({ clock: systemClock });
    const store = withRunEvents(inner, events);
    const queued = testRunStatus({ run_id: 'q1', status: 'queued', worker_selector: { zone: 'b' } });
    await store.createRun(queued);
    const waiting = {
      ...queued,
      conditions: waitingConditions('NoAvailableWorker', { zone: 'b' }, '2026-03-01T10:00:00Z'),
    };
    await store.writeStatus(waiting);
    await store.writeStatus({
      ...waiting,
      conditions: waitingConditions('NoAvailableWorker', { zone: 'b' }, '2026-03-01T10:00:05Z'),
    });
    await store.writeStatus({
      ...waiting,
      conditions: waitingConditions('NoMatchingWorker', { zone: 'b' }, '2026-03-01T10:00:09Z'),
    });
    await store.writeStatus({ ...queued, worker_id: 'worker-b' });

    const list = await events.list({});
    expect(list.map((e) => e.type)).toEqual(['dag.run.queued', 'dag.run.queued', 'dag.run.queued']);
    const reasons = list.map((e) =>
      (e.data.status as { conditions: Array<{ reason: string }> }).conditions.map((c) => c.reason),
    );
    expect(reasons).toEqual([
      [],
      ['NoAvailableWorker', 'NoAvailableWorker'],
      ['NoMatchingWorker', 'NoMatchingWorker'],
    ]);
  });
});
