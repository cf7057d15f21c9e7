// A coordinator and workers on real `bin/dagu` processes for the distributed integration tests: one
// installation on either storage backend (a temp home, plus a schema of its own on postgres), a coordinator
// on a free port with short timings, workers started and killed by ID, and reads of runs, tasks and worker
// records through the installation's stores, as its processes read them.

import path from 'node:path';
import type { RunStatus } from '../../server/core/types';
import type { ControlPlane } from '../../server/store/controlPlane';
import type { DispatchTask, WorkerRecord } from '../../server/store/dispatchTypes';
import { InstallationStores, type BackendUnderTest } from './backends';
import {
  dagu,
  eventually,
  freePort,
  startService,
  tempHome,
  type Result,
  type Service,
  type TempHome,
} from './harness';

/** The short timings every cluster runs with (env values of the coordinator and workers). */
export const TIMINGS = {
  heartbeatMs: 200,
  detectionMs: 300,
  staleMs: 2000,
  reservationTtlMs: 5000,
  /**
   * Not a setting: how late a timer may fire and a pass over the data directory end on a loaded 2-core
   * machine. Bounds on durations are checked on the processes' own time stamps (a run's finished_at, a log
   * record's time) and add only this, never the test's own polling.
   */
  slackMs: 1000,
} as const;

/** A DAG of one step that goes to workers whose labels match `selector`. */
export function selectorDag(selector: Record<string, string>, command: string): string {
  const labels = Object.entries(selector)
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('');
  return `worker_selector:\n${labels}steps:\n  - name: s\n    command: ${command}\n`;
}

export interface WorkerOptions {
  maxActiveRuns?: number;
  /** Start the worker without the coordinator token the cluster's env carries. */
  withoutToken?: boolean;
  /** Wait until the coordinator has recorded the worker (default true). */
  waitRegistered?: boolean;
  /** More environment of the worker process only (its host's variables). */
  env?: Record<string, string>;
}

/**
 * One temp home with a coordinator and workers. Everything started through it is stopped by `cleanup`, which
 * also kills every process of the home (run steps a killed worker left behind).
 */
export class Cluster {
  coordinator: Service | null = null;
  private readonly services: Service[] = [];
  private readonly workerServices = new Map<string, Service>();
  private readonly stores: InstallationStores;

  private constructor(
    readonly h: TempHome,
    readonly port: number,
  ) {
    this.stores = new InstallationStores(h.env);
  }

  /**
   * A new installation on `backend` whose env points the coordinator, the workers and the CLI at a free port,
   * with short timings.
   */
  static async create(backend: BackendUnderTest, extraEnv: Record<string, string> = {}): Promise<Cluster> {
    const port = await freePort();
    const h = tempHome({
      ...backend.installationEnv(),
      DAGU_COORDINATOR_HOST: '127.0.0.1',
      DAGU_COORDINATOR_PORT: String(port),
      DAGU_COORDINATOR_URL: `http://127.0.0.1:${port}`,
      DAGU_COORDINATOR_DETECTION_INTERVAL: `${TIMINGS.detectionMs}ms`,
      DAGU_COORDINATOR_WORKER_STALE_THRESHOLD: `${TIMINGS.staleMs}ms`,
      DAGU_COORDINATOR_RESERVATION_TTL: `${TIMINGS.reservationTtlMs}ms`,
      DAGU_WORKER_HEARTBEAT_INTERVAL: `${TIMINGS.heartbeatMs}ms`,
      ...extraEnv,
    });
    return new Cluster(h, port);
  }

