import { renamedDag } from '../core/dag/dagName';
import { describe, expect, it } from 'vitest';
import type { QueueConfig } from '../config/types';
import type { DispatchParams, DispatchResult, DispatcherApi } from '../core/dispatcherApi';
import { refusalError, waitingConditions, type WaitReason } from '../core/distributed';
import type { Clock } from '../core/ports';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { DagSpec, RunStatus, TriggerType } from '../core/types';
import { SECOND } from '../core/units';
import { slotRunId } from '../core/slotRunId';
import { Dispatcher } from '../coordinator/dispatcher';
import type { DispatchTask } from '../store/dispatchTypes';
import { MemoryCancelRequests } from '../store/memoryCancelRequests';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { MemorySuspendFlags } from '../store/memorySuspendFlags';
import type { RunStore } from '../store/types';
import { QueueProcessor, REFUSED_RETRY_MS } from './queueProcessor';
import { FakeLauncher } from './testing/fakeLauncher';
import { FakeTime } from '../testing/fakeTime';
import { FaultyRunStore } from './testing/faultyRunStore';
import { dagFromYaml } from '../testing/dagFromYaml';
import { RecordingLogger } from '../testing/recordingLogger';

const START = Date.parse('2026-11-30T01:15:30Z');

/**
 * A dispatcher that refuses while `refuse` names a reason (writing the waiting conditions on the run, as the
 * real one does for the queue) and otherwise gives the run a task; `fail` makes it throw.
 */
class FakeDispatcher implements DispatcherApi {
  readonly calls: DispatchParams[] = [];
  readonly tasks = new Map<string, DispatchTask>();
  refuse: WaitReason | null = null;
  fail: string | null = null;

  constructor(
    private readonly runs: RunStore,
    private readonly clock: Clock,
  ) {}

  async dispatch(p: DispatchParams): Promise<DispatchResult> {
    this.calls.push(p);
    if (this.fail) throw new Error(this.fail);
    const r = await this.runs.readStatus(p.runId);
    if (r.kind !== 'ok') throw new Error(`run ${p.runId} is ${r.kind}`);
    if (this.refuse) {
      const status = {
        ...r.status,
        conditions: waitingConditions(this.refuse, p.selector, isoUtc(this.clock.nowMs())),
      };
      await this.runs.writeStatus(status);
      return {
        outcome: 'refused',
        reason: this.refuse,
        error: refusalError(this.refuse, p.selector),
        status,
      };
    }
    this.tasks.set(p.runId, {
      version: 1,
      task_id: `${this.clock.nowMs()}-${p.runId}-1`,
      run_id: p.runId,
      dag_name: p.dag.name,
      attempt: r.status.attempt,
      operation: p.operation,
      trigger_type: p.triggerType,
      worker_selector: p.selector,
      dag: p.dag,
      params: p.params,
      schedule_time: p.scheduleTime,
      previous: null,
      parent: null,
      enqueued_at_ms: this.clock.nowMs(),
      hold_until_ms: null,
      wait_ms: null,
      claim: null,
    });
    return { outcome: 'dispatched', status: r.status };
  }

  async cancel(): Promise<never> {
    throw new Error('not used by the queue');
  }

  async findByRun(runId: string): Promise<DispatchTask | null> {
    return this.tasks.get(runId) ?? null;
  }

  runIds(): string[] {
    return this.calls.map((c) => c.runId);
  }
}

