// A cluster of real `bin/dagu` processes for the console tests: schedulers, a server, a coordinator and
// workers on one temporary DAGU_HOME, each on a free port and with short timings. Every process writes its
// output to a file in the test's output directory; `stop()` ends everything the cluster started (and the
// detached run processes left behind), whatever state the test ended in.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync, readFileSync, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../server/testing/freePort';

export { freePort };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DAGU = path.join(ROOT, 'bin', 'dagu');

/** Lock timings of every cluster: T (stale threshold), R (standby retry) and I = min(7s, T/4). */
export const T_MS = 3000;
export const R_MS = 500;
export const I_MS = Math.min(7000, T_MS / 4);
/** T + 2R: the bound from a holder's death to a standby's takeover. */
export const TAKEOVER_BOUND_MS = T_MS + 2 * R_MS;

/** Coordinator and worker timings (a heartbeat every 200 ms, unhealthy after 2 s without one). */
export const HEARTBEAT_MS = 200;
const DETECTION_MS = 300;
const WORKER_STALE_MS = 2000;

/** How long a process may take to become ready on a loaded 2-core machine. */
const READY_TIMEOUT_MS = 45_000;
const STOP_GRACE_MS = 5_000;

export type ProcessKind = 'scheduler' | 'server' | 'coordinator' | 'worker';

/** One `bin/dagu` process the cluster started. */
export class DaguProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private readonly out: WriteStream;

  constructor(
    readonly name: string,
    readonly kind: ProcessKind,
    readonly args: string[],
    readonly logFile: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.out = createWriteStream(logFile, { flags: 'a' });
    this.out.write(`--- ${new Date().toISOString()} dagu ${args.join(' ')}\n`);
    this.child = spawn(process.execPath, [DAGU, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.pipe(this.out, { end: false });
    this.child.stderr!.pipe(this.out, { end: false });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.out.write(`--- ${new Date().toISOString()} exited with ${signal ?? `code ${code}`}\n`);
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the process printed so far (the file's last `lines` lines). */
  tail(lines = 40): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no output)';
    }
  }

  /**
   * The first JSON log record (DAGU_LOG_FORMAT=json) of this process whose message matches `pattern`, with
   * its own time stamp, waiting up to `timeoutMs` for it. A restarted process appends to its predecessor's
   * file: records from before `sinceMs` are skipped.
   */
  async logRecord(
    pattern: RegExp,
    timeoutMs = 20_000,
    sinceMs = 0,
  ): Promise<{ timeMs: number; fields: Record<string, unknown> }> {
    return poll(
      `a log record of ${this.name} matching ${pattern}`,
      () => {
        let text: string;
        try {
          text = readFileSync(this.logFile, 'utf8');
        } catch {
          return null;
        }
        for (const line of text.split('\n')) {
          if (!line.startsWith('{') || !line.endsWith('}')) continue;
          try {
            const fields = JSON.parse(line) as Record<string, unknown>;
            const timeMs = Date.parse(String(fields.time));
            if (typeof fields.msg === 'string' && pattern.test(fields.msg) && timeMs >= sinceMs)
              return { timeMs, fields };
          } catch {
            // Not a record of ours.
          }
        }
        return null;
      },
      timeoutMs,
      50,
    );
  }

  /** `kill -9`: resolves with the time the signal was sent, once the process is gone. */
  async kill9(): Promise<number> {
    const at = Date.now();
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
    return at;
  }

  /** SIGTERM, then SIGKILL after a grace period. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  closeLog(): Promise<void> {
    return new Promise((resolve) => this.out.end(resolve));
  }
}

export class Scheduler extends DaguProcess {
  constructor(
    name: string,
    readonly port: number,
    logFile: string,
    env: NodeJS.ProcessEnv,
  ) {
    super(name, 'scheduler', ['scheduler', '--scheduler-port', String(port)], logFile, env);
  }

  /** The role its health endpoint reports (`active` or `standby`), null when it does not answer. */
  async role(): Promise<string | null> {
    try {
      const r = await fetch(`http://127.0.0.1:${this.port}/health`, { signal: AbortSignal.timeout(1000) });
      return ((await r.json()) as { role?: string }).role ?? null;
    } catch {
      return null;
    }
  }
}

