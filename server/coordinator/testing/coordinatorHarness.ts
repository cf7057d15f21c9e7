// A coordinator's dispatcher, detector and worker reports on a fake clock over one set of stores (in memory
// or files in a temp directory), with the steps a worker takes written as one-line helpers.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Labels } from '../../core/distributed';
import { isoUtc, newRunStatus } from '../../core/runStatus';
import type { DagSpec, RunStatus } from '../../core/types';
import { MINUTE, SECOND } from '../../core/units';
import { FakeTime } from '../../testing/fakeTime';
import { dagFromYaml } from '../../testing/dagFromYaml';
import { RecordingLogger } from '../../testing/recordingLogger';
import type {
  CancelRequests,
  CoordinatorRegistry,
  DispatchTask,
  WorkerRegistry,
  DispatchStore,
} from '../../store/dispatchTypes';
import { FileCancelRequests } from '../../store/fileCancelRequests';
import { FileDispatchStore } from '../../store/fileDispatchStore';
import { FileRunStore } from '../../store/fileRunStore';
import { FileWorkerRegistry } from '../../store/fileWorkerRegistry';
import { MemoryCancelRequests } from '../../store/memoryCancelRequests';
import { MemoryDispatchStore } from '../../store/memoryDispatchStore';
import { MemoryRunStore } from '../../store/memoryRunStore';
import { MemoryWorkerRegistry } from '../../store/memoryWorkerRegistry';
import type { RunStore } from '../../store/types';
import { CoordinatorDetector } from '../detector';
import { Dispatcher } from '../dispatcher';
import { newRunDispatch, type DispatchParams } from '../../core/dispatcherApi';
import { RunLocks } from '../runLocks';
import { WorkerReports } from '../workerReports';
import { WorkerSightings } from '../workerSightings';
import { FaultyDispatchStore } from './faultyDispatchStore';

export const START = Date.parse('2026-11-30T01:15:30Z');
export const WAIT_MS = 2 * MINUTE;
export const STALE_MS = 10 * SECOND;
export const TTL_MS = 30 * SECOND;
export const INTERVAL_MS = 5 * SECOND;
export const RETENTION_MS = 60 * MINUTE;

/** One set of the stores a coordinator works on. */
export interface StoreKit {
  runs: RunStore;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  /** `paths.log_dir` the run store's log directories sit under. */
  logsRoot: string;
  dispose(): Promise<void>;
}

/** The kinds of stores the coordinator's tests run against. */
export const STORE_KITS: Array<{ name: string; make: () => Promise<StoreKit> }> = [
  {
    name: 'memory stores',
    make: async () => ({
      runs: new MemoryRunStore(),
      tasks: new MemoryDispatchStore(),
      workers: new MemoryWorkerRegistry(),
      cancels: new MemoryCancelRequests(),
      logsRoot: '/logs',
      dispose: async () => {},
    }),
  },
  {
    name: 'file stores',
    make: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'dagu-coord-'));
      const logsRoot = path.join(dir, 'logs');
      return {
        runs: new FileRunStore({ dataDir: path.join(dir, 'data'), logDir: logsRoot }),
        tasks: new FileDispatchStore({ dataDir: path.join(dir, 'data') }),
        workers: new FileWorkerRegistry({ dataDir: path.join(dir, 'data') }),
        cancels: new FileCancelRequests({ dataDir: path.join(dir, 'data') }),
        logsRoot,
        dispose: () => rm(dir, { recursive: true, force: true }),
      };
    },
  },
];

export const etl: DagSpec = dagFromYaml(
  'etl',
  [
    'type: chain',
    'steps:',
    '  - name: extract',
    '    command: echo e',
    '  - name: load',
    '    command: echo l',
  ].join('\n'),
);

export interface HarnessOptions {
  waitMs?: number;
  durable?: boolean;
  /** `coordinator.worker_retention` (default RETENTION_MS). */
  retentionMs?: number;
  /** Liveness records the dispatcher judges coordinators by (default: none, as in a coordinator itself). */
  coordinators?: Pick<CoordinatorRegistry, 'list'>;
}

export type CoordinatorHarness = Awaited<ReturnType<typeof coordinatorHarness>>;

