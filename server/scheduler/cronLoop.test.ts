import { describe, expect, it } from 'vitest';
import { slotRunId } from '../core/slotRunId';
import type { DagSpec, RunStatus } from '../core/types';
import { MINUTE, SECOND } from '../core/units';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { MemorySuspendFlags } from '../store/memorySuspendFlags';
import { testRunStatus } from '../testing/testRunStatus';
import { CronLoop } from './cronLoop';
import { emptyState, type SchedulerState } from './schedulerState';
import { FakeLauncher } from './testing/fakeLauncher';
import { FakeTime } from '../testing/fakeTime';
import { FaultyRunStore } from './testing/faultyRunStore';
import { dagFromYaml } from '../testing/dagFromYaml';
import { MemoryStateStore } from './testing/memoryStateStore';
import { RecordingLogger } from '../testing/recordingLogger';

const DATA_DIR = '/srv/dagu/data';
const ME = 'sched-b';
const FAILED_INSTANCE = 'sched-a';

const at = (hhmmss: string) => Date.parse(`2026-11-30T${hhmmss}Z`);
const slotId = (dag: string, hhmmss: string) => slotRunId(DATA_DIR, dag, at(hhmmss));

interface HarnessOptions {
  dags: DagSpec[];
  /** Wall-clock time of the start, `hh:mm:ss` on 2026-11-30 UTC. */
  now: string;
  state?: Partial<SchedulerState>;
  queuesEnabled?: boolean;
  instanceId?: string;
}

function harness(o: HarnessOptions) {
  const time = new FakeTime(at(o.now));
  const runs = new FaultyRunStore();
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const stateFile = new MemoryStateStore({ ...emptyState(), ...o.state });
  const launcher = new FakeLauncher(runs, time, time);
  const h = {
    time,
    runs,
    queue,
    logger,
    stateFile,
    launcher,
    dags: o.dags as DagSpec[] | null,
    catalogDelayMs: 0,
    canDispatch: () => true,
    loop: null as unknown as CronLoop,
    /** Starts the loop as an instance that just became active, and runs its first tick. */
    async start(recoveryWindowMs = 0) {
      await h.loop.start({ recoveryWindowMs });
      await time.advance(0);
    },
    async status(runId: string): Promise<RunStatus> {
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
      return r.status;
    },
    async queued(queueName: string): Promise<string[]> {
      return (await queue.list(queueName)).map((i) => i.run_id);
    },
    async allRunIds(): Promise<string[]> {
      return (await runs.listRuns({ limit: 500 })).items.map((r) => r.run_id).sort();
    },
  };
  h.loop = newLoop(h, o.instanceId ?? ME, o.queuesEnabled ?? true);
  return h;
}

type Harness = ReturnType<typeof harness>;

/** What the loops of every simulated instance share: time, the data directory's stores, the DAGs. */
interface World {
  time: FakeTime;
  runs: FaultyRunStore;
  queue: MemoryQueueStore;
  logger: RecordingLogger;
  stateFile: MemoryStateStore;
  launcher: FakeLauncher;
  /** null: the DAG catalog cannot be read. */
  dags: DagSpec[] | null;
  /** How long a read of the DAG catalog takes (as on a slow shared volume or a remote database). */
  catalogDelayMs: number;
  canDispatch: () => boolean;
}

/** A CronLoop on the harness's stores; a second one plays another scheduler instance on the same data. */
function newLoop(h: World, instanceId: string, queuesEnabled = true): CronLoop {
  return new CronLoop({
    slotNamespace: DATA_DIR,
    instanceId,
    clock: h.time,
    timers: h.time,
    logger: h.logger,
    runs: h.runs,
    queue: h.queue,
    catalog: {
      load: async () => {
        if (h.catalogDelayMs > 0) await new Promise<void>((r) => h.time.setTimeout(r, h.catalogDelayMs));
        if (h.dags === null) throw new Error("EIO: i/o error, scandir '/dags'");
        return h.dags;
      },
    },
    suspended: new MemorySuspendFlags(),
    stateFile: h.stateFile,
    launch: h.launcher.launch,
    queuesEnabled,
    canDispatch: () => h.canDispatch(),
    isDistributed: (dag) => dag.worker_selector !== null,
  });
}