export class Server extends DaguProcess {
  constructor(
    name: string,
    readonly port: number,
    logFile: string,
    env: NodeJS.ProcessEnv,
    /** The address it listens on; tests reach it through 127.0.0.1 either way. */
    host = '127.0.0.1',
  ) {
    super(name, 'server', ['server', '--host', host, '--port', String(port)], logFile, env);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}

export class Worker extends DaguProcess {
  constructor(
    readonly id: string,
    readonly labels: Record<string, string>,
    readonly workDir: string,
    coordinatorUrl: string,
    logFile: string,
    env: NodeJS.ProcessEnv,
  ) {
    const labelText = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    super(
      id,
      'worker',
      [
        'worker',
        '--id',
        id,
        '--labels',
        labelText,
        '--max-active-runs',
        '2',
        '--coordinator',
        coordinatorUrl,
      ],
      logFile,
      { ...env, DAGU_WORKER_WORK_DIR: workDir },
    );
  }
}

/** A scheduler instance as it describes itself in data/scheduler/instances/<id>.json. */
export interface InstanceFile {
  id: string;
  pid: number;
  port: number;
}

export class DaguCluster {
  private readonly processes: DaguProcess[] = [];

  private constructor(
    readonly home: string,
    /** Where the process logs go (the test's output directory). */
    readonly logDir: string,
    readonly coordinatorPort: number,
    readonly env: NodeJS.ProcessEnv,
  ) {}

  /** A fresh DAGU_HOME (with an empty dags/ so no example DAGs are seeded) and the env every process shares. */
  static async create(logDir: string, extraEnv: Record<string, string> = {}): Promise<DaguCluster> {
    for (const built of ['dist/cli.cjs', '.next/BUILD_ID']) {
      if (!existsSync(path.join(ROOT, built))) {
        throw new Error(`e2e: ${built} is missing; run \`npm run build\` before \`npm run test:e2e\``);
      }
    }
    await mkdir(logDir, { recursive: true });
    const home = await mkdtemp(path.join(tmpdir(), 'dagu-e2e-'));
    await mkdir(path.join(home, 'dags'), { recursive: true });
    const coordinatorPort = await freePort();
    // Settings of the caller's own dagu (DAGU_PORT, auth, ...) must not leak into the cluster.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('DAGU_') || k.startsWith('DAGU_E2E_')),
    ) as NodeJS.ProcessEnv;
    const env: NodeJS.ProcessEnv = {
      ...inherited,
      DAGU_HOME: home,
      DAGU_LOG_FORMAT: 'json',
      NO_COLOR: '1',
      NEXT_TELEMETRY_DISABLED: '1',
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${T_MS}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${R_MS}ms`,
      // Nothing but the processes the test starts: no health port unless given, no spare run process.
      DAGU_SCHEDULER_PORT: '0',
      DAGU_RUN_PRESTART: 'false',
      DAGU_RUN_KILL_GRACE: '1s',
      DAGU_RUN_HEARTBEAT_INTERVAL: '500ms',
      DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s',
      DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL: '500ms',
      DAGU_COORDINATOR_HOST: '127.0.0.1',
      DAGU_COORDINATOR_PORT: String(coordinatorPort),
      DAGU_COORDINATOR_URL: `http://127.0.0.1:${coordinatorPort}`,
      DAGU_COORDINATOR_TOKEN: `e2e-${process.pid}-${Date.now()}`,
      DAGU_COORDINATOR_DETECTION_INTERVAL: `${DETECTION_MS}ms`,
      DAGU_COORDINATOR_WORKER_STALE_THRESHOLD: `${WORKER_STALE_MS}ms`,
      DAGU_COORDINATOR_RESERVATION_TTL: '5s',
      DAGU_WORKER_HEARTBEAT_INTERVAL: `${HEARTBEAT_MS}ms`,
      ...extraEnv,
    };
    delete env.FORCE_COLOR;
    return new DaguCluster(home, logDir, coordinatorPort, env);
  }

