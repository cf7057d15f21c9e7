import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitingConditions, type Labels } from '../core/distributed';
import { isoUtc } from '../core/runStatus';
import { testTask } from '../store/dispatchStore.contract';
import { testRunStatus } from '../testing/testRunStatus';
import { BadRequestError } from './errors';
import { enqueueDag } from './queue';
import { listQueue, parseQueueQuery } from './queueListing';
import { T0, testServices, type TestServices } from './testServices';

const HELLO = 'steps:\n  - name: greet\n    command: echo hello\n';
const SECOND = 1000;

let svc: TestServices;
beforeEach(() => {
  svc = testServices((c) => ({
    ...c,
    queues: { enabled: true, config: [{ name: 'batch', max_concurrency: 2 }] },
  }));
  svc.writeDag('hello', HELLO);
  svc.writeDag('nightly', `queue: batch\n${HELLO}`);
});
afterEach(() => svc.cleanup());

/** A run handed to the workers: its record (queued, with why it waits) and its pending dispatch task. */
async function handedToWorkers(
  runId: string,
  selector: Labels,
  opts: { holdForMs?: number; dag?: string; reason?: 'NoMatchingWorker' | null } = {},
) {
  const nowMs = svc.clock.nowMs();
  const dag = opts.dag ?? 'remote';
  await svc.runs.createRun(
    testRunStatus({
      run_id: runId,
      dag_name: dag,
      status: 'queued',
      queued_at: isoUtc(nowMs),
      worker_selector: selector,
      params: ['P=1'],
      conditions:
        opts.reason === null
          ? []
          : waitingConditions(opts.reason ?? 'NoMatchingWorker', selector, isoUtc(nowMs)),
    }),
  );
  await svc.runs.markActive({ run_id: runId, dag_name: dag, queue: dag });
  await svc.tasks.enqueue(
    testTask({
      run_id: runId,
      dag_name: dag,
      enqueued_at_ms: nowMs,
      worker_selector: selector,
      hold_until_ms: opts.holdForMs === undefined ? null : nowMs + opts.holdForMs,
      wait_ms: opts.holdForMs ?? null,
    }),
  );
}

/** The test coordinator stopped cleanly at `atMs`: none is alive from then on. */
async function coordinatorStopped(atMs: number) {
  const [record] = await svc.coordinators.list();
  await svc.coordinators.put({ ...record, last_seen_ms: atMs, stopped_at_ms: atMs });
}

