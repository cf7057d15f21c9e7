// The soak's cluster: three schedulers, a coordinator and two workers, all kept running by the supervisor;
// plus health reads of the roles. On files they share one temp DAGU_HOME, each scheduler on its own faultfs
// "host" storage; on PostgreSQL each has a home of its own and they share only the database (pgChaos).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killProcessesWithHome } from '../../tests/integration/harness';
import { snapshotCli } from './cliSnapshot';
import { CHAOS_DAGS, dagYaml, WORKER_LABELS } from './dags';
import { mountHostStorage, type HostStorage } from './hostStorage';
import { startPgChaos, type PgChaos } from './pgChaos';
import { fileRecords, type SoakRecords } from './records';
import { Supervisor } from './supervisor';

/** The control plane's store the soak runs on. */
export type SoakBackend = 'file' | 'postgres';

/** Lock timings of the soak (the short ones every conformance test uses). */
export const STALE_THRESHOLD_MS = 3000;
export const RETRY_INTERVAL_MS = 500;
/**
 * run.heartbeat_stale_threshold of the soak; also how long a run process retries its final status
 * (runner/finalStatusBudget.ts finalStatusRetryMs: this threshold, capped at 30 s).
 */
export const RUN_HEARTBEAT_STALE_MS = 3000;

export const SCHEDULERS = ['scheduler-a', 'scheduler-b', 'scheduler-c'] as const;
export const WORKERS = ['worker-1', 'worker-2'] as const;
export const COORDINATOR = 'coordinator';

export type Role = 'active' | 'standby' | string;

export class ChaosCluster {
  readonly supervisor: Supervisor;
  /** Each scheduler's faultfs storage (files only). */
  readonly hosts = new Map<string, HostStorage>();
  /** The database, its proxies and the members' homes (PostgreSQL only). */
  pg: PgChaos | null = null;
  records: SoakRecords;
  private readonly ports = new Map<string, number>();
  private cleanedUp = false;

  private constructor(
    readonly root: string,
    readonly backend: SoakBackend,
    readonly env: NodeJS.ProcessEnv,
    /** The soak's own copy of bin/dagu (see cliSnapshot). */
    readonly dagu: string,
  ) {
    this.supervisor = new Supervisor(this.logDir);
    this.records = fileRecords(this.home);
  }

  /** The shared home on files; on PostgreSQL, the parent of the members' own homes. */
  get home(): string {
    return path.join(this.root, this.backend === 'file' ? 'home' : 'homes');
  }
  /** Every home a process of the soak may have (a run's process inherits its starter's). */
  get homes(): string[] {
    return this.pg ? this.supervisor.names().map((n) => this.pg!.homeOf(n)) : [this.home];
  }
  get logDir(): string {
    return path.join(this.root, 'process-logs');
  }
  /** Outside the data directory, reached by every host without faults: the steps' own record of running. */
  get markerFile(): string {
    return path.join(this.root, 'markers', 'executions.log');
  }