function harness(o: {
  dags: DagSpec[];
  queues?: QueueConfig[];
  executionMode?: 'local' | 'distributed';
  /** Without a dispatcher, runs of distributed DAGs stay queued. */
  noDispatcher?: boolean;
  /** The coordinator's Dispatcher over in-memory stores instead of the fake. */
  realDispatcher?: boolean;
  /** Runs' changes are announced to the processor (runsChanged). */
  runWakeups?: boolean;
  /** This host's run ends and queue items are announced (files with change notifications). */
  slotWakeups?: () => boolean;
  /** The processor's clock, when not the fake time's own (its timers stay the fake time's). */
  clock?: Clock;
}) {
  const time = new FakeTime(START);
  const runs = new FaultyRunStore();
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const launcher = new FakeLauncher(runs, time, time);
  const dispatcher = new FakeDispatcher(runs, time);
  const workers = new MemoryWorkerRegistry();
  const tasks = new MemoryDispatchStore();
  const real = new Dispatcher({
    runs,
    tasks,
    workers,
    cancels: new MemoryCancelRequests(),
    clock: time,
    logger,
    waitMs: 120 * SECOND,
    staleMs: 10 * SECOND,
  });
  let seq = 0;
  const h = {
    /** The catalog's DAGs: a DAG pushed here is in it from the next pass. */
    dags: o.dags,
    time,
    runs,
    queue,
    logger,
    launcher,
    dispatcher,
    workers,
    tasks,
    canDispatch: () => true,
    suspended: new MemorySuspendFlags(),
    processor: null as unknown as QueueProcessor,
    /** Creates a queued run of `dag` with its active marker and queue item, as `dagu enqueue` does. */
    async enqueue(dag: DagSpec, triggerType: TriggerType = 'queue', id?: string): Promise<string> {
      // A run the scheduler made has its slot's run ID, as in the product (a catch-up always does).
      const slotMade = triggerType === 'scheduler' || triggerType === 'catchup';
      const n = ++seq;
      const runId =
        id ??
        (slotMade ? slotRunId('/data', dag.name, START + n * 60_000) : `run-${String(n).padStart(3, '0')}`);
      const status = newRunStatus({
        dag,
        runId,
        status: 'queued',
        triggerType,
        scheduleTime: null,
        params: [],
        nowIso: isoUtc(time.nowMs()),
      });
      await runs.createRun(status);
      await runs.markActive({ run_id: runId, dag_name: dag.name, queue: dag.queue });
      await queue.enqueue({
        queue: dag.queue,
        run_id: runId,
        dag_name: dag.name,
        enqueued_at: status.created_at,
      });
      return runId;
    },
    /** Counts the queue passes from now on (each lists the queues once). */
    countPasses(): { n: number } {
      const counter = { n: 0 };
      const queues = queue.queues.bind(queue);
      queue.queues = () => {
        counter.n++;
        return queues();
      };
      return counter;
    },
    /** Counts the status reads of `runId` from now on (`n`, which a test may set back to 0). */
    countReads(runId: string): { n: number } {
      const counter = { n: 0 };
      const read = runs.readStatus.bind(runs);
      runs.readStatus = (id) => {
        if (id === runId) counter.n++;
        return read(id);
      };
      return counter;
    },
    async status(runId: string): Promise<RunStatus> {
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
      return r.status;
    },
    async queued(queueName: string): Promise<string[]> {
      return (await queue.list(queueName)).map((i) => i.run_id);
    },
    async running(): Promise<number> {
      let n = 0;
      for (const a of await runs.listActive()) if ((await h.status(a.run_id)).status === 'running') n++;
      return n;
    },
  };
  h.processor = new QueueProcessor({
    clock: o.clock ?? time,
    timers: time,
    logger,
    runs,
    queue,
    catalog: { load: async () => o.dags },
    suspended: h.suspended,
    queues: o.queues ?? [],
    launch: launcher.launch,
    canDispatch: () => h.canDispatch(),
    executionMode: o.executionMode,
    dispatcher: o.noDispatcher ? undefined : o.realDispatcher ? real : dispatcher,
    tasks: o.realDispatcher ? tasks : dispatcher,
    runWakeups: o.runWakeups,
    slotWakeups: o.slotWakeups,
  });
  return h;
}

