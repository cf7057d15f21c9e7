// The soak's cluster: three schedulers (each on its own faultfs "host" storage), a coordinator and two
// workers, all on one temp DAGU_HOME and all kept running by the supervisor; plus health reads of the roles.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killProcessesWithHome } from '../../tests/integration/harness';
import { snapshotCli } from './cliSnapshot';
import { CHAOS_DAGS, dagYaml, WORKER_LABELS } from './dags';
import { mountHostStorage, type HostStorage } from './hostStorage';
import { Supervisor } from './supervisor';

/** Lock timings of the soak (the short ones every conformance test uses). */
export const STALE_THRESHOLD_MS = 3000;
export const RETRY_INTERVAL_MS = 500;

export const SCHEDULERS = ['scheduler-a', 'scheduler-b', 'scheduler-c'] as const;
export const WORKERS = ['worker-1', 'worker-2'] as const;
export const COORDINATOR = 'coordinator';

export type Role = 'active' | 'standby' | string;

export class ChaosCluster {
  readonly supervisor: Supervisor;
  readonly hosts = new Map<string, HostStorage>();
  private readonly ports = new Map<string, number>();
  private cleanedUp = false;

  private constructor(
    readonly root: string,
    readonly env: NodeJS.ProcessEnv,
    /** The soak's own copy of bin/dagu (see cliSnapshot). */
    readonly dagu: string,
  ) {
    this.supervisor = new Supervisor(this.logDir);
  }

  get home(): string {
    return path.join(this.root, 'home');
  }
  get dataDir(): string {
    return path.join(this.home, 'data');
  }
  get logDir(): string {
    return path.join(this.root, 'process-logs');
  }
  /** Outside the data directory, reached by every host without faults: the steps' own record of running. */
  get markerFile(): string {
    return path.join(this.root, 'markers', 'executions.log');
  }

  /** Creates the home and the mounts and starts every member under the supervisor. */
  static async start(): Promise<ChaosCluster> {
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
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s',
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
    const dagu = await snapshotCli(path.join(root, 'cli'));
    const c = new ChaosCluster(root, env, dagu);
    for (const dir of [path.join(c.home, 'dags'), c.logDir, path.dirname(c.markerFile)])
      mkdirSync(dir, { recursive: true });
    writeFileSync(c.markerFile, '');
    for (const dag of CHAOS_DAGS)
      writeFileSync(path.join(c.home, 'dags', `${dag.name}.yaml`), dagYaml(dag, c.markerFile));
    try {
      for (const name of SCHEDULERS) {
        c.hosts.set(name, await mountHostStorage(c.home, dagu));
        c.ports.set(name, await freePort());
      }
      c.supervisor.add({
        name: COORDINATOR,
        kind: 'coordinator',
        argv: () => [process.execPath, dagu, 'coordinator'],
        env,
      });
      for (const name of SCHEDULERS) {
        c.supervisor.add({
          name,
          kind: 'scheduler',
          argv: () => c.hosts.get(name)!.schedulerArgv(),
          env: { ...env, DAGU_SCHEDULER_PORT: String(c.ports.get(name)) },
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
          env: { ...env, DAGU_WORKER_WORK_DIR: path.join(root, 'workers', id) },
        });
      }
    } catch (err) {
      await c.cleanup();
      throw err;
    }
    return c;
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
  workerRuns(id: string): string[] {
    try {
      const file = path.join(this.dataDir, 'cluster', 'workers', `${id}.json`);
      const rec = JSON.parse(readFileSync(file, 'utf8')) as { running?: Array<{ run_id: string }> };
      return (rec.running ?? []).map((r) => r.run_id);
    } catch {
      return [];
    }
  }

  /**
   * Storage back to normal (a process stuck in a stalled call cannot even be SIGKILLed), every member and every
   * process of the home killed, the mounts removed, the temp tree deleted unless `keep`.
   */
  async cleanup(keep = false): Promise<void> {
    if (this.cleanedUp) return;
    this.cleanedUp = true;
    await Promise.allSettled([...this.hosts.values()].map((h) => h.fs.set('normal')));
    await this.supervisor.stopAll();
    killProcessesWithHome(this.home);
    for (const h of this.hosts.values()) await h.fs.unmount().catch(() => undefined);
    if (!keep) rmSync(this.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