  /** Creates the home(s), the mounts or the database, and starts every member under the supervisor. */
  static async start(backend: SoakBackend = 'file'): Promise<ChaosCluster> {
    const root = mkdtempSync(path.join(tmpdir(), 'dagu-chaos-'));
    const coordinatorPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DAGU_HOME: path.join(root, 'home'),
      DAGU_LOG_FORMAT: 'json',
      DAGU_LOG_LEVEL: 'info',
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${STALE_THRESHOLD_MS}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${RETRY_INTERVAL_MS}ms`,
      DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL: '500ms',
      DAGU_RUN_KILL_GRACE: '1s',
      DAGU_RUN_HEARTBEAT_INTERVAL: '500ms',
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: `${RUN_HEARTBEAT_STALE_MS}ms`,
      DAGU_COORDINATOR_HOST: '127.0.0.1',
      DAGU_COORDINATOR_PORT: String(coordinatorPort),
      DAGU_COORDINATOR_URL: `http://127.0.0.1:${coordinatorPort}`,
      DAGU_COORDINATOR_DETECTION_INTERVAL: '300ms',
      DAGU_COORDINATOR_WORKER_STALE_THRESHOLD: '2s',
      DAGU_COORDINATOR_RESERVATION_TTL: '5s',
      DAGU_WORKER_HEARTBEAT_INTERVAL: '200ms',
    };
    // Every process must run the soak's copy of the CLI, not a launcher inherited from the environment.
    delete env.DAGU_EXECUTABLE;
    delete env.DAGU_PROJECT_ROOT;
    if (backend === 'postgres') delete env.DAGU_HOME;
    const dagu = await snapshotCli(path.join(root, 'cli'));
    const c = new ChaosCluster(root, backend, env, dagu);
    for (const dir of [c.home, c.logDir, path.dirname(c.markerFile)]) mkdirSync(dir, { recursive: true });
    writeFileSync(c.markerFile, '');
    const dags = new Map(CHAOS_DAGS.map((d) => [`${d.name}.yaml`, dagYaml(d, c.markerFile)]));
    try {
      if (backend === 'file') {
        mkdirSync(path.join(c.home, 'dags'), { recursive: true });
        for (const [file, text] of dags) writeFileSync(path.join(c.home, 'dags', file), text);
        for (const name of SCHEDULERS) c.hosts.set(name, await mountHostStorage(c.home, dagu));
      } else {
        c.pg = await startPgChaos({ root, dagu, env, schedulers: SCHEDULERS, dags });
        c.records = c.pg.records;
      }
      const envOf = (member: string): NodeJS.ProcessEnv => {
        if (!c.pg) return env;
        mkdirSync(c.pg.homeOf(member), { recursive: true });
        return { ...env, ...c.pg.envOf(member) };
      };
      for (const name of SCHEDULERS) c.ports.set(name, await freePort());
      c.supervisor.add({
        name: COORDINATOR,
        kind: 'coordinator',
        argv: () => [process.execPath, dagu, 'coordinator'],
        env: envOf(COORDINATOR),
      });
      for (const name of SCHEDULERS) {
        c.supervisor.add({
          name,
          kind: 'scheduler',
          argv: () => (c.pg ? [process.execPath, dagu, 'scheduler'] : c.hosts.get(name)!.schedulerArgv()),
          env: { ...envOf(name), DAGU_SCHEDULER_PORT: String(c.ports.get(name)) },
        });
      }
      const labels = Object.entries(WORKER_LABELS)
        .map(([k, v]) => `${k}=${v}`)
        .join(',');
      for (const id of WORKERS) {
        c.supervisor.add({
          name: id,
          kind: 'worker',
          argv: () => [
            process.execPath,
            dagu,
            'worker',
            '--id',
            id,
            '--labels',
            labels,
            '--max-active-runs',
            '4',
          ],
          env: { ...envOf(id), DAGU_WORKER_WORK_DIR: path.join(root, 'workers', id) },
        });
      }
    } catch (err) {
      await c.cleanup();
      throw err;
    }
    return c;
  }

  /** Makes the DAGs known to the cluster, where that waits for the start (PostgreSQL: see pushDags). */
  async publishDags(): Promise<void> {
    await this.pg?.pushDags();
  }

  /** The role a scheduler reports on /health, or null when it does not answer within 1 s. */
  async role(name: string): Promise<Role | null> {
    if (!this.supervisor.current(name)) return null;
    try {
      const r = await fetch(`http://127.0.0.1:${this.ports.get(name)}/health`, {
        signal: AbortSignal.timeout(1000),
      });
      return ((await r.json()) as { role?: string }).role ?? null;
    } catch {
      return null;
    }
  }

  /** Every scheduler's role, read at the same time. */
  async roles(): Promise<Map<string, Role | null>> {
    const roles = await Promise.all(SCHEDULERS.map((n) => this.role(n)));
    return new Map(SCHEDULERS.map((n, i) => [n, roles[i]]));
  }

  /** The scheduler that reports active, or null. */
  async active(): Promise<string | null> {
    for (const [name, role] of await this.roles()) if (role === 'active') return name;
    return null;
  }

  /** Runs each worker reports executing in its last heartbeat (the coordinator's worker record). */
  async workerRuns(id: string): Promise<string[]> {
    try {
      return await this.records.workerRuns(id);
    } catch {
      return [];
    }
  }

  /**
   * Storage back to normal (a process stuck in a stalled call cannot even be SIGKILLed; a frozen database
   * thawed), every member and every process of the homes killed, the mounts removed, the database stopped,
   * the temp tree deleted unless `keep`.
   */
  async cleanup(keep = false): Promise<void> {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    await Promise.allSettled([...this.hosts.values()].map((h) => h.fs.set('normal')));
    await this.pg?.cluster.thaw().catch(() => undefined);
    await this.supervisor.stopAll();
    for (const home of this.homes) killProcessesWithHome(home);
    for (const h of this.hosts.values()) await h.fs.unmount().catch(() => undefined);
    await this.pg?.close().catch(() => undefined);
    if (!keep) rmSync(this.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