describe('QueueProcessor', () => {
  it('starts the runs of a queue in the order they were queued', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 20, runForMs: SECOND, outcome: 'succeeded' };
    const ids = [await h.enqueue(etl), await h.enqueue(etl), await h.enqueue(etl)];
    h.processor.start();
    await h.time.advance(10 * SECOND);
    expect(h.launcher.runIds()).toEqual(ids);
    for (const id of ids) expect((await h.status(id)).status).toBe('succeeded');
    expect(await h.queue.queues()).toEqual([]);
  });

  it('starts a run queued under another name (enqueue -N) from its DAG file, passing the name', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 20, runForMs: SECOND, outcome: 'succeeded' };
    const renamed = renamedDag(etl, 'nightly');
    const runId = await h.enqueue(renamed);
    await h.runs.writeStatus({ ...(await h.status(runId)), dag_file: etl.file });
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.launches).toMatchObject([
      { runId, dagName: 'nightly', dagFile: '/dags/etl.yaml', renamed: true },
    ]);
    expect((await h.status(runId)).status).toBe('succeeded');
  });

  it('takes a queue’s concurrency from queues.config first', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 5');
    const h = harness({ dags: [etl], queues: [{ name: 'etl', max_concurrency: 2 }] });
    for (let i = 0; i < 5; i++) await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.launches).toHaveLength(2);
    expect(await h.running()).toBe(2);
    expect(await h.queued('etl')).toHaveLength(3);
  });

  it('takes the concurrency of a DAG’s own queue from its max_active_runs', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 3');
    const h = harness({ dags: [etl] });
    for (let i = 0; i < 5; i++) await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.launches).toHaveLength(3);
    expect(await h.running()).toBe(3);
  });

  it('runs one at a time in a queue that is neither configured nor a DAG’s own', async () => {
    const etl = dagFromYaml('etl', 'queue: shared\nmax_active_runs: 3');
    const h = harness({ dags: [etl] });
    for (let i = 0; i < 3; i++) await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.launches).toHaveLength(1);
    expect(await h.queued('shared')).toHaveLength(2);
  });

  it('removes an item only after its run has left queued', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 5 * SECOND, runForMs: null, outcome: 'succeeded' };
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(4 * SECOND);
    expect(h.launcher.runIds()).toEqual([id]);
    expect(await h.queued('etl')).toEqual([id]);

    await h.time.advance(2 * SECOND);
    expect((await h.status(id)).status).toBe('running');
    expect(await h.queued('etl')).toEqual([]);
    expect(h.launcher.launches).toHaveLength(1);
  });

  it('counts a run whose item outlived its start against the queue’s concurrency', async () => {
    // A run started while its item stayed (a scheduler stopped between the two, or a pass that listed the
    // queue just before the start's watch removed the item): it runs, so the next run must wait for it.
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 20, runForMs: SECOND, outcome: 'succeeded' };
    const first = await h.enqueue(etl);
    const second = await h.enqueue(etl);
    expect(await h.launcher.start(first)).toBe(true);
    h.processor.start();
    await h.time.advance(500);
    expect(h.launcher.runIds()).toEqual([]);
    expect(await h.queued('etl')).toEqual([second]);
    await h.launcher.finish(first);
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([second]);
  });

  it('never starts a second run when a start’s watch removes the item while a pass is under way', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 120, runForMs: 3 * SECOND, outcome: 'succeeded' };
    const ids = [await h.enqueue(etl), await h.enqueue(etl), await h.enqueue(etl)];
    // Each listing of the queue reaches the pass 80 ms after it was read: the watch of the launched run's
    // start removes its item in between.
    const listAll = h.queue.listAll.bind(h.queue);
    h.queue.listAll = async () => {
      const r = await listAll();
      await new Promise<void>((res) => h.time.setTimeout(res, 80));
      return r;
    };
    let most = 0;
    const runningNow = async () => (most = Math.max(most, await h.running()));
    h.processor.start();
    for (let t = 0; t < 12 * SECOND; t += 10) {
      await h.time.advance(10);
      await runningNow();
    }
    expect(most).toBe(1);
    expect(h.launcher.runIds()).toEqual(ids);
  });

  /**
   * A run of etl launched (by a launcher that starts nothing by itself), its start watched, its reads
   * counted; its changes are announced to the processor unless `runWakeups` is false.
   */
  async function watchedLaunch(runWakeups = true) {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], runWakeups });
    h.launcher.script = null;
    const id = await h.enqueue(etl);
    const reads = h.countReads(id);
    h.processor.start();
    await h.time.advance(10);
    expect(h.launcher.runIds()).toEqual([id]);
    return { h, id, reads };
  }

  it('offers a run again at once when the lane it was promised to does not take it', async () => {
    const { h, id } = await watchedLaunch(false);
    // Nothing started yet: the launch stays the run's until its start timeout.
    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([id]);
    h.launcher.launches[0].queue!.notStarted!();
    await h.time.advance(200);
    expect(h.launcher.runIds()).toEqual([id, id]);
    expect(await h.queued('etl')).toEqual([id]);
  });

  it('reads a launched run as its changes are announced, polling only as a fallback, where they are', async () => {
    const { h, id, reads } = await watchedLaunch();
    reads.n = 0;
    // Nothing announced: the start is polled for once a second, not twenty times.
    await h.time.advance(5 * SECOND);
    expect(reads.n).toBeGreaterThanOrEqual(5);
    expect(reads.n).toBeLessThanOrEqual(7);
    // Another run's change: nothing read before the next poll (the polls fall 50 ms past each second here).
    await h.time.advance(60);
    reads.n = 0;
    h.processor.runsChanged('some-other-run');
    await h.time.advance(100);
    expect(reads.n).toBe(0);
    // The run starts and its change is announced: its item goes at once, not at the next poll.
    expect(await h.launcher.start(id)).toBe(true);
    reads.n = 0;
    h.processor.runsChanged(id);
    await h.time.advance(60);
    expect(reads.n).toBe(1);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('takes a start from the hint that names the launched attempt, without reading the run', async () => {
    const { h, id, reads } = await watchedLaunch();
    // A hint of another attempt (an earlier one's late end) is no start of this one: the run is read.
    reads.n = 0;
    h.processor.runsChanged(id, { attempt: 7, state: 'failed' });
    await h.time.advance(60);
    expect(reads.n).toBe(1);
    expect(await h.queued('etl')).toEqual([id]);
    // Nor is a hint that it is still queued.
    h.processor.runsChanged(id, { attempt: 1, state: 'queued' });
    await h.time.advance(60);
    expect(reads.n).toBe(2);
    expect(await h.queued('etl')).toEqual([id]);
    // The launched attempt entered `running`: its item goes with no read at all.
    expect(await h.launcher.start(id)).toBe(true);
    reads.n = 0;
    h.processor.runsChanged(id, { attempt: 1, state: 'running' });
    await h.time.advance(60);
    expect(reads.n).toBe(0);
    expect(await h.queued('etl')).toEqual([]);
  });

  it("starts the next queued run as soon as a running run's end is announced, not at the next poll", async () => {
    const etl = dagFromYaml('etl');
    const other = dagFromYaml('other');
    const h = harness({ dags: [etl, other], runWakeups: true });
    h.launcher.script = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };
    const first = await h.enqueue(etl);
    const second = await h.enqueue(etl);
    const elsewhere = await h.enqueue(other);
    h.processor.start();
    // The passes fall on whole tenths of a second here (a busy queue is polled every 100 ms).
    await h.time.advance(1010);
    expect(h.launcher.runIds()).toEqual([first, elsewhere]);
    const passes = h.countPasses();
    // The end of a run in a queue where nothing waits: no pass before the poll.
    await h.launcher.finish(elsewhere);
    h.processor.runsChanged(elsewhere);
    await h.time.advance(5);
    expect(passes.n).toBe(0);
    // The end of the run holding etl's one slot: the next one starts now.
    await h.launcher.finish(first);
    h.processor.runsChanged(first);
    await h.time.advance(5);
    expect(passes.n).toBe(1);
    expect(h.launcher.runIds()).toEqual([first, elsewhere, second]);
  });

  it('polls a queue whose slots are all taken once a second where run ends are announced, else at every busy poll', async () => {
    // A database announces every change (runsChanged); files announce this host's changes while their watch
    // is live (slotChanged); without either, a waiting queue is polled.
    const modes = [
      { runWakeups: true, slotWakeups: undefined, announced: 'db' },
      { runWakeups: false, slotWakeups: () => true, announced: 'host' },
      { runWakeups: false, slotWakeups: () => false, announced: null },
      { runWakeups: false, slotWakeups: undefined, announced: null },
    ];
    for (const mode of modes) {
      const { h, first, second } = await oneRunningOneWaiting(mode.runWakeups, mode.slotWakeups);
      const passes = h.countPasses();
      await h.time.advance(3000);
      // Nothing can start before a slot frees: where its end is announced, that wakes a pass.
      expect(passes.n).toBe(mode.announced ? 3 : 30);
      await h.launcher.finish(first);
      if (mode.announced === 'db') h.processor.runsChanged(first);
      if (mode.announced === 'host') h.processor.slotChanged({ kind: 'run', runId: first });
      await h.time.advance(mode.announced ? 5 : 100);
      expect(h.launcher.runIds()).toEqual([first, second]);
    }
  });

  it('starts a queue item this host saw stored at once while a full queue rests', async () => {
    const { h, first } = await oneRunningOneWaiting(false, () => true);
    const load = dagFromYaml('load');
    h.dags.push(load);
    await h.time.advance(200);
    const other = await h.enqueue(load);
    await h.time.advance(10);
    expect(h.launcher.runIds()).toEqual([first]);
    h.processor.slotChanged({ kind: 'queue' });
    await h.time.advance(5);
    expect(h.launcher.runIds()).toEqual([first, other]);
  });

  it('never passes more often than the busy poll for the changes this host sees', async () => {
    const { h, first } = await oneRunningOneWaiting(false, () => true);
    const passes = h.countPasses();
    // Items stored and runs of other queues coming and going, every 5 ms for 2 s, while etl's slot is taken.
    for (let i = 0; i < 400; i++) {
      h.processor.slotChanged(i % 2 === 0 ? { kind: 'queue' } : { kind: 'run', runId: `other-${i}` });
      await h.time.advance(5);
    }
    // Resting, one pass a second would come; at the busy poll's pace (100 ms on the fake clock), 2000 / 100
    // and the one at the start.
    expect(passes.n).toBeGreaterThan(2);
    expect(passes.n).toBeLessThanOrEqual(21);
    // The end of etl's run, seen during a pass that then finds nothing to start, still starts the next one.
    await h.launcher.finish(first);
    h.processor.slotChanged({ kind: 'run', runId: first });
    await h.time.advance(100);
    expect(h.launcher.runIds()).toHaveLength(2);
  });

  it('passes once a second while no run waits, however many runs started by hand come and go', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], slotWakeups: () => true });
    h.processor.start();
    await h.time.advance(1010);
    const passes = h.countPasses();
    for (let i = 0; i < 300; i++) {
      h.processor.slotChanged({ kind: 'run', runId: `by-hand-${i}` });
      await h.time.advance(10);
    }
    expect(passes.n).toBeLessThanOrEqual(3);
    // An item stored is another matter: it may start now.
    const queued = await h.enqueue(etl);
    h.processor.slotChanged({ kind: 'queue' });
    await h.time.advance(150);
    expect(h.launcher.runIds()).toEqual([queued]);
  });

  it('ignores the end of a run of a queue nobody waits for, while resting', async () => {
    const { h, first } = await oneRunningOneWaiting(false, () => true);
    const load = dagFromYaml('load');
    h.dags.push(load);
    const alone = await h.enqueue(load);
    h.processor.slotChanged({ kind: 'queue' });
    await h.time.advance(1000);
    expect(h.launcher.runIds()).toContain(alone);
    // Right after a resting pass, the next one is a second away.
    const passes = h.countPasses();
    while (passes.n === 0) await h.time.advance(10);
    // load's run holds its slot and no run of load waits: its end frees nothing anyone waits for.
    await h.launcher.finish(alone);
    h.processor.slotChanged({ kind: 'run', runId: alone });
    await h.time.advance(500);
    expect(passes.n).toBe(1);
    // etl's run, whose queue has a run waiting, is another matter.
    h.processor.slotChanged({ kind: 'run', runId: first });
    await h.time.advance(5);
    expect(passes.n).toBe(2);
  });

  it('says once, not at every pass, that a queued run waits for a DAG that is gone or a status it cannot read, and starts the runs behind it', async () => {
    const etl = dagFromYaml('etl');
    const gone = dagFromYaml('gone');
    const h = harness({ dags: [etl], queues: [{ name: 'shared', max_concurrency: 2 }] });
    h.launcher.script = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };
    const shared = (d: DagSpec) => ({ ...d, queue: 'shared' });
    const orphan = await h.enqueue(shared(gone));
    const unreadable = await h.enqueue(shared(etl));
    const next = await h.enqueue(shared(etl));
    h.runs.corrupt.add(unreadable);
    h.processor.start();
    await h.time.advance(10 * SECOND);

    expect(h.launcher.runIds()).toEqual([next]);
    expect(h.logger.find('Queued run of a DAG that no longer exists or is invalid')).toHaveLength(1);
    expect(h.logger.find('Queued run has an unreadable status file')).toHaveLength(1);
    expect(await h.queued('shared')).toEqual([orphan, unreadable]);
  });

  it('reads a queued run whose DAG is gone once, not at every pass, and starts it once the DAG is back', async () => {
    const etl = dagFromYaml('etl');
    const gone = dagFromYaml('gone');
    const dags = [etl];
    const h = harness({ dags, queues: [{ name: 'shared', max_concurrency: 4 }] });
    h.launcher.script = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };
    const shared = (d: DagSpec) => ({ ...d, queue: 'shared' });
    const orphan = await h.enqueue(shared(gone));
    const reads = h.countReads(orphan);
    const next = await h.enqueue(shared(etl));
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([next]);
    expect(reads.n).toBe(1);

    dags.push(shared(gone));
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([next, orphan]);
    expect(reads.n).toBeGreaterThan(1);
  });

  /**
   * Two runs queued in etl (one slot), run changes announced (unless `runWakeups` is false): the first is
   * running, the second waits.
   */
  async function oneRunningOneWaiting(runWakeups = true, slotWakeups?: () => boolean) {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], runWakeups, slotWakeups });
    h.launcher.script = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };
    const first = await h.enqueue(etl);
    const second = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(1010);
    expect(h.launcher.runIds()).toEqual([first]);
    return { h, first, second };
  }

  it('makes no pass when a run of a waiting queue says it is running: that frees no slot', async () => {
    const { h, first, second } = await oneRunningOneWaiting();
    const passes = h.countPasses();
    h.processor.runsChanged(first, { attempt: 1, state: 'running' });
    await h.time.advance(5);
    expect(passes.n).toBe(0);
    await h.launcher.finish(first);
    h.processor.runsChanged(first, { attempt: 1, state: 'succeeded' });
    await h.time.advance(5);
    expect(passes.n).toBe(1);
    expect(h.launcher.runIds()).toEqual([first, second]);
  });

  it('polls a backlog whose passes are slow less often, in proportion to their cost', async () => {
    // Each listing of the queues takes 60 ms of the processor's clock, as a pass over thousands of runs does.
    let spent = 0;
    const slowClock: Clock = { nowMs: () => h.time.nowMs() + spent, monoMs: () => h.time.monoMs() + spent };
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], clock: slowClock });
    h.launcher.script = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };
    for (let i = 0; i < 3; i++) await h.enqueue(etl);
    let passes = 0;
    const listAll = h.queue.listAll.bind(h.queue);
    h.queue.listAll = async () => {
      passes++;
      spent += 60;
      return listAll();
    };
    h.processor.start();
    await h.time.advance(3 * SECOND);
    // Five times the pass's 60 ms apart, not every 100 ms: about 10 passes in 3 s rather than 30.
    expect(passes).toBeGreaterThanOrEqual(8);
    expect(passes).toBeLessThanOrEqual(12);
  });

  it('looks at the queues at once when a wake-up names no run while runs wait (hints may have been lost)', async () => {
    const { h, first, second } = await oneRunningOneWaiting();
    await h.launcher.finish(first);
    h.processor.runsChanged(null);
    await h.time.advance(5);
    expect(h.launcher.runIds()).toEqual([first, second]);
  });

  // The waiting head of a full queue is read only to see whether it is a catch-up overlap_policy skip drops:
  // never when its run ID is not a slot run's (a catch-up always is), once (not at every pass) when it is.
  it.each([
    { what: 'not a slot run', trigger: 'queue' as const, slot: false, readsWhileFull: 0 },
    { what: 'a slot run that is no catch-up', trigger: 'scheduler' as const, slot: true, readsWhileFull: 1 },
  ])('reads the waiting head of a full queue $readsWhileFull times when it is $what', async (c) => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    await h.enqueue(etl);
    const second = await h.enqueue(etl, c.trigger, c.slot ? slotRunId('/data', 'etl', START) : undefined);
    const reads = h.countReads(second);
    h.processor.start();
    await h.time.advance(4 * SECOND);
    expect(h.launcher.launches).toHaveLength(1);
    expect(reads.n).toBe(c.readsWhileFull);
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toContain(second);
    expect(reads.n).toBeGreaterThan(c.readsWhileFull); // read when a slot is free, before its start
  });

  it('counts a start announced while its process was still being launched', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], runWakeups: true });
    h.launcher.script = null;
    h.launcher.prepareMs = 20;
    h.launcher.onLaunch = (req) => {
      void h.launcher.start(req.runId).then(() => h.processor.runsChanged(req.runId));
    };
    await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(100);
    expect(h.launcher.launches).toHaveLength(1);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('reads every watched start when a wake-up names no run (hints may have been lost)', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 2');
    const h = harness({ dags: [etl], runWakeups: true });
    h.launcher.script = null;
    const a = await h.enqueue(etl);
    const b = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([a, b]);
    expect(await h.launcher.start(a)).toBe(true);
    expect(await h.launcher.start(b)).toBe(true);
    h.processor.runsChanged(null);
    await h.time.advance(60);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('polls a launched run every 50 ms where changes are not announced', async () => {
    const { h, id } = await watchedLaunch(false);
    await h.time.advance(SECOND);
    expect(await h.launcher.start(id)).toBe(true);
    // runsChanged is never called here: the poll finds the start.
    await h.time.advance(60);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('leaves a run that never starts queued and offers it again after the start timeout', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = null;
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(29 * SECOND);
    expect(h.launcher.runIds()).toEqual([id]);

    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([id, id]);
    expect((await h.status(id)).status).toBe('queued');
    expect(await h.queued('etl')).toEqual([id]);
    expect(h.logger.find('did not start in time')).toHaveLength(1);
  });

  it('offers a run again at once, not after the start timeout, when told its process cannot start it', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = null;
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([id]);

    h.processor.offerAgain(id);
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([id, id]);
    // Each launch has its own start timeout: the first one's watch ended when the run was offered again.
    await h.time.advance(26 * SECOND);
    expect(h.launcher.runIds()).toEqual([id, id]);
    expect(h.logger.find('did not start in time')).toHaveLength(0);
    await h.time.advance(3 * SECOND);
    expect(h.launcher.runIds()).toEqual([id, id, id]);
  });

  it('runs a run offered twice only once: the second process loses the claim', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 31 * SECOND, runForMs: null, outcome: 'succeeded' };
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(70 * SECOND);
    expect(h.launcher.runIds()).toEqual([id, id]);
    expect((await h.status(id)).status).toBe('running');
    expect(await h.queued('etl')).toEqual([]);
  });

  it('removes the item of a run that does not exist', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    await h.queue.enqueue({ queue: 'etl', run_id: 'ghost', dag_name: 'etl', enqueued_at: isoUtc(START) });
    h.processor.start();
    await h.time.advance(0);
    expect(await h.queue.queues()).toEqual([]);
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.logger.find('does not exist')).toHaveLength(1);
  });

  it('removes the item of a run that left queued some other way (cancelled)', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    const id = await h.enqueue(etl);
    await h.runs.writeStatus({ ...(await h.status(id)), status: 'aborted' });
    h.processor.start();
    await h.time.advance(0);
    expect(await h.queued('etl')).toEqual([]);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('leaves the item of a run whose status is corrupt, and starts the ones behind it', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 2');
    const h = harness({ dags: [etl] });
    const broken = await h.enqueue(etl);
    const next = await h.enqueue(etl);
    h.runs.corrupt.add(broken);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(await h.queued('etl')).toEqual([broken]);
    expect(h.launcher.runIds()).toEqual([next]);
    expect(h.logger.find('unreadable status file')[0]?.fields.run_id).toBe(broken);
  });

  it('aborts a catch-up run with a reason when its DAG is running and overlap_policy is skip', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 2\noverlap_policy: skip');
    const h = harness({ dags: [etl] });
    const live = await h.enqueue(etl, 'scheduler');
    await h.queue.dequeue('etl', live);
    await h.launcher.start(live);
    const catchup = await h.enqueue(etl, 'catchup');
    h.processor.start();
    await h.time.advance(0);
    const s = await h.status(catchup);
    expect(s.status).toBe('aborted');
    expect(s.error).toBe('skipped: the DAG was still running (overlap_policy: skip)');
    expect(await h.queued('etl')).toEqual([]);
    expect((await h.runs.listActive()).map((a) => a.run_id)).toEqual([live]);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('drops a skip-policy catch-up even when the running run fills the queue (max_active_runs 1)', async () => {
    const etl = dagFromYaml('etl', 'overlap_policy: skip');
    const h = harness({ dags: [etl] });
    const live = await h.enqueue(etl, 'scheduler');
    await h.queue.dequeue('etl', live);
    await h.launcher.start(live);
    const catchup = await h.enqueue(etl, 'catchup');
    h.processor.start();
    await h.time.advance(0);
    expect((await h.status(catchup)).status).toBe('aborted');
    expect(await h.queued('etl')).toEqual([]);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('runs the replays of one outage one after another under overlap_policy skip, however slow they are', async () => {
    const etl = dagFromYaml('etl', 'overlap_policy: skip');
    const h = harness({ dags: [etl] });
    const first = await h.enqueue(etl, 'catchup');
    const second = await h.enqueue(etl, 'catchup');
    h.processor.start();
    await h.time.advance(SECOND);
    expect(h.launcher.runIds()).toEqual([first]);
    // The first replay is still running on the next passes: the second waits rather than being skipped.
    await h.time.advance(5 * SECOND);
    expect((await h.status(second)).status).toBe('queued');
    await h.launcher.finish(first, 'succeeded');
    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([first, second]);
  });

  it('starts a catch-up run beside a running one under overlap_policy all', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 2\noverlap_policy: all');
    const h = harness({ dags: [etl] });
    const live = await h.enqueue(etl, 'scheduler');
    await h.queue.dequeue('etl', live);
    await h.launcher.start(live);
    const catchup = await h.enqueue(etl, 'catchup');
    h.processor.start();
    await h.time.advance(SECOND);
    expect(h.launcher.runIds()).toEqual([catchup]);
    expect((await h.status(catchup)).status).toBe('running');
  });

  it('starts nothing while fenced, and resumes when allowed again', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    h.canDispatch = () => false;
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(10 * SECOND);
    expect(h.launcher.launches).toHaveLength(0);
    expect(await h.queued('etl')).toEqual([id]);

    h.canDispatch = () => true;
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([id]);
  });

  it('checks the fence right before each launch, not only at the start of a pass', async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 3');
    const h = harness({ dags: [etl] });
    for (let i = 0; i < 3; i++) await h.enqueue(etl);
    let checks = 0;
    // Fenced after the pass began and the first launch (checked before it and again as the process starts).
    h.canDispatch = () => checks++ < 3;
    h.processor.start();
    await h.time.advance(0);
    expect(h.launcher.launches).toHaveLength(1);
  });
});