/** A record the failed instance created for a slot and never launched: `queued`, with no queue item. */
async function strandedRecord(h: Harness, dag: DagSpec, hhmmss: string, dispatchedBy: string) {
  const other = newLoop(h, dispatchedBy);
  h.canDispatch = (() => {
    let calls = 0;
    return () => calls++ === 0; // fenced between creating the record and launching it
  })();
  expect(await other.dispatchSlot(dag, at(hhmmss), new Map())).toBe('fenced');
  h.canDispatch = () => true;
}

const everyMinute = (name: string, extra = '') => dagFromYaml(name, `schedule: "* * * * *"\n${extra}`);

describe('CronLoop: live slots', () => {
  it('lists the active runs only at ticks with a slot due, not every second', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    let lists = 0;
    const listActive = h.runs.listActive.bind(h.runs);
    h.runs.listActive = () => (lists++, listActive());
    await h.start();
    expect(lists).toBe(1); // the first tick runs the minute-start slot
    await h.time.advance(20_000);
    expect(lists).toBe(1);
    // The next minute's slot: listed again, and its run is not started beside the one still running.
    await h.time.advance(20_000);
    expect(lists).toBe(2);
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
  });

  it('runs the minute-start slot of the current minute on its first tick, and nothing older', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [
        everyMinute('etl'),
        dagFromYaml('at-0114', 'schedule: "14 1 * * *"'),
        dagFromYaml('at-0115', 'schedule: "15 1 * * *"'),
      ],
    });
    await h.start();
    expect(h.launcher.runIds().sort()).toEqual(
      [slotId('at-0115', '01:15:00'), slotId('etl', '01:15:00')].sort(),
    );
    const s = await h.status(slotId('etl', '01:15:00'));
    expect(s.trigger_type).toBe('scheduler');
    expect(s.schedule_time).toBe('2026-11-30T01:15:00Z');
    expect(s.dispatched_by).toBe(ME);
    expect(h.runs.createsOf(slotId('at-0114', '01:14:00'))).toBe(0);
  });

  it('dispatches a slot that came due while a tick ran in the very next tick, not after an idle wait', async () => {
    // Every read of the DAGs takes 5 s. The first tick starts at 01:15:57 (planning up to then) and reads them
    // twice (replay, then plan): the 01:16:00 slot comes due meanwhile. The next tick starts as this one ends,
    // at 01:16:07, and creates the record after its read, at 01:16:12; one that waited the idle interval
    // first would have started at 01:16:12 and created it at 01:16:17.
    const h = harness({ now: '01:15:57', dags: [dagFromYaml('at-0116', 'schedule: "16 1 * * *"')] });
    h.catalogDelayMs = 5 * SECOND;
    const started = h.loop.start();
    await h.time.advance(0);
    await started;
    await h.time.advance(15 * SECOND); // to 01:16:12
    expect(h.time.nowMs()).toBe(at('01:16:12'));
    const s = await h.status(slotId('at-0116', '01:16:00'));
    expect(s.created_at).toBe('2026-11-30T01:16:12Z');
    expect(h.launcher.runIds()).toEqual([slotId('at-0116', '01:16:00')]);
  });

  it('queues the slot of a DAG that runs on workers instead of starting a local process', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('gpu', 'worker_selector: {zone: b}')] });
    await h.start();
    const id = slotId('gpu', '01:15:00');
    expect(h.launcher.launches).toHaveLength(0);
    expect(await h.queued('gpu')).toEqual([id]);
    expect(await h.status(id)).toMatchObject({ status: 'queued', trigger_type: 'scheduler' });
    expect((await h.runs.listActive()).map((a) => a.run_id)).toEqual([id]);
  });

  it('creates a slot’s run sched-<hash>-<slot> exclusively: a 2nd dispatch creates nothing', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag] });
    await h.start();
    const [runId] = h.launcher.runIds();
    expect(runId).toMatch(/^sched-[0-9a-f]{12}-20261130T0115Z$/);

    expect(await h.loop.dispatchSlot(dag, at('01:15:00'), new Map())).toBe('exists');
    await h.time.advance(SECOND); // the run process takes the run over
    expect(await newLoop(h, 'sched-c').dispatchSlot(dag, at('01:15:00'), new Map())).toBe('exists');
    expect(await h.queue.queues()).toEqual([]);
    expect(h.launcher.launches).toHaveLength(1);
    expect(await h.allRunIds()).toEqual([runId]);
  });

  it('runs only the newest due slot of a DAG in one tick', async () => {
    const h = harness({ now: '01:15:35', dags: [dagFromYaml('fast', 'schedule: "*/10 * * * * *"')] });
    await h.start();
    expect(h.launcher.runIds()).toEqual([slotId('fast', '01:15:30')]);
    expect(h.logger.find('a newer slot of the DAG is due in the same tick')).toHaveLength(3);
    expect(h.runs.createsOf(slotId('fast', '01:15:20'))).toBe(0);
  });

  it('skips a slot whose DAG still has an active run, and runs the next one after it finished', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.launcher.script = { startAfterMs: 20, runForMs: 70 * SECOND, outcome: 'succeeded' };
    await h.start();
    await h.time.advanceToWall(at('01:17:10'));
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00'), slotId('etl', '01:17:00')]);
    expect(h.runs.createsOf(slotId('etl', '01:16:00'))).toBe(0);
    expect(h.logger.find('the previous run of this DAG is still active')).toHaveLength(1);
  });

  it('runs a slot whose previous run has ended though its active marker is not removed yet', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    // A run writes its final status first, then removes its marker: a slot can fall in between.
    await h.runs.createRun(
      testRunStatus({
        run_id: 'just-ended',
        status: 'succeeded',
        created_at: '2026-11-30T01:14:00.000Z',
        started_at: '2026-11-30T01:14:00.000Z',
        finished_at: '2026-11-30T01:14:59.900Z',
      }),
    );
    await h.runs.markActive({ run_id: 'just-ended', dag_name: 'etl', queue: 'etl' });
    await h.start();
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
    expect(h.logger.find('the previous run of this DAG is still active')).toHaveLength(0);
  });

  it("still skips a slot while the previous run's status cannot be read, as its marker says it is active", async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    await h.runs.createRun(testRunStatus({ run_id: 'unreadable', status: 'running' }));
    await h.runs.markActive({ run_id: 'unreadable', dag_name: 'etl', queue: 'etl' });
    h.runs.corrupt.add('unreadable');
    await h.start();
    expect(h.launcher.runIds()).toEqual([]);
    expect(h.logger.find('the previous run of this DAG is still active')).toHaveLength(1);
  });

  it('skips a slot when the last run succeeded since the previous slot (skip_if_successful)', async () => {
    const h = harness({ now: '01:15:30', dags: [{ ...everyMinute('etl'), skip_if_successful: true }] });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    // A run by hand at 01:14:30 stands in for the 01:15 slot, but not for 01:16.
    await h.runs.createRun(
      testRunStatus({
        run_id: 'by-hand',
        status: 'succeeded',
        created_at: '2026-11-30T01:14:30.000Z',
        started_at: '2026-11-30T01:14:30.000Z',
      }),
    );
    await h.start();
    await h.time.advanceToWall(at('01:16:10'));
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:16:00')]);
    expect(h.logger.find('skip_if_successful')).toHaveLength(1);
  });

  it('does not count a success from before the schedule was edited, as Dagu does (skip_if_successful)', async () => {
    const dag = { ...everyMinute('etl'), skip_if_successful: true };
    // The state names the DAG's schedule as it was before the edit: the first tick sees the change.
    const h = harness({
      now: '01:15:30',
      dags: [dag],
      state: { skip_resets: { etl: { fingerprint: 'skip:true|cron:0 * * * *', reset_at_ms: null } } },
    });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    await h.runs.createRun(
      testRunStatus({
        run_id: 'by-hand',
        status: 'succeeded',
        created_at: '2026-11-30T01:14:30.000Z',
        started_at: '2026-11-30T01:14:30.000Z',
        finished_at: '2026-11-30T01:14:40.000Z',
      }),
    );
    await h.start();
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
    expect(h.logger.find('skip_if_successful')).toHaveLength(0);
    expect(h.stateFile.state.skip_resets?.etl).toEqual({
      fingerprint: 'skip:true|cron:* * * * *',
      reset_at_ms: at('01:15:30'),
    });
  });

  it('does not run a slot when the DAG was started by hand in its minute, whatever that run did', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    await h.runs.createRun(
      testRunStatus({
        run_id: 'by-hand',
        status: 'failed',
        created_at: '2026-11-30T01:15:05.000Z',
        started_at: '2026-11-30T01:15:05.000Z',
        finished_at: '2026-11-30T01:15:08.000Z',
      }),
    );
    await h.start();
    await h.time.advanceToWall(at('01:16:10'));
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:16:00')]);
    expect(h.logger.find('started by hand in its minute')).toHaveLength(1);
  });

  it('dispatches nothing and writes no state while fenced', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.canDispatch = () => false;
    await h.start();
    await h.time.advance(3 * MINUTE);
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.runs.createCalls).toHaveLength(0);
    expect(h.stateFile.writes).toHaveLength(0);
  });

  it('records each tick that dispatched slots in the state file, for a successor', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    await h.start();
    await h.time.advanceToWall(at('01:16:01'));
    const last = h.stateFile.state;
    expect(last.last_tick_ms).toBeGreaterThanOrEqual(at('01:16:00'));
    expect(last.dags.etl.last_slot_ms).toBe(at('01:16:00'));
  });

  it('retries a slot on the next tick when its run record could not be created', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    const runId = slotId('etl', '01:15:00');
    h.runs.failCreate.add(runId);
    await h.start();
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.logger.find('Could not create the run record of a slot')).toHaveLength(1);

    h.runs.failCreate.delete(runId);
    await h.time.advance(SECOND);
    expect(h.launcher.runIds()).toEqual([runId]);
  });

  it('runs a seconds slot whose tick could not read the active runs on the next tick, not dropping it for the newer slot', async () => {
    const h = harness({ now: '01:15:30', dags: [dagFromYaml('tick', 'schedule: "*/2 * * * * *"')] });
    h.launcher.script = { startAfterMs: 20, runForMs: 300, outcome: 'succeeded' };
    await h.start();
    h.runs.failListActive = 1;
    await h.time.advanceToWall(at('01:15:34') + 500);
    expect(h.logger.find('Scheduler tick failed')).toHaveLength(1);
    expect(h.launcher.runIds()).toEqual(['01:15:30', '01:15:32', '01:15:34'].map((t) => slotId('tick', t)));
  });

  it('plans with the DAGs it loaded last while the DAG catalog cannot be read', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.launcher.script = { startAfterMs: 20, runForMs: SECOND, outcome: 'succeeded' };
    await h.start();
    h.dags = null;
    await h.time.advanceToWall(at('01:16:01'));
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00'), slotId('etl', '01:16:00')]);
    expect(h.logger.find('Could not reload the DAGs')).toHaveLength(1);
  });

  it('gives up on a slot whose record still cannot be created two minutes after the slot', async () => {
    const h = harness({ now: '01:15:30', dags: [dagFromYaml('daily', 'schedule: "15 1 * * *"')] });
    const runId = slotId('daily', '01:15:00');
    h.runs.failCreate.add(runId);
    await h.start();
    await h.time.advanceToWall(at('01:17:30'));
    const attempts = h.runs.createsOf(runId);
    expect(attempts).toBeGreaterThan(1);
    expect(h.logger.find('Gave up on a slot')).toHaveLength(1);

    await h.time.advance(MINUTE);
    expect(h.runs.createsOf(runId)).toBe(attempts);
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('creates nothing when the active runs cannot be read, and plans the slot again next tick', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.runs.failListActive = 1;
    await h.start();
    expect(h.runs.createCalls).toHaveLength(0);
    expect(h.logger.find('Scheduler tick failed')).toHaveLength(1);

    await h.time.advance(5 * SECOND);
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
  });

  it('plans nothing twice when the wall clock moves backwards', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    h.launcher.script = { startAfterMs: 20, runForMs: 5 * SECOND, outcome: 'succeeded' };
    await h.start();
    await h.time.advanceToWall(at('01:16:10'));
    h.time.shiftWall(-MINUTE);
    await h.time.advanceToWall(at('01:17:10'));
    expect(h.launcher.runIds()).toEqual(['01:15:00', '01:16:00', '01:17:00'].map((t) => slotId('etl', t)));
    expect(h.runs.createsOf(slotId('etl', '01:15:00'))).toBe(1);
    expect(h.runs.createsOf(slotId('etl', '01:16:00'))).toBe(1);
  });

  it('adopts a live slot another instance created and never launched, unless it was its own', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag] });
    const runId = slotId('etl', '01:15:00');
    await strandedRecord(h, dag, '01:15:00', FAILED_INSTANCE);
    expect(h.launcher.launches).toHaveLength(0);

    // This instance's own record is left alone: it was launched and its process is starting.
    expect(await newLoop(h, FAILED_INSTANCE).dispatchSlot(dag, at('01:15:00'), new Map())).toBe('exists');
    expect(await h.queue.find(runId)).toBeNull();

    await h.start();
    expect(await h.queued('etl')).toEqual([runId]);
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.logger.find('Adopted a slot the failed instance planned')).toHaveLength(1);
  });

  it('lists an adopted slot whose creator died before adding it to the run list', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag] });
    const runId = slotId('etl', '01:15:00');
    await strandedRecord(h, dag, '01:15:00', FAILED_INSTANCE);
    h.runs.unindexed.add(runId);
    expect((await h.runs.listRuns({})).items.map((r) => r.run_id)).toEqual([]);

    await h.start();
    expect(await h.queued('etl')).toEqual([runId]);
    expect((await h.runs.listRuns({})).items.map((r) => r.run_id)).toEqual([runId]);
  });
});