export async function coordinatorHarness(kit: StoreKit, opts: HarnessOptions = {}) {
  const time = new FakeTime(START);
  const logger = new RecordingLogger();
  const tasks = new FaultyDispatchStore(kit.tasks, { durable: opts.durable ?? true });
  const locks = new RunLocks();
  const sightings = new WorkerSightings();
  const { runs, workers, cancels } = kit;
  const dispatcher = new Dispatcher({
    runs,
    tasks,
    workers,
    cancels,
    clock: time,
    logger,
    waitMs: opts.waitMs ?? WAIT_MS,
    staleMs: STALE_MS,
    locks,
    coordinators: opts.coordinators,
  });
  const detectorDeps = {
    runs,
    tasks,
    workers,
    cancels,
    clock: time,
    timers: time,
    logger,
    intervalMs: INTERVAL_MS,
    staleMs: STALE_MS,
    reservationTtlMs: TTL_MS,
    workerRetentionMs: opts.retentionMs ?? RETENTION_MS,
    locks,
    sightings,
  };
  const detector = new CoordinatorDetector(detectorDeps);
  const reports = new WorkerReports({
    runs,
    tasks,
    workers,
    cancels,
    clock: time,
    logger,
    logsRoot: kit.logsRoot,
    locks,
    sightings,
  });

  const h = {
    time,
    logger,
    runs,
    tasks,
    workers,
    cancels,
    dispatcher,
    detector,
    /** What the detector was built from, for a second detector on the same stores (a restart). */
    detectorDeps,
    reports,
    /** A worker heartbeat (its first one registers it). */
    heartbeat(
      workerId: string,
      labels: Labels = {},
      running: Array<{ run_id: string; attempt: number }> = [],
    ) {
      return reports.heartbeat({
        worker_id: workerId,
        labels,
        max_active_runs: 4,
        running,
        host: `${workerId}-host`,
        pid: 4242,
      });
    },
    /** A direct dispatch of `etl` (like `dagu start`). */
    dispatch(runId: string, selector: Labels, extra: Partial<DispatchParams> = {}) {
      return dispatcher.dispatch(newRunDispatch(etl, runId, { selector, ...extra }));
    },
    /** A queued run of `etl` as the scheduler's queue records it, marked active. */
    async queuedRun(runId: string): Promise<RunStatus> {
      const s = newRunStatus({
        dag: etl,
        runId,
        status: 'queued',
        triggerType: 'queue',
        scheduleTime: null,
        params: [],
        nowIso: isoUtc(time.nowMs()),
      });
      await runs.createRun(s);
      await runs.markActive({ run_id: runId, dag_name: etl.name, queue: etl.queue });
      return s;
    },
    /** The worker polls once (no wait). */
    claim(workerId: string, labels: Labels = {}): Promise<DispatchTask | null> {
      return tasks.claimNext({ worker_id: workerId, labels }, time.nowMs());
    },
    /** The worker polls and acknowledges; throws if there was nothing to take. */
    async take(workerId: string, labels: Labels = {}): Promise<DispatchTask> {
      const task = await h.claim(workerId, labels);
      if (!task) throw new Error(`worker ${workerId} found no task`);
      const ack = await reports.ack(task.task_id, { worker_id: workerId, token: task.claim!.token });
      if (!ack.accepted) throw new Error(`ack refused: ${ack.error}`);
      return task;
    },
    /** The worker reports the run running (its first step started). */
    async reportRunning(workerId: string, runId: string) {
      const s = await h.status(runId);
      const now = isoUtc(time.nowMs());
      return reports.reportStatus(runId, {
        worker_id: workerId,
        status: {
          ...s,
          status: 'running',
          started_at: now,
          conditions: [],
          steps: s.steps.map((st, i) => (i === 0 ? { ...st, status: 'running', started_at: now } : st)),
        },
      });
    },
    /** The run's latest status; throws when it is missing or unreadable. */
    async status(runId: string): Promise<RunStatus> {
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
      return r.status;
    },
    async activeIds(): Promise<string[]> {
      return (await runs.listActive()).map((a) => a.run_id);
    },
  };
  return h;
}