  get env(): NodeJS.ProcessEnv {
    return this.h.env;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The installation's stores (runs, tasks, workers…), opened on first use. */
  plane(): Promise<ControlPlane> {
    return this.stores.get();
  }

  /** The home's data directory: everything of the installation on the file backend, scratch on postgres. */
  get dataDir(): string {
    return path.join(this.h.home, 'data');
  }

  /** The home's log directory: the run logs on the file backend, a run process's local copies on postgres. */
  get logDir(): string {
    return path.join(this.h.home, 'logs');
  }

  /**
   * The stdout of the run's step as the installation keeps it: a worker ships it to the coordinator, which
   * stores it in the run log store (files under the log directory, or the database's chunks).
   */
  async stepStdout(run: RunStatus, step = 0): Promise<string> {
    const file = run.steps[step]?.stdout;
    if (!file) throw new Error(`step ${step} of ${run.run_id} has no stdout log`);
    const ref = {
      dag_name: run.dag_name,
      run_id: run.run_id,
      attempt: run.attempt,
      name: path.basename(file),
    };
    const parts: Buffer[] = [];
    for await (const piece of (await this.plane()).logs.read(ref, 0, Infinity))
      parts.push(Buffer.from(piece));
    return Buffer.concat(parts).toString('utf8');
  }

  /** Starts `dagu coordinator` and waits until its /health answers. */
  async startCoordinator(): Promise<Service> {
    const s = startService(['coordinator'], this.env);
    this.services.push(s);
    this.coordinator = s;
    await eventually(async () => {
      if (s.child.exitCode !== null) throw new Error(`coordinator exited:\n${s.output()}`);
      const r = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) });
      return r.ok;
    }, 20_000).catch((err: Error) => {
      throw new Error(`${err.message}\ncoordinator output:\n${s.output()}`);
    });
    return s;
  }

  /** SIGKILLs the coordinator and waits for it to exit. */
  async killCoordinator(): Promise<void> {
    await this.coordinator?.stop('SIGKILL');
    this.coordinator = null;
  }

  /** Starts `dagu worker --id <id> --labels <labels>` with its own work directory under the home. */
  async startWorker(id: string, labels: Record<string, string>, o: WorkerOptions = {}): Promise<Service> {
    const env: NodeJS.ProcessEnv = {
      ...this.env,
      DAGU_WORKER_WORK_DIR: path.join(this.h.home, 'workers', id),
      ...o.env,
    };
    if (o.withoutToken) delete env.DAGU_COORDINATOR_TOKEN;
    const labelText = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const s = startService(
      [
        'worker',
        '--id',
        id,
        '--labels',
        labelText,
        '--max-active-runs',
        String(o.maxActiveRuns ?? 4),
        '--coordinator',
        this.url,
      ],
      env,
    );
    this.services.push(s);
    this.workerServices.set(id, s);
    if (o.waitRegistered ?? true) {
      await eventually(() => this.workerRecord(id), 20_000).catch((err: Error) => {
        throw new Error(`${err.message}\nworker ${id} output:\n${s.output()}`);
      });
    }
    return s;
  }

  worker(id: string): Service {
    const s = this.workerServices.get(id);
    if (!s) throw new Error(`no worker ${id} was started`);
    return s;
  }

  /** `kill -9` of a worker: it stops heartbeating at once and its run steps are left behind. */
  async killWorker(id: string): Promise<void> {
    await this.worker(id).stop('SIGKILL');
  }

  /** The worker's record as the coordinator last wrote it, or null. */
  async workerRecord(id: string): Promise<WorkerRecord | null> {
    return (await this.plane()).workers.get(id);
  }

  /** Waits until the coordinator has seen `count` more heartbeats of the worker than it had now. */
  async heartbeats(id: string, count: number): Promise<void> {
    const from = (await this.workerRecord(id))?.last_heartbeat_ms ?? 0;
    const until = from + count * TIMINGS.heartbeatMs;
    await eventually(
      async () => ((await this.workerRecord(id))?.last_heartbeat_ms ?? 0) >= until,
      20_000,
      50,
    );
  }

  /** `dagu start --detach --run-id <runId> <dag>`: returns once the run is handed over (or refused). */
  dispatch(dag: string, runId: string, env: NodeJS.ProcessEnv = this.env): Promise<Result> {
    return dagu(['start', '--detach', '--run-id', runId, dag], env);
  }

  async status(runId: string): Promise<RunStatus | null> {
    const r = await (await this.plane()).runs.readStatus(runId);
    return r.kind === 'ok' ? r.status : null;
  }

  /** Waits until the run's status satisfies `pred` and returns it; the error shows the last status seen. */
  async waitRun(
    runId: string,
    pred: (s: RunStatus) => boolean,
    timeoutMs = 20_000,
    everyMs = 50,
  ): Promise<RunStatus> {
    let last: RunStatus | null = null;
    return eventually(
      async () => {
        last = await this.status(runId);
        return last && pred(last) ? last : null;
      },
      timeoutMs,
      everyMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nlast status of ${runId}: ${JSON.stringify(last)}\n${this.outputs()}`);
    });
  }

  /** IDs of the dispatch tasks waiting for a worker (pending) or claimed by one and not yet acknowledged. */
  async taskIds(which: 'pending' | 'claims'): Promise<string[]> {
    const { tasks } = await this.plane();
    const list: DispatchTask[] = which === 'pending' ? await tasks.listPending() : await tasks.listClaims();
    return list.map((t) => t.task_id);
  }

  /** The ID of the run's pending or claimed task, if any (`<ms>-<run id>-<attempt>`). */
  async taskOf(runId: string): Promise<string | null> {
    return (await (await this.plane()).tasks.findByRun(runId))?.task_id ?? null;
  }

  /** Everything the cluster's processes printed, for failure messages. */
  outputs(): string {
    return [...this.workerServices.entries()]
      .map(([id, s]) => `--- worker ${id}\n${s.output()}`)
      .concat(this.coordinator ? [`--- coordinator\n${this.coordinator.output()}`] : [])
      .join('\n');
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.services.map((s) => s.stop('SIGKILL')));
    await this.stores.close();
    this.h.cleanup();
  }
}