  get dataDir(): string {
    return path.join(this.home, 'data');
  }

  get coordinatorUrl(): string {
    return `http://127.0.0.1:${this.coordinatorPort}`;
  }

  get started(): readonly DaguProcess[] {
    return this.processes;
  }

  async writeDag(name: string, yaml: string): Promise<void> {
    await writeFile(path.join(this.home, 'dags', `${name}.yaml`), yaml);
  }

  /** One log file per name; a restarted process appends to its predecessor's file. */
  private logFile(name: string): string {
    return path.join(this.logDir, `${name}.log`);
  }

  private track<P extends DaguProcess>(p: P): P {
    this.processes.push(p);
    return p;
  }

  /** `dagu scheduler` with its health endpoint on `port` (a free one by default); resolves once it answers. */
  async startScheduler(name: string, port?: number): Promise<Scheduler> {
    const s = this.track(new Scheduler(name, port ?? (await freePort()), this.logFile(name), this.env));
    await waitReady(s, async () => (await s.role()) !== null);
    return s;
  }

  /** Starts a scheduler again on the same health port, as the same name (its log continues in the same file). */
  async restartScheduler(old: Scheduler): Promise<Scheduler> {
    if (old.running) throw new Error(`scheduler ${old.name} is still running`);
    return this.startScheduler(old.name, old.port);
  }

  /**
   * `dagu server` on a free port; resolves once /api/v1/health answers 200. `host` is the listen address,
   * `env` adds settings for this server only (auth, say).
   */
  async startServer(
    name = 'server',
    opts: { host?: string; env?: Record<string, string> } = {},
  ): Promise<Server> {
    const env = { ...this.env, ...opts.env };
    const s = this.track(new Server(name, await freePort(), this.logFile(name), env, opts.host));
    await waitReady(s, async () => {
      const r = await fetch(`${s.url}/api/v1/health`, { signal: AbortSignal.timeout(2000) });
      return r.ok;
    });
    return s;
  }

  /** `dagu coordinator` on the cluster's coordinator port; resolves once its /health answers. */
  async startCoordinator(name = 'coordinator'): Promise<DaguProcess> {
    const c = this.track(new DaguProcess(name, 'coordinator', ['coordinator'], this.logFile(name), this.env));
    await waitReady(c, async () => {
      const r = await fetch(`${this.coordinatorUrl}/health`, { signal: AbortSignal.timeout(1000) });
      return r.ok;
    });
    return c;
  }

  /** `dagu worker --id <id> --labels …`; resolves once the coordinator has recorded its first heartbeat. */
  async startWorker(id: string, labels: Record<string, string>): Promise<Worker> {
    const workDir = path.join(this.home, 'workers', id);
    const w = this.track(new Worker(id, labels, workDir, this.coordinatorUrl, this.logFile(id), this.env));
    await waitReady(w, () => this.lastHeartbeatMs(id) !== null);
    return w;
  }

  /** The coordinator's record of a worker's last heartbeat (data/cluster/workers/<id>.json), or null. */
  lastHeartbeatMs(workerId: string): number | null {
    try {
      const file = path.join(this.dataDir, 'cluster', 'workers', `${workerId}.json`);
      const record = JSON.parse(readFileSync(file, 'utf8')) as { last_heartbeat_ms?: unknown };
      return typeof record.last_heartbeat_ms === 'number' ? record.last_heartbeat_ms : null;
    } catch {
      return null;
    }
  }

  /** Waits until the coordinator has recorded `count` more heartbeats of the worker than it had now. */
  async heartbeats(workerId: string, count: number, timeoutMs = 20_000): Promise<void> {
    const until = (this.lastHeartbeatMs(workerId) ?? 0) + count * HEARTBEAT_MS;
    await poll(
      `${count} heartbeats of worker ${workerId}`,
      () => (this.lastHeartbeatMs(workerId) ?? 0) >= until,
      timeoutMs,
      50,
    );
  }

