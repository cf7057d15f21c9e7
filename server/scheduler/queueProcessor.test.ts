import { describe, expect, it } from 'vitest';
import type { QueueConfig } from '../config/types';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { DagSpec, RunStatus, TriggerType } from '../core/types';
import { SECOND } from '../core/units';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { QueueProcessor } from './queueProcessor';
import { FakeLauncher } from './testing/fakeLauncher';
import { FakeTime } from './testing/fakeTime';
import { FaultyRunStore } from './testing/faultyRunStore';
import { dagFromYaml, RecordingLogger } from './testing/loopFixtures';

const START = Date.parse('2026-11-30T01:15:30Z');

function harness(o: { dags: DagSpec[]; queues?: QueueConfig[] }) {
  const time = new FakeTime(START);
  const runs = new FaultyRunStore();
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const launcher = new FakeLauncher(runs, time, time);
  let seq = 0;
  const h = {
    time,
    runs,
    queue,
    logger,
    launcher,
    canDispatch: () => true,
    processor: null as unknown as QueueProcessor,
    /** Creates a queued run of `dag` with its active marker and queue item, as `dagu enqueue` does. */
    async enqueue(dag: DagSpec, triggerType: TriggerType = 'queue'): Promise<string> {
      const runId = `run-${String(++seq).padStart(3, '0')}`;
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
    clock: time,
    timers: time,
    logger,
    runs,
    queue,
    catalog: { load: async () => o.dags },
    queues: o.queues ?? [],
    launch: launcher.launch,
    canDispatch: () => h.canDispatch(),
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
    h.canDispatch = () => checks++ < 2; // fenced after the pass began and the first launch
    h.processor.start();
    await h.time.advance(0);
    expect(h.launcher.launches).toHaveLength(1);
  });
});
