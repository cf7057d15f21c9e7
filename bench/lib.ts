// Shared helpers for the benchmarks: temp homes, real `bin/dagu` processes, percentiles and RSS.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const DAGU = path.join(ROOT, 'bin', 'dagu');

export function tempHome(extra: Record<string, string> = {}) {
  const home = mkdtempSync(path.join(tmpdir(), 'dagu-bench-'));
  mkdirSync(path.join(home, 'dags'), { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DAGU_HOME: home,
    DAGU_LOG_FORMAT: 'json',
    DAGU_LOG_LEVEL: 'warn',
    DAGU_SCHEDULER_PORT: '0',
    ...extra,
  };
  return {
    home,
    env,
    writeDag: (name: string, yaml: string) => writeFileSync(path.join(home, 'dags', `${name}.yaml`), yaml),
    cleanup: () => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }),
  };
}

export function runSync(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [DAGU, ...args], { env, encoding: 'utf8' });
}

export function startProcess(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [DAGU, ...args], { env, stdio: 'ignore' });
}

export async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.on('exit', r));
  child.kill('SIGTERM');
  await done;
}

export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[i];
}

export const median = (v: number[]) => percentile(v, 50);

/** Resident set size of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export async function waitHttp(url: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Prints one figure line: name, value, unit and the target it is held against. */
export function report(name: string, value: number, unit: string, target: string) {
  const v = Number.isFinite(value) ? (Math.round(value * 10) / 10).toString() : 'n/a';
  process.stdout.write(`${name.padEnd(48)} ${v.padStart(9)} ${unit.padEnd(7)} (target ${target})\n`);
}

/** A `dagu` process a benchmark started, with the last lines it wrote. */
export interface TrackedProcess {
  child: ChildProcess;
  exited: Promise<void>;
  /** The last lines the process wrote, for the error message when something goes wrong. */
  tail(): string;
}

/**
 * Starts `dagu <args>` with its output kept (the last 20 lines), and keeps it in `live` until it exits, so
 * the benchmark can kill whatever is left on Ctrl-C or at exit.
 */
export function startTracked(
  args: string[],
  env: NodeJS.ProcessEnv,
  live: Set<ChildProcess>,
): TrackedProcess {
  const child = spawn(process.execPath, [DAGU, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const lines: string[] = [];
  const keep = (d: Buffer) => {
    lines.push(...d.toString().split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - 20));
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((r) =>
    child.once('exit', () => {
      live.delete(child);
      r();
    }),
  );
  return { child, exited, tail: () => lines.join('\n') };
}