describe('listQueue', () => {
  it('lists queued runs in queue order, then runs waiting for a worker oldest first', async () => {
    const q1 = await enqueueDag(svc, 'nightly', ['A=1']);
    svc.clock.advance(SECOND);
    const q2 = await enqueueDag(svc, 'hello', []);
    svc.clock.advance(SECOND);
    await handedToWorkers('held-1', { zone: 'b' }, { holdForMs: 120 * SECOND });
    svc.clock.advance(SECOND);
    await handedToWorkers('disp-1', {}, { reason: null });
    svc.clock.advance(10 * SECOND);

    const listing = await listQueue(svc);

    expect(listing.items.map((w) => [w.run_id, w.kind, w.queue, w.position])).toEqual([
      [q1.run_id, 'queued', 'batch', 1],
      [q2.run_id, 'queued', 'hello', 1],
      ['held-1', 'held', null, null],
      ['disp-1', 'dispatched', null, null],
    ]);
    expect(listing.total).toBe(4);
    expect(listing.items[0]).toEqual({
      run_id: q1.run_id,
      dag_name: 'nightly',
      kind: 'queued',
      queue: 'batch',
      position: 1,
      status: 'queued',
      trigger_type: 'manual',
      schedule_time: null,
      params: ['A=1'],
      worker_selector: null,
      selector_text: null,
      conditions: [],
      reason: null,
      waiting_since: isoUtc(T0),
      waited_ms: 13 * SECOND,
      hold_until: null,
      hold_remaining_ms: null,
      problem: null,
    });
    expect(listing.items[2]).toMatchObject({
      dag_name: 'remote',
      status: 'queued',
      params: ['P=1'],
      worker_selector: { zone: 'b' },
      selector_text: '{zone: b}',
      reason: 'NoMatchingWorker',
      waiting_since: isoUtc(T0 + 2 * SECOND),
      waited_ms: 11 * SECOND,
      hold_until: isoUtc(T0 + 122 * SECOND),
      hold_remaining_ms: 109 * SECOND,
    });
    expect(listing.items[2].conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Runnable', 'False', 'NoMatchingWorker'],
      ['WorkerReady', 'False', 'NoMatchingWorker'],
    ]);
    expect(listing.items[3]).toMatchObject({ selector_text: '{}', reason: null, hold_until: null });
  });

  it('counts every known queue, configured ones even when empty, with running runs', async () => {
    await enqueueDag(svc, 'hello', []);
    await enqueueDag(svc, 'hello', []);
    await svc.runs.markActive({ run_id: 'running-1', dag_name: 'nightly', queue: 'batch' });
    await handedToWorkers('held-1', { zone: 'b' }, { holdForMs: 60 * SECOND });

    const listing = await listQueue(svc);

    expect(listing.enabled).toBe(true);
    expect(listing.queues).toEqual([
      { name: 'batch', max_concurrency: 2, running: 1, queued: 0 },
      { name: 'hello', max_concurrency: null, running: 0, queued: 2 },
    ]);
  });

  it('shows a run that has both a queue item and a task once, as the task', async () => {
    await handedToWorkers('both', { zone: 'b' }, { holdForMs: 60 * SECOND });
    await svc.queue.enqueue({ queue: 'remote', run_id: 'both', dag_name: 'remote', enqueued_at: isoUtc(T0) });
    const listing = await listQueue(svc);
    expect(listing.items.map((w) => [w.run_id, w.kind])).toEqual([['both', 'held']]);
    expect(listing.queues.find((q) => q.name === 'remote')?.queued ?? 0).toBe(0);
  });

  it('filters by queue, DAG, selector text and reason, exactly, and keeps the facets of everything', async () => {
    const q = await enqueueDag(svc, 'hello', []);
    await handedToWorkers('b1', { zone: 'b' }, { holdForMs: 60 * SECOND });
    await handedToWorkers('g1', { zone: 'b', gpu: 'true' }, { holdForMs: 60 * SECOND, dag: 'gpu' });
    await handedToWorkers('any', {}, { reason: null });

    const ids = async (f: Parameters<typeof listQueue>[1]) =>
      (await listQueue(svc, f)).items.map((w) => w.run_id);
    expect(await ids({ queue: 'hello' })).toEqual([q.run_id]);
    expect(await ids({ dag: 'gpu' })).toEqual(['g1']);
    expect(await ids({ selector: '{zone: b}' })).toEqual(['b1']);
    expect(await ids({ selector: '{gpu: true, zone: b}' })).toEqual(['g1']);
    expect(await ids({ selector: '{}' })).toEqual(['any']);
    expect(await ids({ reason: 'NoMatchingWorker' })).toEqual(['b1', 'g1']);
    expect(await ids({ reason: 'NoMatchingWorker', dag: 'remote' })).toEqual(['b1']);
    expect(await ids({ queue: 'nope' })).toEqual([]);

    const filtered = await listQueue(svc, { dag: 'gpu' });
    expect(filtered.total).toBe(1);
    expect(filtered.facets).toEqual({
      queues: ['hello'],
      dags: ['gpu', 'hello', 'remote'],
      selectors: ['{gpu: true, zone: b}', '{zone: b}', '{}'],
      reasons: ['NoMatchingWorker'],
    });
  });

  it('cuts the list at the limit and says how many there were', async () => {
    for (let i = 0; i < 5; i++) await enqueueDag(svc, 'hello', []);
    const listing = await listQueue(svc, { limit: 2 });
    expect(listing.items.map((w) => w.position)).toEqual([1, 2]);
    expect(listing.total).toBe(5);
  });

  it('shows a queue item whose run record is missing with the problem', async () => {
    await svc.queue.enqueue({ queue: 'hello', run_id: 'ghost', dag_name: 'hello', enqueued_at: isoUtc(T0) });
    const [item] = (await listQueue(svc)).items;
    expect(item).toMatchObject({ run_id: 'ghost', status: null, problem: 'run record not found' });
  });

  it("sees a waiting run's new conditions once its change is in the event log", async () => {
    await handedToWorkers('r1', { zone: 'b' }, { holdForMs: 60 * SECOND, reason: null });
    expect((await listQueue(svc)).items[0].reason).toBeNull();

    const read = await svc.runs.readStatus('r1');
    if (read.kind !== 'ok') throw new Error('no record');
    const conditions = waitingConditions('NoAvailableWorker', { zone: 'b' }, isoUtc(T0));
    await svc.runs.writeStatus({ ...read.status, conditions });
    expect((await listQueue(svc)).items[0].reason).toBeNull(); // no event yet: the cached record stands
    await svc.events.append('dag.run.queued', { run_id: 'r1' });
    expect((await listQueue(svc)).items[0].reason).toBe('NoAvailableWorker');
  });

  it('says a run waiting for a worker has no coordinator to get one from once none is alive', async () => {
    await handedToWorkers('held-1', { zone: 'b' }, { holdForMs: 120 * SECOND });
    await enqueueDag(svc, 'hello', []);
    svc.clock.advance(SECOND);
    await coordinatorStopped(svc.clock.nowMs());
    svc.clock.advance(SECOND);

    const listing = await listQueue(svc);

    const held = listing.items.find((w) => w.run_id === 'held-1')!;
    expect(held.reason).toBe('NoAvailableCoordinator');
    expect(
      held.conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message} (${c.checked_at})`),
    ).toEqual([
      `Runnable=False NoAvailableCoordinator: no coordinators available (${isoUtc(T0 + SECOND)})`,
      `WorkerReady=False NoAvailableCoordinator: no coordinators available (${isoUtc(T0 + SECOND)})`,
    ]);
    // A local queue's run does not wait for a worker: no coordinator is no reason for it.
    expect(listing.items.find((w) => w.dag_name === 'hello')!.reason).toBeNull();
    expect(listing.facets.reasons).toEqual(['NoAvailableCoordinator']);
    expect((await listQueue(svc, { reason: 'NoAvailableCoordinator' })).total).toBe(1);
  });

  it('lets a run leave the list as soon as its item or task is gone', async () => {
    const q = await enqueueDag(svc, 'hello', []);
    await handedToWorkers('h', { zone: 'b' }, { holdForMs: 60 * SECOND });
    expect((await listQueue(svc)).total).toBe(2);
    await svc.queue.dequeue('hello', q.run_id);
    const task = await svc.tasks.findByRun('h');
    await svc.tasks.delete(task!.task_id);
    expect((await listQueue(svc)).items).toEqual([]);
  });
});

describe('parseQueueQuery', () => {
  const parse = (q: string) => parseQueueQuery(new URLSearchParams(q));

  it('reads the filters and the limit, ignoring empty ones', () => {
    expect(parse('queue=batch&dag=etl&selector=%7Bzone%3A%20b%7D&reason=NoMatchingWorker&limit=20')).toEqual({
      queue: 'batch',
      dag: 'etl',
      selector: '{zone: b}',
      reason: 'NoMatchingWorker',
      limit: 20,
    });
    expect(parse('queue=&dag=')).toEqual({});
  });

  it('refuses unknown parameters, a bad limit and a repeated filter, naming them', () => {
    expect(() => parse('zone=b')).toThrow(BadRequestError);
    expect(() => parse('zone=b')).toThrow('query: Unrecognized key: "zone"');
    expect(() => parse('limit=0')).toThrow(/limit/);
    expect(() => parse('limit=abc')).toThrow('limit: must be a whole number');
    expect(() => parse('limit=5001')).toThrow(/limit/);
    expect(() => parse('dag=a&dag=b')).toThrow('dag: given more than once');
  });
});