  /** The scheduler instance files (data/scheduler/instances/*.json); unreadable ones are skipped. */
  instanceFiles(): InstanceFile[] {
    const dir = path.join(this.dataDir, 'scheduler', 'instances');
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json'));
    } catch {
      return [];
    }
    const out: InstanceFile[] = [];
    for (const n of names) {
      try {
        out.push(JSON.parse(readFileSync(path.join(dir, n), 'utf8')) as InstanceFile);
      } catch {
        // Being replaced right now; the next read sees it.
      }
    }
    return out;
  }

  /** The instance id a scheduler process published for itself (its file carries its pid). */
  async instanceId(s: Scheduler, timeoutMs = 15_000): Promise<string> {
    const found = await poll(
      `the instance file of scheduler ${s.name} (pid ${s.pid})`,
      () => this.instanceFiles().find((f) => f.pid === s.pid && f.port === s.port)?.id,
      timeoutMs,
    );
    return found;
  }

  /** The scheduler lock record as it is on disk now (data/scheduler/lock/lock.json), or null. */
  async lockRecord(): Promise<{ instance_id: string; renewed_at: string; epoch: number } | null> {
    try {
      return JSON.parse(await readFile(path.join(this.dataDir, 'scheduler', 'lock', 'lock.json'), 'utf8'));
    } catch {
      return null;
    }
  }

  /** The last lines of every process's output, for a failure report. */
  tails(lines = 30): string {
    const seen = new Set<string>();
    return this.processes
      .filter((p) => !seen.has(p.logFile) && seen.add(p.logFile))
      .map((p) => `----- ${p.name} (${p.kind}, ${p.logFile})\n${p.tail(lines)}`)
      .join('\n');
  }

  /** Log files written so far (one per process name). */
  logFiles(): string[] {
    return [...new Set(this.processes.map((p) => p.logFile))];
  }

  /**
   * Stops every process the cluster started (SIGTERM, SIGKILL after a grace), then SIGKILLs whatever still
   * runs with this DAGU_HOME (run processes are detached by design and outlive their starter), and removes
   * the home. Resolves with the pids that were still around after all that (normally none).
   */
  async stop(): Promise<number[]> {
    await Promise.all(this.processes.map((p) => p.stop()));
    for (const pid of processesOfHome(this.home)) killQuietly(pid);
    await Promise.all(this.processes.map((p) => p.closeLog()));
    // A SIGKILLed process is gone once the kernel has reaped it; give it a moment before looking again.
    let left = processesOfHome(this.home);
    for (let i = 0; i < 20 && left.length > 0; i++) {
      await sleep(100);
      left = processesOfHome(this.home);
    }
    await rm(this.home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    return left;
  }
}

/**
 * The pids of the live processes whose environment carries DAGU_HOME=`home` (runs, steps): only processes
 * this cluster's processes started can have it, since the home is a fresh temp directory. Zombies do not
 * count: they are dead and only wait for their parent.
 */
function processesOfHome(home: string): number[] {
  const marker = Buffer.from(`DAGU_HOME=${home}\0`);
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) continue;
      if (readFileSync(`/proc/${pid}/environ`).includes(marker)) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Polls `probe` until the process is ready; fails at once (with its output) if the process exits. */
async function waitReady(p: DaguProcess, probe: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (!p.running) {
      await p.exited;
      throw new Error(`e2e: ${p.kind} ${p.name} exited before it was ready:\n${p.tail()}`);
    }
    try {
      if (await probe()) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      throw new Error(`e2e: ${p.kind} ${p.name} not ready within ${READY_TIMEOUT_MS} ms:\n${p.tail()}`);
    }
    await sleep(100);
  }
}

/** Polls `fn` until it returns something truthy; the error names what was awaited. */
export async function poll<T>(
  what: string,
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`e2e: no ${what} within ${timeoutMs} ms${lastError ? ` (${String(lastError)})` : ''}`);
    }
    await sleep(everyMs);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