describe('QueueProcessor: launches that fail or are fenced', () => {
  it('keeps a queued run whose process could not be started, starts the next queue’s run, and retries it', async () => {
    const etl = dagFromYaml('etl');
    const report = dagFromYaml('report');
    const h = harness({ dags: [etl, report] });
    const broken = await h.enqueue(etl);
    const fine = await h.enqueue(report);
    h.launcher.failing.add(broken);
    h.processor.start();
    await h.time.advance(2 * SECOND);
    expect(h.launcher.runIds()).toEqual([fine]);
    expect(await h.queued('etl')).toEqual([broken]);
    expect(h.logger.find('Could not start the run process of a queued run')).not.toHaveLength(0);

    h.launcher.failing.delete(broken);
    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([fine, broken]);
    expect((await h.status(broken)).status).toBe('running');
  });

  it('starts nothing and keeps the item when the fence closes while the launch is prepared', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    const id = await h.enqueue(etl);
    let calls = 0;
    h.canDispatch = () => calls++ < 2; // open for the pass and the item, closed at the launch
    await h.processor.pass();
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.launcher.fenced.map((l) => l.runId)).toEqual([id]);
    expect(await h.queued('etl')).toEqual([id]);
  });
});

describe('QueueProcessor with DAGs that run on workers', () => {
  const zoneB = () => dagFromYaml('etl', 'worker_selector:\n  zone: b');

  it('hands a queued run to the dispatcher instead of starting a process, and removes its item', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    const id = await h.enqueue(etl, 'scheduler');
    h.processor.start();
    await h.time.advance(0);
    expect(h.dispatcher.calls).toEqual([
      expect.objectContaining({
        runId: id,
        operation: 'start',
        triggerType: 'scheduler',
        selector: { zone: 'b' },
        params: [],
        scheduleTime: null,
        fromQueue: true,
      }),
    ]);
    expect(h.launcher.launches).toHaveLength(0);
    expect(await h.queued('etl')).toEqual([]);
    // The task owns the run now; it stays queued until a worker starts it.
    expect((await h.status(id)).status).toBe('queued');
    expect((await h.runs.listActive()).map((a) => a.run_id)).toEqual([id]);
  });

  it('sends every DAG to the workers, with an empty selector, under default_execution_mode distributed', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl], executionMode: 'distributed' });
    await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(0);
    expect(h.dispatcher.calls.map((c) => c.selector)).toEqual([{}]);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('keeps a refused run queued with its conditions, logs the refusal once, and retries until a worker comes', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    h.dispatcher.refuse = 'NoMatchingWorker';
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(0);
    expect(await h.queued('etl')).toEqual([id]);
    const waiting = await h.status(id);
    expect(waiting.status).toBe('queued');
    expect(waiting.conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Runnable', 'False', 'NoMatchingWorker'],
      ['WorkerReady', 'False', 'NoMatchingWorker'],
    ]);

    await h.time.advance(10 * SECOND);
    const tries = h.dispatcher.calls.length;
    // Offered again about once per REFUSED_RETRY_MS, not at every busy pass.
    expect(tries).toBeGreaterThanOrEqual(5);
    expect(tries).toBeLessThanOrEqual((10 * SECOND) / REFUSED_RETRY_MS + 1);
    expect(h.logger.find('No worker can take a queued run yet')).toHaveLength(1);

    h.dispatcher.refuse = null;
    await h.time.advance(REFUSED_RETRY_MS);
    expect(h.dispatcher.tasks.has(id)).toBe(true);
    expect(await h.queued('etl')).toEqual([]);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('logs a refusal again when its reason changes', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    h.dispatcher.refuse = 'NoAvailableWorker';
    await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(3 * SECOND);
    h.dispatcher.refuse = 'NoMatchingWorker';
    await h.time.advance(3 * SECOND);
    expect(h.logger.find('No worker can take a queued run yet').map((l) => l.fields.reason)).toEqual([
      'NoAvailableWorker',
      'NoMatchingWorker',
    ]);
  });

  it('counts runs handed to the workers against the queue’s concurrency until they finish', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl], queues: [{ name: 'etl', max_concurrency: 1 }] });
    const first = await h.enqueue(etl);
    const second = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    // The first waits for a worker (queued, with a task): the second may not go yet.
    expect(h.dispatcher.runIds()).toEqual([first]);
    expect(await h.queued('etl')).toEqual([second]);

    // A worker runs it...
    await h.runs.writeStatus({ ...(await h.status(first)), status: 'running', worker_id: 'worker-b' });
    await h.time.advance(5 * SECOND);
    expect(h.dispatcher.runIds()).toEqual([first]);

    // ...and finishes it.
    await h.runs.writeStatus({ ...(await h.status(first)), status: 'succeeded' });
    await h.runs.unmarkActive(first);
    await h.time.advance(2 * SECOND);
    expect(h.dispatcher.runIds()).toEqual([first, second]);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('never gives a run a second task when its item outlived the hand-over', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(0);
    // The item reappears, as when its removal failed after the task was written.
    await h.queue.enqueue({ queue: 'etl', run_id: id, dag_name: 'etl', enqueued_at: isoUtc(START) });
    await h.time.advance(2 * SECOND);
    expect(h.dispatcher.runIds()).toEqual([id]);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('leaves runs queued with one warning each when the scheduler has no dispatcher', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl], noDispatcher: true });
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(10 * SECOND);
    expect(await h.queued('etl')).toEqual([id]);
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.logger.find('has no dispatcher')).toHaveLength(1);
  });

  it('keeps the run queued and logs once when the dispatcher fails', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    h.dispatcher.fail = 'EIO: dispatch store unavailable';
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(await h.queued('etl')).toEqual([id]);
    expect(h.logger.find('Could not hand a queued run to the workers')).toHaveLength(1);

    h.dispatcher.fail = null;
    await h.time.advance(2 * SECOND);
    expect(await h.queued('etl')).toEqual([]);
  });

  it('hands nothing over while fenced', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl] });
    h.canDispatch = () => false;
    await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(5 * SECOND);
    expect(h.dispatcher.calls).toHaveLength(0);
  });

  it('still starts local DAGs of the same queue on this host', async () => {
    const remote = zoneB();
    const local = dagFromYaml('report', 'queue: etl');
    const h = harness({ dags: [remote, local], queues: [{ name: 'etl', max_concurrency: 2 }] });
    h.dispatcher.refuse = 'NoAvailableWorker';
    const waiting = await h.enqueue(remote);
    const here = await h.enqueue(local);
    h.processor.start();
    await h.time.advance(SECOND);
    expect(h.launcher.runIds()).toEqual([here]);
    expect(await h.queued('etl')).toEqual([waiting]);
  });

  it('with the coordinator’s dispatcher: refused with the conditions until a matching worker registers', async () => {
    const etl = zoneB();
    const h = harness({ dags: [etl], realDispatcher: true });
    const id = await h.enqueue(etl);
    h.processor.start();
    await h.time.advance(3 * SECOND);
    const waiting = await h.status(id);
    expect(waiting.status).toBe('queued');
    expect(waiting.conditions.map((c) => c.reason)).toEqual(['NoAvailableWorker', 'NoAvailableWorker']);
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.queued('etl')).toEqual([id]);

    await h.workers.put({
      worker_id: 'worker-b',
      labels: { zone: 'b' },
      max_active_runs: 1,
      running: [],
      host: 'host-b',
      pid: 7,
      registered_at_ms: h.time.nowMs(),
      last_heartbeat_ms: h.time.nowMs(),
    });
    await h.time.advance(REFUSED_RETRY_MS);
    expect(await h.queued('etl')).toEqual([]);
    const task = await h.tasks.claimNext({ worker_id: 'worker-b', labels: { zone: 'b' } }, h.time.nowMs());
    expect(task).toMatchObject({ run_id: id, worker_selector: { zone: 'b' }, hold_until_ms: null });
    const handedOver = await h.status(id);
    expect(handedOver.status).toBe('queued');
    expect(handedOver.conditions).toEqual([]);
  });
});