describe('CronLoop: many slots in one tick', () => {
  const manyDags = (n: number) => Array.from({ length: n }, (_, i) => everyMinute(`dag${i}`));

  it("records a slot's run with the DAG's default params, as a catch-up replay too", async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('withParams', 'params:\n  - FOO: bar\n  - 2026-01-31\n')],
      state: { last_tick_ms: at('01:13:50') },
    });
    await h.start(10 * MINUTE);
    // The positional default is the DAG's second param, stored under its place as Dagu does.
    expect((await h.status(slotId('withParams', '01:14:00'))).params).toEqual(['FOO=bar', '2=2026-01-31']);
    expect((await h.status(slotId('withParams', '01:15:00'))).params).toEqual(['FOO=bar', '2=2026-01-31']);
  });

  it('creates every due slot’s record before it starts the first process', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(40) });
    const recordsAtEachLaunch: number[] = [];
    h.launcher.onLaunch = () => recordsAtEachLaunch.push(h.runs.createCalls.length);
    await h.start();
    expect(h.launcher.launches).toHaveLength(40);
    expect(new Set(recordsAtEachLaunch)).toEqual(new Set([40]));
  });

  it('starts the processes in the order the slots were due, whatever order the records were made in', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(20) });
    await h.start();
    const expected = manyDags(20)
      .map((d) => d.name)
      .sort()
      .map((name) => slotId(name, '01:15:00'));
    expect(h.launcher.runIds()).toEqual(expected);
  });

  it('counts a slot whose record waits for its process as being started, not as stranded', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(3) });
    const pendingAtFirstLaunch: string[] = [];
    h.launcher.onLaunch = (req) => {
      if (pendingAtFirstLaunch.length > 0) return;
      const ids = ['dag0', 'dag1', 'dag2'].map((d) => slotId(d, '01:15:00'));
      pendingAtFirstLaunch.push(...ids.filter((id) => h.loop.isLaunchPending(id)));
      expect(pendingAtFirstLaunch).toContain(req.runId);
    };
    await h.start();
    expect(pendingAtFirstLaunch).toHaveLength(3);
    for (const l of h.launcher.launches) expect(h.loop.isLaunchPending(l.runId)).toBe(false);
  });

  it('starts no process once the fence closes after the records are made, and a successor adopts them', async () => {
    const dags = manyDags(3);
    const h = harness({ now: '01:15:30', dags });
    let calls = 0;
    h.canDispatch = () => calls++ < 3; // open for the three records, closed from the first launch on
    await h.start();
    expect(h.runs.createCalls).toHaveLength(3);
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.stateFile.writes).toHaveLength(0);

    h.canDispatch = () => true;
    const successor = newLoop(h, 'sched-c');
    for (const dag of dags)
      expect(await successor.dispatchSlot(dag, at('01:15:00'), new Map())).toBe('queued');
    expect(await h.queued('dag1')).toEqual([slotId('dag1', '01:15:00')]);
  });

  it('prepares up to 8 launches at once, starting them in the order the slots were due', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(20) });
    h.launcher.prepareMs = 100;
    await h.loop.start({});
    await h.time.advance(300);
    expect(h.launcher.mostPreparing).toBe(8);
    expect(h.launcher.runIds()).toEqual(
      manyDags(20)
        .map((d) => d.name)
        .sort()
        .map((name) => slotId(name, '01:15:00')),
    );
  });

  it('tells each launch the size of its burst, with as many in flight at once as a run host takes', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(20) });
    h.launcher.prepareMs = 100;
    h.launcher.launch.burstSize = 16;
    await h.loop.start({});
    await h.time.advance(300);
    expect(h.launcher.mostPreparing).toBe(16);
    expect(h.launcher.launches.map((l) => l.burst)).toEqual(Array(20).fill(20));
  });

  it('starts none of the launches being prepared when the fence closes, and none after', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(20) });
    h.launcher.prepareMs = 100;
    let open = true;
    h.canDispatch = () => open;
    h.time.setTimeout(() => (open = false), 150); // while the second 8 are being prepared
    await h.loop.start({});
    await h.time.advance(SECOND);
    expect(h.runs.createCalls).toHaveLength(20);
    expect(h.launcher.launches).toHaveLength(8);
    expect(h.launcher.fenced).toHaveLength(8);
    expect(h.stateFile.writes).toHaveLength(0);
  });

  it('retries only the slots whose records failed, and starts the others in the same tick', async () => {
    const h = harness({ now: '01:15:30', dags: manyDags(5) });
    const failing = slotId('dag2', '01:15:00');
    h.runs.failCreate.add(failing);
    await h.start();
    expect(h.launcher.launches).toHaveLength(4);
    expect(h.logger.find('Could not create the run record of a slot')).toHaveLength(1);

    h.runs.failCreate.delete(failing);
    await h.time.advance(SECOND);
    expect(h.launcher.runIds().slice(4)).toEqual([failing]);
  });
});

