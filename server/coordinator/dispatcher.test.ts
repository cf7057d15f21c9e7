import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECOND } from '../core/units';
import { DispatchConflictError, DispatchFailedError } from './errors';
import { CANCELLED_BEFORE_WORKER, Dispatcher, type DispatcherDeps } from './dispatcher';
import { newRunDispatch } from '../core/dispatcherApi';
import { countedCalls } from './testing/countedCalls';
import { MemoryCoordinatorRegistry } from '../store/memoryCoordinatorRegistry';
import { testCoordinatorRecord } from '../store/coordinatorRegistry.contract';
import {
  coordinatorHarness,
  etl,
  STALE_MS,
  START,
  STORE_KITS,
  WAIT_MS,
  type CoordinatorHarness,
  type StoreKit,
} from './testing/coordinatorHarness';

/** The record of a coordinator last seen at `lastSeenMs`, fresh for STALE_MS. */
const coordinatorRecord = (lastSeenMs: number) =>
  testCoordinatorRecord({ coordinator_id: 'host-a-50055', last_seen_ms: lastSeenMs, fresh_for_ms: STALE_MS });

describe.each(STORE_KITS)('Dispatcher on $name', ({ make }) => {
  let kit: StoreKit;
  let h: CoordinatorHarness;

  beforeEach(async () => {
    kit = await make();
    h = await coordinatorHarness(kit);
  });
  afterEach(() => kit.dispose());

  it('holds a dispatch no healthy worker matches, until a matching worker polls', async () => {
    await h.heartbeat('worker-a', { zone: 'a' });
    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result.outcome).toBe('held');
    const held = await h.status('run-1');
    expect(held.status).toBe('queued');
    expect(held.worker_selector).toEqual({ zone: 'b' });
    expect(held.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Runnable', 'False', 'NoMatchingWorker'],
      ['WorkerReady', 'False', 'NoMatchingWorker'],
    ]);
    expect(held.conditions[0].message).toBe('no healthy worker matches the selector {zone: b}');
    expect(held.conditions[0].checked_at).toBe('2026-11-30T01:15:30Z');
    expect(await h.activeIds()).toEqual(['run-1']);
    const [task] = await h.tasks.listPending();
    expect(task).toMatchObject({
      run_id: 'run-1',
      attempt: 1,
      hold_until_ms: START + WAIT_MS,
      wait_ms: WAIT_MS,
    });
    expect(h.logger.find('Held a run until a matching worker arrives')[0].fields).toMatchObject({
      run_id: 'run-1',
      selector: '{zone: b}',
      hold_until: '2026-11-30T01:17:30Z',
    });

    await h.time.advance(30 * SECOND);
    expect(await h.claim('worker-a', { zone: 'a' })).toBeNull();
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });

    const taken = await h.status('run-1');
    expect(taken).toMatchObject({
      status: 'queued',
      worker_id: 'worker-b',
      host: 'worker-b-host',
      conditions: [],
    });
    expect(h.logger.find('A worker claimed a held run')).toHaveLength(1);
    expect(await h.tasks.findByRun('run-1')).toBeNull();
  });

  it('holds a dispatch when no worker is registered at all', async () => {
    const result = await h.dispatch('run-1', {});

    expect(result.outcome).toBe('held');
    const held = await h.status('run-1');
    expect(held.conditions.map((c) => c.reason)).toEqual(['NoAvailableWorker', 'NoAvailableWorker']);
    expect(held.conditions[1].message).toBe('no healthy worker is registered with the coordinator');
    await h.heartbeat('anyone', { zone: 'x' });
    await h.take('anyone', { zone: 'x' });
    expect((await h.status('run-1')).worker_id).toBe('anyone');
  });

  it('counts a worker whose heartbeat went stale as absent', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.time.advance(11 * SECOND);

    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result.outcome).toBe('held');
    expect((await h.status('run-1')).conditions[0].reason).toBe('NoAvailableWorker');
  });

  it('dispatches at once to a matching healthy worker, with no conditions and no hold', async () => {
    await h.heartbeat('worker-b', { zone: 'b', gpu: 'true' });

    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result.outcome).toBe('dispatched');
    expect((await h.status('run-1')).conditions).toEqual([]);
    expect((await h.tasks.findByRun('run-1'))?.hold_until_ms).toBeNull();
  });

  it('answers a second dispatch of the same run from its task, without a second task', async () => {
    await h.dispatch('run-1', { zone: 'b' });

    const again = await h.dispatch('run-1', { zone: 'b' });

    expect(again.outcome).toBe('held');
    expect(h.tasks.enqueueCalls).toBe(1);
    expect(await h.tasks.listPending()).toHaveLength(1);
  });

  /** A dispatcher over the harness's stores, clock and settings, with `deps` in their place. */
  const dispatcherWith = (deps: Partial<DispatcherDeps>) =>
    new Dispatcher({
      runs: h.runs,
      tasks: h.tasks,
      workers: h.workers,
      cancels: h.cancels,
      clock: h.time,
      logger: h.logger,
      waitMs: WAIT_MS,
      staleMs: STALE_MS,
      ...deps,
    });

  it('records a new run with no reads: its creation is the check that it does not exist', async () => {
    await h.heartbeat('worker-a', { zone: 'a' });
    const calls = new Map<string, number>();
    const dispatcher = dispatcherWith({
      runs: countedCalls(h.runs, calls),
      tasks: countedCalls(h.tasks, calls),
    });

    const result = await dispatcher.dispatch(newRunDispatch(etl, 'run-1', { selector: { zone: 'a' } }));

    expect(result.outcome).toBe('dispatched');
    expect(Object.fromEntries(calls)).toEqual({ createRun: 1, enqueue: 1 });
    expect(await h.activeIds()).toEqual(['run-1']);
    expect((await h.tasks.findByRun('run-1'))?.attempt).toBe(1);
  });

  it('announces each stored task as run:dispatched, after the task exists, held or not', async () => {
    await h.heartbeat('worker-a', { zone: 'a' });
    const seen: Array<{ type: string; data: Record<string, unknown>; pending: string[] }> = [];
    const dispatcher = dispatcherWith({
      events: {
        append: async (type, data) => {
          // What a console reading the queue at this moment finds: the task is there already.
          const pending = (await h.tasks.pendingSummaries()).map((t) => t.run_id);
          seen.push({ type, data, pending });
          return { id: String(seen.length), type, time: '', data };
        },
      },
    });

    await dispatcher.dispatch(newRunDispatch(etl, 'run-1', { selector: { zone: 'b' } }));
    await dispatcher.dispatch(newRunDispatch(etl, 'run-2', { selector: { zone: 'a' } }));

    expect(seen).toEqual([
      {
        type: 'run:dispatched',
        data: { run_id: 'run-1', dag: 'etl', attempt: 1, held: true, hold_until: '2026-11-30T01:17:30Z' },
        pending: ['run-1'],
      },
      {
        type: 'run:dispatched',
        data: { run_id: 'run-2', dag: 'etl', attempt: 1, held: false },
        pending: ['run-1', 'run-2'],
      },
    ]);
  });

  it('keeps a dispatch whose event cannot be written, and says so', async () => {
    const dispatcher = dispatcherWith({
      events: { append: () => Promise.reject(new Error('ENOSPC: no space left on device')) },
    });

    const result = await dispatcher.dispatch(newRunDispatch(etl, 'run-1', { selector: { zone: 'b' } }));

    expect(result.outcome).toBe('held');
    expect(await h.tasks.findByRun('run-1')).not.toBeNull();
    expect(h.logger.find('Could not record an event; the operation itself was done')[0].fields).toMatchObject(
      {
        type: 'run:dispatched',
        run_id: 'run-1',
      },
    );
  });

  /**
   * The harness's dispatch store as one that appends to `events` in its enqueue write (as PostgreSQL's does):
   * records the event each enqueue carried, and refuses one that carries an event with `refuse`.
   */
  const storeAppendingTo = (events: DispatcherDeps['events'], refuse?: Error & { code: string }) => {
    const carried: unknown[] = [];
    const tasks = new Proxy(h.tasks, {
      get(obj, prop, receiver) {
        if (prop === 'eventsInEnqueue') return events;
        if (prop !== 'enqueue') return Reflect.get(obj, prop, receiver) as unknown;
        return async (task: Parameters<typeof obj.enqueue>[0], opts?: { event?: unknown }) => {
          if (opts?.event !== undefined && refuse) throw refuse;
          carried.push(opts?.event);
          return obj.enqueue(task);
        };
      },
    });
    return { tasks, carried };
  };

  /** An event log that records the type of each event appended to it. */
  const recordedEvents = () => {
    const appended: string[] = [];
    const events: DispatcherDeps['events'] = {
      append: async (type, data) => {
        appended.push(type);
        return { id: String(appended.length), type, time: '', data };
      },
    };
    return { events, appended };
  };

  it('stores the task and its run:dispatched in one write where the dispatch store appends to that log', async () => {
    const { events, appended } = recordedEvents();
    const { tasks, carried } = storeAppendingTo(events);

    await dispatcherWith({ tasks, events }).dispatch(
      newRunDispatch(etl, 'run-1', { selector: { zone: 'b' } }),
    );

    expect(carried).toEqual([
      {
        type: 'run:dispatched',
        data: { run_id: 'run-1', dag: 'etl', attempt: 1, held: true, hold_until: '2026-11-30T01:17:30Z' },
      },
    ]);
    expect(appended).toEqual([]);
    // A store that appends to another log gets no event: the dispatcher appends it apart.
    const other = storeAppendingTo({ append: events.append });
    await dispatcherWith({ tasks: other.tasks, events }).dispatch(
      newRunDispatch(etl, 'run-2', { selector: { zone: 'b' } }),
    );
    expect(other.carried).toEqual([undefined]);
    expect(appended).toEqual(['run:dispatched']);
  });

  it("stores the task alone and appends its event apart when the store refuses the event's part", async () => {
    const { events, appended } = recordedEvents();
    const refused = Object.assign(new Error('relation "events" does not exist'), { code: '42P01' });
    const { tasks, carried } = storeAppendingTo(events, refused);

    const result = await dispatcherWith({ tasks, events }).dispatch(
      newRunDispatch(etl, 'run-1', { selector: { zone: 'b' } }),
    );

    expect(result.outcome).toBe('held');
    expect(carried).toEqual([undefined]);
    expect(await h.tasks.findByRun('run-1')).not.toBeNull();
    expect(appended).toEqual(['run:dispatched']);
    expect(h.logger.find('Could not store a dispatch task with its event; storing them apart')).toHaveLength(
      1,
    );
  });

  it('fails a dispatch whose combined write fails for a reason of its own, and keeps no task', async () => {
    const { events } = recordedEvents();
    const lost = Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' });
    const { tasks } = storeAppendingTo(events, lost);

    await expect(
      dispatcherWith({ tasks, events }).dispatch(newRunDispatch(etl, 'run-1', { selector: { zone: 'b' } })),
    ).rejects.toThrow(DispatchFailedError);
    expect(await h.tasks.findByRun('run-1')).toBeNull();
  });

  it('reads the worker and coordinator lists once for the dispatches that ask while a read is under way', async () => {
    await h.heartbeat('worker-a', { zone: 'a' });
    const calls = new Map<string, number>();
    const registry = new MemoryCoordinatorRegistry();
    await registry.put(coordinatorRecord(START));
    const dispatcher = dispatcherWith({
      workers: countedCalls(h.workers, calls),
      coordinators: countedCalls(registry, calls),
    });
    const dispatch = (runId: string) =>
      dispatcher.dispatch(newRunDispatch(etl, runId, { selector: { zone: 'a' } }));

    const together = await Promise.all([dispatch('run-1'), dispatch('run-2'), dispatch('run-3')]);
    expect(Object.fromEntries(calls)).toEqual({ list: 2 });
    const later = await dispatch('run-4');

    expect([...together, later].map((r) => r.outcome)).toEqual([
      'dispatched',
      'dispatched',
      'dispatched',
      'dispatched',
    ]);
    expect(Object.fromEntries(calls)).toEqual({ list: 4 });
  });

  it('answers a resent dispatch of a run that went through even when it would now be refused', async () => {
    h = await coordinatorHarness(kit, { waitMs: 0 });
    await h.heartbeat('worker-a', { zone: 'a' });
    expect((await h.dispatch('run-1', { zone: 'a' })).outcome).toBe('dispatched');
    await h.time.advance(STALE_MS + SECOND);

    const again = await h.dispatch('run-1', { zone: 'a' });

    expect(again.outcome).toBe('dispatched');
    expect(again.status?.run_id).toBe('run-1');
    expect(h.tasks.enqueueCalls).toBe(1);
  });

  it('refuses a start whose run ID is taken by a run that no longer waits', async () => {
    await h.queuedRun('run-1');
    await h.runs.writeStatus({ ...(await h.status('run-1')), status: 'succeeded' });

    const err = await h.dispatch('run-1', {}).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(DispatchConflictError);
    expect((err as DispatchConflictError).reason).toBe('exists');
  });

  it('refuses at once when waiting is disabled (0), recording no run', async () => {
    h = await coordinatorHarness(kit, { waitMs: 0 });
    await h.heartbeat('worker-a', { zone: 'a' });

    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result).toEqual({
      outcome: 'refused',
      reason: 'NoMatchingWorker',
      error: 'no worker matches the selector {zone: b}',
      status: null,
    });
    expect((await h.runs.readStatus('run-1')).kind).toBe('missing');
    expect(await h.tasks.listPending()).toEqual([]);
  });

  it('refuses when the dispatch store does not survive a restart', async () => {
    h = await coordinatorHarness(kit, { durable: false });

    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result).toMatchObject({
      outcome: 'refused',
      reason: 'NoAvailableWorker',
      error: 'no available workers: no healthy worker is registered with the coordinator',
    });
    expect((await h.runs.readStatus('run-1')).kind).toBe('missing');
  });

  it('refuses a direct dispatch at once when no coordinator was seen alive, recording no run', async () => {
    const coordinators = new MemoryCoordinatorRegistry();
    h = await coordinatorHarness(kit, { coordinators });
    await h.heartbeat('worker-b', { zone: 'b' });
    await coordinators.put(coordinatorRecord(START - STALE_MS - 1));

    const result = await h.dispatch('run-1', { zone: 'b' });

    expect(result).toEqual({
      outcome: 'refused',
      reason: 'NoAvailableCoordinator',
      error: 'no coordinators available',
      status: null,
    });
    expect((await h.runs.readStatus('run-1')).kind).toBe('missing');
    expect(await h.tasks.listPending()).toEqual([]);

    await coordinators.put(coordinatorRecord(START));
    expect((await h.dispatch('run-1', { zone: 'b' })).outcome).toBe('dispatched');
  });

  it("holds the queue's run while no coordinator is alive, so it fails when its wait runs out", async () => {
    h = await coordinatorHarness(kit, { coordinators: new MemoryCoordinatorRegistry() });
    await h.queuedRun('run-q');

    const result = await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true, triggerType: 'queue' });

    expect(result.outcome).toBe('held');
    const s = await h.status('run-q');
    expect(s.status).toBe('queued');
    expect(s.conditions.map((c) => `${c.type}=${c.status}/${c.reason}: ${c.message}`)).toEqual([
      'Runnable=False/NoAvailableCoordinator: no coordinators available',
      'WorkerReady=False/NoAvailableCoordinator: no coordinators available',
    ]);
    expect(await h.tasks.findByRun('run-q')).toMatchObject({
      hold_until_ms: START + WAIT_MS,
      wait_ms: WAIT_MS,
      claim: null,
    });
    expect(h.logger.find('Held a run')[0].fields).toMatchObject({ reason: 'NoAvailableCoordinator' });
  });

  it('keeps refusing the queue re-dispatch: the run stays queued with the conditions and no task', async () => {
    await h.heartbeat('worker-a', { zone: 'a' });
    await h.queuedRun('run-q');

    const result = await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true, triggerType: 'queue' });

    expect(result).toMatchObject({
      outcome: 'refused',
      reason: 'NoMatchingWorker',
      error: 'no worker matches the selector {zone: b}',
    });
    const s = await h.status('run-q');
    expect(s.status).toBe('queued');
    expect(s.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`)).toEqual([
      'Runnable=False/NoMatchingWorker',
      'WorkerReady=False/NoMatchingWorker',
    ]);
    expect(await h.tasks.findByRun('run-q')).toBeNull();
    expect(h.logger.find('Held a run')).toEqual([]);
  });

  it('rewrites the conditions of a refused queue run only when they change or grow old', async () => {
    await h.queuedRun('run-q');
    await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });
    const first = (await h.status('run-q')).conditions[0].checked_at;

    await h.time.advance(1 * SECOND);
    await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });
    expect((await h.status('run-q')).conditions[0].checked_at).toBe(first);

    await h.heartbeat('worker-a', { zone: 'a' });
    await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });
    expect((await h.status('run-q')).conditions[0].reason).toBe('NoMatchingWorker');

    await h.time.advance(5 * SECOND);
    await h.heartbeat('worker-a', { zone: 'a' });
    await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });
    expect((await h.status('run-q')).conditions[0].checked_at).toBe('2026-11-30T01:15:36Z');
  });

  it('hands a queued run to a matching worker, clearing its conditions', async () => {
    await h.queuedRun('run-q');
    await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });
    await h.heartbeat('worker-b', { zone: 'b' });

    const result = await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true });

    expect(result.outcome).toBe('dispatched');
    expect((await h.status('run-q')).conditions).toEqual([]);
    const task = await h.tasks.findByRun('run-q');
    expect(task).toMatchObject({ attempt: 1, hold_until_ms: null });
    expect((await h.dispatch('run-q', { zone: 'b' }, { fromQueue: true })).outcome).toBe('dispatched');
    expect(h.tasks.enqueueCalls).toBe(1);
  });

  it('refuses to hand over a queue run that is no longer queued', async () => {
    await h.queuedRun('run-q');
    await h.runs.writeStatus({ ...(await h.status('run-q')), status: 'aborted' });

    await expect(h.dispatch('run-q', {}, { fromQueue: true })).rejects.toMatchObject({
      reason: 'not_queued',
    });
  });

  it('fails the run it recorded when the task cannot be stored', async () => {
    h.tasks.failEnqueue = 1;

    const err = await h.dispatch('run-1', { zone: 'b' }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(DispatchFailedError);
    const s = await h.status('run-1');
    expect(s.status).toBe('failed');
    expect(s.error).toBe('failed to hand off the run to a worker: ENOSPC: no space left on device');
    expect(s.conditions).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
  });

  it('leaves a note that the run failed, and says so naming it, when its failure cannot be stored either', async () => {
    h.tasks.failEnqueue = 1;
    const noSpace = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    h.runs.writeStatus = () => Promise.reject(noSpace);

    const err = await h.dispatch('run-1', { zone: 'b' }).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(DispatchFailedError);
    expect((err as Error).message).toBe(
      'failed to hand off the run to a worker: ENOSPC: no space left on device; run run-1 could not be marked ' +
        'failed either (ENOSPC: no space left on device, write); the active scheduler marks it failed',
    );
    // Still queued and marked active, with the note by which the dead-run check fails it.
    expect((await h.status('run-1')).status).toBe('queued');
    expect(await h.activeIds()).toEqual(['run-1']);
    expect(await h.runs.readUnwrittenFinalStatus('run-1', 1)).toEqual({
      state: 'failed',
      error_code: 'ENOSPC',
    });
    expect(h.logger.find('Failed to record a failed hand-off')[0].fields).toEqual({
      run_id: 'run-1',
      error: 'ENOSPC: no space left on device, write',
      noted: true,
    });
  });

  it('says the run stays queued and is queued again when not even the note can be left', async () => {
    h.tasks.failEnqueue = 1;
    const noSpace = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    h.runs.writeStatus = () => Promise.reject(noSpace);
    h.runs.recordUnwrittenFinalStatus = () => Promise.reject(new Error('EIO: i/o error, open'));

    const err = await h.dispatch('run-1', { zone: 'b' }).catch((e: unknown) => e);

    expect((err as Error).message).toBe(
      'failed to hand off the run to a worker: ENOSPC: no space left on device; run run-1 could not be marked ' +
        'failed either (ENOSPC: no space left on device, write), so it stays queued and the active scheduler ' +
        'queues it again',
    );
    expect((await h.status('run-1')).status).toBe('queued');
  });

  it('retries an ended run as a new attempt and refuses to retry one that has not ended', async () => {
    await h.dispatch('run-1', {});
    const first = await h.status('run-1');
    await expect(
      h.dispatch('run-1', {}, { previous: first, triggerType: 'retry', operation: 'retry' }),
    ).rejects.toMatchObject({
      reason: 'not_terminal',
    });
    await h.dispatcher.cancel('run-1');
    const ended = await h.status('run-1');

    const result = await h.dispatch(
      'run-1',
      {},
      { previous: ended, triggerType: 'retry', operation: 'retry' },
    );

    expect(result.outcome).toBe('held');
    const second = await h.status('run-1');
    expect(second).toMatchObject({ attempt: 2, status: 'queued', trigger_type: 'retry' });
    expect(await h.tasks.findByRun('run-1')).toMatchObject({
      attempt: 2,
      operation: 'retry',
      previous: { attempt: 1 },
    });
  });

  it("records the DAG's labels on the run, and a retry keeps the run's labels whatever the DAG has now", async () => {
    const labelled = { ...etl, labels: ['team=data', 'env=prod'], tags: ['team=data', 'env=prod'] };
    await h.dispatch('run-1', {}, { dag: labelled });
    expect((await h.status('run-1')).labels).toEqual(['team=data', 'env=prod']);
    await h.dispatcher.cancel('run-1');
    const ended = await h.status('run-1');
    await h.dispatch(
      'run-1',
      {},
      { dag: { ...etl, labels: ['other'], tags: ['other'] }, previous: ended, triggerType: 'retry' },
    );
    expect(await h.status('run-1')).toMatchObject({ attempt: 2, labels: ['team=data', 'env=prod'] });
  });

  it('aborts a held run on cancel and drops its task, so a worker registering later claims nothing', async () => {
    await h.dispatch('run-1', { zone: 'b' });

    const outcome = await h.dispatcher.cancel('run-1');

    expect(outcome.kind).toBe('aborted');
    const s = await h.status('run-1');
    expect(s).toMatchObject({ status: 'aborted', error: CANCELLED_BEFORE_WORKER, conditions: [] });
    expect(s.finished_at).toBe('2026-11-30T01:15:30Z');
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    await h.heartbeat('worker-b', { zone: 'b' });
    expect(await h.claim('worker-b', { zone: 'b' })).toBeNull();
    expect((await h.dispatcher.cancel('run-1')).kind).toBe('not_active');
    expect((await h.dispatcher.cancel('nope')).kind).toBe('not_found');
  });

  it('asks the worker to stop a run it took, and tells it in the heartbeat reply', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');

    const outcome = await h.dispatcher.cancel('run-1');

    expect(outcome.kind).toBe('requested');
    expect(await h.cancels.has('run-1')).toBe(true);
    expect(await h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt: 1 }])).toEqual({
      cancel: ['run-1'],
    });
  });

  it('aborts a run cancelled between its claim and the ack, and refuses the ack', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    const task = (await h.claim('worker-b', { zone: 'b' }))!;

    expect((await h.dispatcher.cancel('run-1')).kind).toBe('requested');
    const ack = await h.reports.ack(task.task_id, { worker_id: 'worker-b', token: task.claim!.token });

    expect(ack).toMatchObject({ accepted: false, reason: 'cancelled' });
    expect(await h.status('run-1')).toMatchObject({ status: 'aborted', error: CANCELLED_BEFORE_WORKER });
    expect(await h.cancels.has('run-1')).toBe(false);
  });
});