describe('QueueProcessor: suspended DAGs', () => {
  const AT = '2026-11-30T01:00:00.000Z';

  it("ends a suspended DAG's queued scheduled and catch-up runs as Dagu does, and starts its manual ones", async () => {
    const etl = dagFromYaml('etl', 'max_active_runs: 5');
    const h = harness({ dags: [etl] });
    h.launcher.script = { startAfterMs: 20, runForMs: SECOND, outcome: 'succeeded' };
    const slot = await h.enqueue(etl, 'scheduler');
    const catchup = await h.enqueue(etl, 'catchup');
    const manual = await h.enqueue(etl, 'queue');
    await h.suspended.suspend({ dag: 'etl', suspended_at: AT, by: 'test' });
    h.processor.start();
    await h.time.advance(5 * SECOND);
    for (const id of [slot, catchup])
      expect(await h.status(id)).toMatchObject({
        status: 'aborted',
        error: 'dag schedule suspended before dispatch',
        finished_at: expect.any(String),
      });
    expect((await h.status(manual)).status).toBe('succeeded');
    expect(h.launcher.runIds()).toEqual([manual]);
    expect(await h.queue.queues()).toEqual([]);
    expect((await h.runs.listActive()).map((a) => a.run_id)).toEqual([]);
    expect(h.logger.find('Dropped a queued scheduler-made run of a suspended DAG')).toHaveLength(2);
    await h.processor.stop();
  });

  it('leaves scheduled runs queued while the flags cannot be read, and drops them once they can', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    const slot = await h.enqueue(etl, 'scheduler');
    await h.suspended.suspend({ dag: 'etl', suspended_at: AT, by: 'test' });
    h.suspended.failWith = new Error('EIO: i/o error');
    h.processor.start();
    await h.time.advance(3 * SECOND);
    expect((await h.status(slot)).status).toBe('queued');
    expect(await h.queued('etl')).toEqual([slot]);
    expect(h.logger.find('Could not read the suspend flags; scheduled runs stay queued')).toHaveLength(1);
    h.suspended.failWith = null;
    await h.time.advance(2 * SECOND);
    expect((await h.status(slot)).status).toBe('aborted');
    expect(h.launcher.launches).toHaveLength(0);
    await h.processor.stop();
  });

  it('drops nothing while fenced', async () => {
    const etl = dagFromYaml('etl');
    const h = harness({ dags: [etl] });
    const slot = await h.enqueue(etl, 'scheduler');
    await h.suspended.suspend({ dag: 'etl', suspended_at: AT, by: 'test' });
    h.canDispatch = () => false;
    h.processor.start();
    await h.time.advance(3 * SECOND);
    expect((await h.status(slot)).status).toBe('queued');
    await h.processor.stop();
  });
});