describe('CronLoop: launches that fail or are fenced', () => {
  it('queues a slot whose run process could not be started on the next tick, and still starts the other DAGs’ slots of the tick', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl'), everyMinute('report')] });
    const etl = slotId('etl', '01:15:00');
    h.launcher.failing.add(etl);
    await h.start();
    expect(h.logger.find('Could not start the run process of a slot')).toHaveLength(1);
    expect(h.launcher.runIds()).toEqual([slotId('report', '01:15:00')]);
    expect((await h.status(etl)).status).toBe('queued');

    h.launcher.failing.delete(etl);
    await h.time.advance(SECOND);
    expect(await h.queued('etl')).toEqual([etl]);
    expect(h.logger.find('Queued a slot whose run process could not be started')).toHaveLength(1);
  });

  it('reports slot adoption done only after a tick that left nothing to retry', async () => {
    const h = harness({ now: '01:15:30', dags: [everyMinute('etl')] });
    const runId = slotId('etl', '01:15:00');
    h.runs.failCreate.add(runId);
    await h.loop.start({});
    expect(h.loop.slotAdoptionDone()).toBe(false);
    await h.time.advance(0);
    expect(h.loop.slotAdoptionDone()).toBe(false); // the slot waits for a retry

    h.runs.failCreate.delete(runId);
    await h.time.advance(SECOND);
    expect(h.loop.slotAdoptionDone()).toBe(true);
  });

  it('starts nothing when the fence closes while the launch is prepared, and leaves the record for a successor', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag] });
    const runId = slotId('etl', '01:15:00');
    let calls = 0;
    h.canDispatch = () => calls++ < 2; // open before and after the record is created, closed at the launch
    expect(await h.loop.dispatchSlot(dag, at('01:15:00'), new Map())).toBe('fenced');
    expect(h.launcher.launches).toHaveLength(0);
    expect(h.launcher.fenced.map((l) => l.runId)).toEqual([runId]);

    h.canDispatch = () => true;
    expect(await newLoop(h, 'sched-c').dispatchSlot(dag, at('01:15:00'), new Map())).toBe('queued');
    expect(await h.queued('etl')).toEqual([runId]);
  });
});

