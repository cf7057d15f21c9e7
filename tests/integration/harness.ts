// Helpers for tests that run the real `bin/dagu`: a temp DAGU_HOME, free ports, and processes that are
// always stopped when the test ends.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
export { freePort } from '../../server/testing/freePort';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const DAGU = path.join(ROOT, 'bin', 'dagu');

export interface TempHome {
  home: string;
  dags: string;
  env: NodeJS.ProcessEnv;
  writeDag(name: string, yaml: string): string;
  cleanup(): void;
}

/** A fresh DAGU_HOME with short timings; `extraEnv` overrides them. */
export function tempHome(extraEnv: Record<string, string> = {}): TempHome {
  const home = mkdtempSync(path.join(tmpdir(), 'dagu-it-'));
  const dags = path.join(home, 'dags');
  mkdirSync(dags, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Schedules without CRON_TZ= are read in the host's zone: UTC here, whatever the machine's.
    TZ: 'UTC',
    DAGU_HOME: home,
    DAGU_LOG_FORMAT: 'json',
    DAGU_SCHEDULER_PORT: '0',
    DAGU_RUN_KILL_GRACE: '1s',
    DAGU_RUN_HEARTBEAT_INTERVAL: '500ms',
    DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s',
    DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL: '500ms',
    ...extraEnv,
  };
  return {
    home,
    dags,
    env,
    writeDag(name, yaml) {
      const file = path.join(dags, `${name}.yaml`);
      writeFileSync(file, yaml);
      if (env.DAGU_STORAGE_BACKEND === 'postgres') pushDagsSync(dags, env);
      return file;
    },
    cleanup() {
      // Runs outlive their scheduler by design: end every process of this home before removing it.
      killProcessesWithHome(home);
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/**
 * On PostgreSQL the DAGs live in the database and `dags/` is not read: a test's DAG files go there as an
 * operator's do, with `dagu dags push`.
 */
function pushDagsSync(dags: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync(process.execPath, [DAGU, 'dags', 'push', dags], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (r.status !== 0) throw new Error(`dagu dags push ${dags} failed (${r.status}): ${r.stderr}`);
}

/** SIGKILLs every process (runs, spares, steps) whose environment has DAGU_HOME=`home`. */
export function killProcessesWithHome(home: string): void {
  const marker = Buffer.from(`DAGU_HOME=${home}\0`);
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`).includes(marker)) process.kill(pid, 'SIGKILL');
    } catch {
      /* gone, or not ours to read */
    }
  }
}

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `dagu <args>` to completion (killed after timeoutMs). */
export function dagu(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DAGU, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A long-running `dagu` process (scheduler, server) that the test must stop with `stop()`. */
export interface Service {
  child: ChildProcess;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with what `check` returns once it is truthy, checked at each new piece of output. */
  waitUntil<T>(check: () => T | null | undefined | false, timeoutMs: number, what: string): Promise<T>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Collects a child's stdout and stderr and lets a test wait for a line to appear in them. */
export function watchOutput(child: ChildProcess): Pick<Service, 'output' | 'waitFor' | 'waitUntil'> {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const waitUntil = <T>(check: () => T | null | undefined | false, timeoutMs: number, what: string) =>
    new Promise<T>((resolve, reject) => {
      const listener = () => {
        const value = check();
        if (!value) return;
        listeners.delete(listener);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(new Error(`timed out waiting for ${what}; ${describeOutput(out)}`));
      }, timeoutMs);
      listeners.add(listener);
      listener();
    });
  return {
    output: () => out,
    waitUntil,
    waitFor: (pattern, timeoutMs = 20_000) =>
      waitUntil(() => pattern.test(out), timeoutMs, String(pattern)).then(() => undefined),
  };
}

/**
 * A long output shown in a failure message: its last lines matter most (CI logs keep only the head of a
 * long message), so they come first, followed by the whole text.
 */
function describeOutput(out: string): string {
  const lines = out.trimEnd().split('\n');
  if (lines.length <= 30) return `output:\n${out}`;
  return `last 30 of ${lines.length} output lines:\n${lines.slice(-30).join('\n')}\n-- whole output:\n${out}`;
}

/** One JSON log record of a `dagu` process (DAGU_LOG_FORMAT=json), with its own time stamp in ms. */
export interface LogRecord {
  msg: string;
  /** The record's `time`, on the clock of the process that wrote it. */
  timeMs: number;
  fields: Record<string, unknown>;
}

/** The JSON log records in `output` whose message matches `pattern`, oldest first. */
export function logRecords(output: string, pattern: RegExp): LogRecord[] {
  const records: LogRecord[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a line still being written
    }
    if (typeof fields.msg !== 'string' || !pattern.test(fields.msg)) continue;
    records.push({ msg: fields.msg, timeMs: Date.parse(String(fields.time)), fields });
  }
  return records;
}

/**
 * Waits for the first JSON log record whose message matches `pattern` and returns it. Tests that bound how
 * long something took compare these time stamps, which the process wrote when the event happened, rather
 * than the moment the test got round to noticing it.
 */
export function waitForLog(
  svc: Pick<Service, 'output' | 'waitUntil'>,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<LogRecord> {
  // Only complete lines are parsed, each once.
  let scanned = 0;
  let found: LogRecord | undefined;
  return svc.waitUntil(
    () => {
      const out = svc.output();
      const end = out.lastIndexOf('\n') + 1;
      if (!found && end > scanned) {
        found = logRecords(out.slice(scanned, end), pattern)[0];
        scanned = end;
      }
      return found;
    },
    timeoutMs,
    `a JSON log record whose message matches ${pattern}`,
  );
}

/** Sends `signal`, then SIGKILL after 12 s, and resolves with the exit code. */
export async function stopWith(
  kill: (s: NodeJS.Signals) => void,
  running: () => boolean,
  exited: Promise<number | null>,
  signal: NodeJS.Signals,
) {
  if (running()) kill(signal);
  const t = setTimeout(() => kill('SIGKILL'), 12_000);
  const code = await exited;
  clearTimeout(t);
  return code;
}

/**
 * Starts `dagu <args>`; `maxOpenFiles` runs it under that limit of open files (`ulimit -n`, as a service
 * unit's LimitNOFILE would).
 */
export function startService(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { maxOpenFiles?: number } = {},
): Service {
  const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
  const child =
    opts.maxOpenFiles === undefined
      ? spawn(process.execPath, [DAGU, ...args], { env, stdio })
      : spawn(
          'bash',
          ['-c', `ulimit -n ${opts.maxOpenFiles} && exec "$0" "$@"`, process.execPath, DAGU, ...args],
          { env, stdio },
        );
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return {
    child,
    ...watchOutput(child),
    stop: (signal = 'SIGTERM') =>
      stopWith(
        (s) => child.kill(s),
        () => child.exitCode === null && child.signalCode === null,
        exited,
        signal,
      ),
  };
}

/** Polls `fn` until it returns a truthy value or the timeout passes. */
export async function eventually<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 20_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Kills every process of a process group, ignoring one that is already gone. */
export function killGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** PIDs of the `dagu __spare-run` processes in the process tree under `root`. */
export function sparePids(root: number): number[] {
  // Descendants, not only children: the scheduler starts its spares through its launch relay.
  const rows = spawnSync('ps', ['-eo', 'pid,ppid,args'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((l) => l.trim().split(/\s+/));
  const under = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const f of rows) {
      if (under.has(Number(f[1])) && !under.has(Number(f[0]))) {
        under.add(Number(f[0]));
        grew = true;
      }
    }
  }
  return rows
    .filter((f) => Number(f[0]) !== root && under.has(Number(f[0])) && f.includes('__spare-run'))
    .map((f) => Number(f[0]));
}

/** Whether a process with this PID exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The text of every file under `root`'s `dirs`, keyed by its path relative to `root`. */
export function filesUnder(root: string, dirs: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(path.relative(root, p), readFileSync(p, 'utf8'));
    }
  };
  for (const dir of dirs) walk(path.join(root, dir));
  return out;
}

/**
 * A temp DAGU_HOME for each test of the file and the services the test starts on it (push them to
 * `services`): every service is killed and the home removed after each test.
 */
export function homeWithServices(extraEnv: Record<string, string> = {}): {
  h: TempHome;
  services: Service[];
} {
  const ctx = { h: undefined as unknown as TempHome, services: [] as Service[] };
  beforeEach(() => {
    ctx.h = tempHome(extraEnv);
    ctx.services = [];
  });
  afterEach(async () => {
    await Promise.all(ctx.services.map((s) => s.stop('SIGKILL')));
    ctx.h.cleanup();
  });
  return ctx;
}

/** A DAG's runs in a home, newest first, read from its run store as the product does. */
export async function runsOf<T>(home: string, dag: string, limit = 500): Promise<T[]> {
  const { FileRunStore } = await import('../../server/store/fileRunStore');
  const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
  return (await store.listRuns({ dag, limit })).items as T[];
}
