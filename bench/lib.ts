// Shared helpers for the benchmarks: temp homes, real `bin/dagu` processes, percentiles, RSS, and figures
// printed next to their targets (a bench exits non-zero when one is missed).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
export { freePort } from '../server/testing/freePort';

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
    cleanup: () => {
      // The scheduler's pre-started run processes and their runs leave its process tree (they start their own
      // sessions), so a bench stopped half-way would leave them running and skew every later figure: each
      // names this home on its command line.
      killProcessesNaming(home);
      rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** SIGKILLs every process of this machine whose command line contains `text` (a bench's temp home). */
export function killProcessesNaming(text: string): void {
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
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

/** The processes below `root` (children, their children, …), by walking the parent links in /proc. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // After the command name (which may hold spaces and parentheses): state, then the parent's pid.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/**
 * RSS of a process and every process below it, in MB: what a service costs the host, a pre-started run
 * process or a running run of the scheduler included. A process that ends while being read counts 0.
 */
export function treeRssMb(root: number): { mb: number; processes: number } {
  const pids = [root, ...descendants(root)];
  let mb = 0;
  for (const pid of pids) {
    try {
      mb += rssMb(pid) || 0;
    } catch {
      /* gone */
    }
  }
  return { mb, processes: pids.length };
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (user + system) of a process and every process below it, in ms, with the time of children that
 * already ended and were waited for (cutime, cstime): subtract two readings for the CPU used in between.
 */
export function treeCpuMs(root: number): number {
  let ticks = 0;
  for (const pid of [root, ...descendants(root)]) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After ") ": state is field 3; utime, stime, cutime, cstime are fields 14 to 17.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      /* gone */
    }
  }
  return (ticks * 1000) / USER_HZ;
}

/** The host's CPU time so far, busy and in all, in clock ticks (Linux /proc/stat, every core summed). */
export function hostCpuTicks(): { busy: number; all: number } {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const t = fields.map(Number);
  // user, nice, system, idle, iowait, irq, softirq, steal: idle and iowait are the time nothing ran.
  const all = t.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: all - t[3] - t[4], all };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

function formatValue(value: number): string {
  return Number.isFinite(value) ? (Math.round(value * 10) / 10).toString() : 'n/a';
}

/**
 * Prints one figure line that is held against no target (`check` does that): name, value, unit and a note
 * (`reference`, or a target that is not checked here).
 */
export function report(name: string, value: number, unit: string, target: string) {
  process.stdout.write(
    `${name.padEnd(48)} ${formatValue(value).padStart(9)} ${unit.padEnd(7)} (target ${target})\n`,
  );
}

/** A target a figure must meet: at most, at least or exactly a value; `why` says where it comes from. */
export type Target = ({ max: number } | { min: number } | { exactly: number }) & { why?: string };

interface Miss {
  name: string;
  value: string;
  target: string;
}

const misses: Miss[] = [];
let checked = 0;

function targetText(t: Target, unit: string): string {
  const [op, limit] = 'max' in t ? ['<=', t.max] : 'min' in t ? ['>=', t.min] : ['=', t.exactly];
  return `${op} ${formatValue(limit)}${unit ? ` ${unit}` : ''}${t.why ? ` (${t.why})` : ''}`;
}

function met(t: Target, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if ('max' in t) return value <= t.max;
  if ('min' in t) return value >= t.min;
  return value === t.exactly;
}

/**
 * Prints a figure next to its target, with `ok` or `MISSED`; a figure that could not be measured (NaN) is
 * missed. Returns whether it met the target. `finish()` sums them up and sets the exit code.
 */
export function check(name: string, value: number, unit: string, target: Target): boolean {
  const ok = met(target, value);
  const text = targetText(target, unit);
  checked += 1;
  if (!ok) misses.push({ name: name.trim(), value: `${formatValue(value)} ${unit}`.trim(), target: text });
  process.stdout.write(
    `${name.padEnd(48)} ${formatValue(value).padStart(9)} ${unit.padEnd(7)} (target ${text}) ${ok ? 'ok' : 'MISSED'}\n`,
  );
  return ok;
}

/** Records a target missed without a figure (the measurement itself failed), and prints why. */
export function missed(name: string, why: string): void {
  checked += 1;
  misses.push({ name, value: 'not measured', target: why });
  process.stdout.write(`${name.padEnd(48)} MISSED: ${why}\n`);
}

/** Prints how many targets were met and which were missed; a miss makes the process exit 1. */
export function finish(): void {
  if (misses.length === 0) {
    process.stdout.write(`all ${checked} targets met\n`);
    return;
  }
  process.stdout.write(`\n${misses.length} of ${checked} targets MISSED:\n`);
  for (const m of misses) process.stdout.write(`  ${m.name}: ${m.value}, target ${m.target}\n`);
  process.exitCode = 1;
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