describe('CronLoop: replay of missed slots at start', () => {
  it('after a stale takeover, queues the slots after the last completed tick, and the live one', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('etl')],
      state: { last_tick_ms: at('01:12:10') },
    });
    await h.start(10 * MINUTE);
    const expected = ['01:13:00', '01:14:00', '01:15:00'].map((t) => slotId('etl', t));
    expect(await h.queued('etl')).toEqual(expected);
    for (const id of expected) expect((await h.status(id)).trigger_type).toBe('catchup');
    expect(h.runs.createsOf(slotId('etl', '01:12:00'))).toBe(0);
    // The live slot waits in the queue behind the replays instead of starting beside them.
    expect(h.launcher.launches).toHaveLength(0);
  });

  it('runs the slot missed in a failover once when the takeover comes just before the next slot is due', async () => {
    // The failed instance ran 01:14 and was gone at 01:15. Its successor starts 10 ms before 01:16, and each
    // read of the DAGs takes 40 ms: whatever the successor does before planning its first tick, 01:16 is
    // due by then. 01:15 must not be taken for a slot the first tick supersedes with 01:16.
    const h = harness({
      now: '01:15:59.990',
      dags: [everyMinute('etl')],
      state: { last_tick_ms: at('01:14:00.010'), dags: { etl: { last_slot_ms: at('01:14:00') } } },
    });
    h.catalogDelayMs = 40;
    const started = h.loop.start({ recoveryWindowMs: 10 * MINUTE });
    await h.time.advance(500);
    await started;
    expect(h.runs.createsOf(slotId('etl', '01:15:00'))).toBe(1);
    expect(await h.allRunIds()).toContain(slotId('etl', '01:15:00'));
    expect(h.logger.find('a newer slot of the DAG is due')).toEqual([]);
  });

  it('replays nothing older than the recovery window', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('etl')],
      state: { last_tick_ms: at('01:00:10') },
    });
    await h.start(2 * MINUTE);
    const expected = [slotId('etl', '01:14:00'), slotId('etl', '01:15:00')];
    expect(await h.queued('etl')).toEqual(expected);
    expect(await h.allRunIds()).toEqual([...expected].sort());
  });

  it('after a released lock, replays only what each DAG’s own catchup_window asks for', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('with-window', 'catchup_window: 3m'), everyMinute('plain')],
      state: { last_tick_ms: at('01:00:10') },
    });
    await h.start(0);
    expect(await h.queued('with-window')).toEqual(
      ['01:13:00', '01:14:00', '01:15:00'].map((t) => slotId('with-window', t)),
    );
    expect(await h.queued('plain')).toEqual([]);
    expect(h.launcher.runIds()).toEqual([slotId('plain', '01:15:00')]);
  });

  it('replays nothing when queues are disabled, and still runs the live slot', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('etl')],
      state: { last_tick_ms: at('01:12:10') },
      queuesEnabled: false,
    });
    await h.start(10 * MINUTE);
    expect(await h.queue.queues()).toEqual([]);
    expect(h.logger.find('queues are disabled')).toHaveLength(1);
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
  });

  it('replays only the newest missed slot under overlap_policy latest', async () => {
    const h = harness({
      now: '01:17:30',
      dags: [dagFromYaml('five', 'schedule: "*/5 * * * *"\noverlap_policy: latest')],
      state: { last_tick_ms: at('00:58:10') },
    });
    await h.start(30 * MINUTE);
    expect(await h.queued('five')).toEqual([slotId('five', '01:15:00')]);
    expect(await h.allRunIds()).toEqual([slotId('five', '01:15:00')]);
  });

  it('under overlap_policy latest with a slot this minute, runs it live and replays nothing', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('etl', 'overlap_policy: latest')],
      state: { last_tick_ms: at('01:10:10') },
    });
    await h.start(10 * MINUTE);
    expect(await h.queue.queues()).toEqual([]);
    expect(h.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
    expect((await h.status(slotId('etl', '01:15:00'))).trigger_type).toBe('scheduler');
  });

  it('adopts a slot the failed instance created but left queued with no queue item', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag], state: { last_tick_ms: at('01:13:10') } });
    const stranded = slotId('etl', '01:14:00');
    await strandedRecord(h, dag, '01:14:00', FAILED_INSTANCE);

    await h.start(2 * MINUTE);
    expect(await h.queued('etl')).toEqual([stranded, slotId('etl', '01:15:00')]);
    const s = await h.status(stranded);
    expect(s.status).toBe('queued');
    expect(s.dispatched_by).toBe(FAILED_INSTANCE);
    expect((await h.runs.listActive()).map((a) => a.run_id)).toContain(stranded);
  });

  it('does not adopt a queued slot record this instance created itself', async () => {
    const dag = everyMinute('etl');
    const h = harness({ now: '01:15:30', dags: [dag], state: { last_tick_ms: at('01:13:10') } });
    const own = slotId('etl', '01:14:00');
    await strandedRecord(h, dag, '01:14:00', ME);

    await h.start(2 * MINUTE);
    expect(await h.queue.find(own)).toBeNull();
    expect(h.logger.find('Adopted')).toHaveLength(0);
  });

  it('completes a half-created run directory of a missed slot and queues it', async () => {
    const h = harness({
      now: '01:15:30',
      dags: [everyMinute('etl')],
      state: { last_tick_ms: at('01:13:10') },
    });
    const half = slotId('etl', '01:14:00');
    h.runs.halfCreated.add(half);

    await h.start(2 * MINUTE);
    const s = await h.status(half);
    expect(s.status).toBe('queued');
    expect(s.trigger_type).toBe('catchup');
    expect(s.schedule_time).toBe('2026-11-30T01:14:00Z');
    expect(await h.queued('etl')).toEqual([half, slotId('etl', '01:15:00')]);
    expect((await h.runs.listActive()).map((a) => a.run_id)).toContain(half);
    expect(h.logger.find('creator died midway')).toHaveLength(1);
  });
});
