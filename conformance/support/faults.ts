// Fault injection for conformance tests that run the real `bin/dagu`: a FUSE mount whose storage can stall,
// fail or slow down on command (faultfs.py), per-process clocks under faketime, and a check for the tools.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DAGU, stopWith, watchOutput, type Service } from '../../tests/integration/harness';

const FAULTFS = path.join(import.meta.dirname, 'faultfs.py');
/** Debian's fusepy is only importable by the system interpreter, not by a pyenv shim found on PATH. */
const PYTHON = '/usr/bin/python3';
/** The Debian packages that provide every tool used here. */
export const FAULT_TOOLS_INSTALL = 'apt-get install -y fuse3 python3-fusepy faketime';

/** A faultfs mount over a backing directory; `set` switches its fault mode (see faultfs.py). */
export interface FaultFs {
  /** The mount point: give it to the process under test, never touch it from the test process. */
  mnt: string;
  backing: string;
  /**
   * Switches the mode (`normal`, `stall path=/data`, `eio ops=rename`, `delay 200`...). The control file is
   * rewritten with sync calls before this returns, so it works while the thread pool is full; the promise
   * resolves once the daemon reports the switch (at most ~20 ms later).
   */
  set(mode: string): Promise<void>;
  /** What the daemon printed (mode switches, errors). */
  log(): string;
  /** Releases stalled callers, unmounts (lazily if still busy) and stops the daemon. Stop hosts first. */
  unmount(): Promise<void>;
}

/** Whether the FUSE and faketime tools exist; if not, a message naming the missing ones and the fix. */
export function faultToolsAvailable(): { ok: true } | { ok: false; message: string } {
  const missing: string[] = [];
  if (!existsSync('/dev/fuse')) missing.push('/dev/fuse (the FUSE kernel device)');
  for (const tool of ['fusermount3', 'mountpoint', 'faketime']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) missing.push(tool);
  }
  if (spawnSync(PYTHON, ['-c', 'import fusepy']).status !== 0)
    missing.push(`${PYTHON} with the fusepy module`);
  if (missing.length === 0) return { ok: true };
  return {
    ok: false,
    message: `fault-injection tools missing: ${missing.join(', ')}. Install them: ${FAULT_TOOLS_INSTALL}`,
  };
}

/** `argv` run under libfaketime, e.g. `withFaketime('+1h', ['node', 'bin/dagu', 'scheduler'])`. */
export function withFaketime(spec: string, argv: string[]): string[] {
  // -m: the multi-threaded library, which Node (libuv threads, workers) needs; -f: a spec `faketime` itself
  // would otherwise hand to `date -d`, which rejects '+1h'.
  return ['faketime', '-m', '-f', spec, ...argv];
}

/** The argv that starts `bin/dagu <args>` with this test process's Node. */
export function daguArgv(args: string[]): string[] {
  return [process.execPath, DAGU, ...args];
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

function isMounted(dir: string): boolean {
  return spawnSync('mountpoint', ['-q', dir]).status === 0;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

/** Mounts faultfs over `backingDir` on a fresh mount point, in normal mode; rejects if not mounted in 5 s. */
export async function mountFaultFs(backingDir: string): Promise<FaultFs> {
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-faultfs-'));
  const mnt = path.join(dir, 'mnt');
  const ctl = path.join(dir, 'ctl');
  mkdirSync(mnt);
  writeFileSync(ctl, 'normal\n');
  const daemon = spawn(PYTHON, [FAULTFS, backingDir, mnt, ctl], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    log += d.toString();
    for (const l of listeners) l();
  };
  daemon.stdout!.on('data', onData);
  daemon.stderr!.on('data', onData);
  const gone = exited(daemon);

  const deadline = Date.now() + 5000;
  while (!isMounted(mnt)) {
    if (daemon.exitCode !== null || Date.now() > deadline) {
      daemon.kill('SIGKILL');
      await gone;
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`faultfs did not mount ${mnt} over ${backingDir}:\n${log}`);
    }
    await sleep(25);
  }

  let current = 'normal';
  const set = (mode: string): Promise<void> => {
    const line = mode.trim() || 'normal';
    if (line === current) return Promise.resolve();
    current = line;
    // Sync on purpose: with the pool full of stalled calls, an async write would queue behind them.
    writeFileSync(`${ctl}.tmp`, `${line}\n`);
    renameSync(`${ctl}.tmp`, ctl);
    const echo = `faultfs: ${line}\n`;
    const from = log.length;
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!log.includes(echo, from) && daemon.exitCode === null) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`faultfs did not switch to "${line}" within 2 s:\n${log}`));
      }, 2000);
      listeners.add(check);
      check();
    });
  };

  const fusermount = (...args: string[]) => spawnSync('fusermount3', [...args, mnt], { encoding: 'utf8' });
  const unmount = async () => {
    if (daemon.exitCode === null) await set('normal').catch(() => undefined);
    if (isMountedQuietly(mnt)) {
      // Callers released from a stall (or processes a host left behind) may still hold files for a moment.
      const until = Date.now() + 2000;
      while (fusermount('-u').status !== 0 && Date.now() < until) await sleep(100);
      if (isMountedQuietly(mnt) && fusermount('-u', '-z').status !== 0) {
        daemon.kill('SIGKILL');
        await gone;
        fusermount('-u');
      }
    }
    const killer = setTimeout(() => daemon.kill('SIGKILL'), 3000);
    await gone;
    clearTimeout(killer);
    // Runs the scheduler started live on in their own session (as they must) and may still be writing their
    // end into the backing directory, released from the stall: a removal racing them finds a directory not
    // empty (seen once under a CPU hog). Node tries again, for up to about 2 s.
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 40 });
  };

  return { mnt, backing: backingDir, set, log: () => log, unmount };
}

/** Like isMounted, but reads /proc/mounts: it never stats the mount point, so a stall cannot hang it. */
function isMountedQuietly(mnt: string): boolean {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === mnt);
}

/** A long-running process started through a wrapper (faketime); signals go to the wrapped process itself. */
export interface WrappedService extends Service {
  /** The PID of the wrapped process (node), not of the wrapper. */
  pid: number;
}

/**
 * Starts `argv` (for example `withFaketime('+1h', daguArgv(['scheduler']))`) and finds the process the
 * wrapper forked. faketime forks rather than execs and forwards no signals, so `stop` and a kill -9 must
 * target that child; the wrapper exits after it and removes its shared memory.
 */
export async function startWrappedService(argv: string[], env: NodeJS.ProcessEnv): Promise<WrappedService> {
  const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const watched = watchOutput(child);
  const exitCode = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const wrapper = child.pid!;
  let pid = 0;
  const deadline = Date.now() + 5000;
  while (pid === 0) {
    const children = readChildren(wrapper);
    if (children.length > 0) pid = children[0];
    else if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`${argv.join(' ')} started no child process:\n${watched.output()}`);
    else await sleep(10);
  }
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    child,
    pid,
    ...watched,
    stop: (sig = 'SIGTERM') =>
      stopWith(signal, () => child.exitCode === null && child.signalCode === null, exitCode, sig),
  };
}

function readChildren(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}
