// Starts a child process whose output goes straight to open files: a step's shell, a local sub-DAG run.
//
// Node's child_process module is made for children it talks to through pipes, and loading it also loads
// net, dgram and every stream class: about 5 ms of each `dagu start`, which uses none of them. These
// children need no pipe, so they are started through the process handle that child_process is itself built
// on (the same libuv spawn, SIGCHLD handling and exit callback). Where that handle cannot be had (a Node
// without `process.binding`, or one run with --pending-deprecation, which would print a warning for it),
// child_process starts them instead, with the same result.

import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { createRequire } from 'node:module';
import { getSystemErrorName } from 'node:util';

export interface ProcessSpec {
  /** The program, looked up in PATH when it has no slash; it is also the child's argv[0]. */
  file: string;
  args: readonly string[];
  cwd?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Leader of a new process group (and session), so that signals can reach the whole group. */
  detached: boolean;
  /** Descriptors the child gets as its stdout and stderr; its stdin is /dev/null. */
  stdoutFd: number;
  stderrFd: number;
}

/** How a child ended. `exitCode` is null when a signal killed it. */
export type ProcessEnd =
  | { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null }
  | { kind: 'spawn_failed'; error: string };

export interface SpawnedProcess {
  /** Null when the process could not be started (`exited` then says why). */
  pid: number | null;
  exited: Promise<ProcessEnd>;
}

/** The subset of Node's internal process handle (`process_wrap`) used here. */
interface ProcessHandle {
  pid?: number;
  onexit: ((exitStatus: number, termSignal: string) => void) | null;
  spawn(options: {
    file: string;
    args: string[];
    cwd?: string;
    envPairs: string[];
    stdio: ({ type: 'ignore' } | { type: 'fd'; fd: number })[];
    detached: boolean;
    windowsHide: boolean;
  }): number;
  close(): void;
}
type ProcessHandleClass = new () => ProcessHandle;

export type SpawnBackend = 'handle' | 'child_process';

let handleClass: ProcessHandleClass | null | undefined;

function processHandleClass(): ProcessHandleClass | null {
  if (handleClass !== undefined) return handleClass;
  handleClass = null;
  const pendingDeprecation =
    process.execArgv.includes('--pending-deprecation') ||
    /(^|\s)--pending-deprecation(\s|$)/.test(process.env.NODE_OPTIONS ?? '');
  const binding = (process as { binding?: (name: string) => unknown }).binding;
  if (!pendingDeprecation && typeof binding === 'function') {
    try {
      const wrap = binding.call(process, 'process_wrap') as { Process?: unknown };
      if (typeof wrap.Process === 'function') handleClass = wrap.Process as ProcessHandleClass;
    } catch {
      /* not available: child_process it is */
    }
  }
  return handleClass;
}

/** Which way `spawnProcess` starts children in this process (for tests and diagnostics). */
export function spawnBackend(): SpawnBackend {
  return processHandleClass() ? 'handle' : 'child_process';
}

/**
 * Starts `spec`. Never throws for a program that cannot be run: `exited` resolves `spawn_failed` with an
 * error like child_process's (`spawn sh ENOENT`). Throws for an argument or variable holding a NUL
 * character, which no process can be given.
 */
export function spawnProcess(spec: ProcessSpec, backend: SpawnBackend = spawnBackend()): SpawnedProcess {
  const envPairs = environmentPairs(spec.env);
  for (const [what, text] of [['program', spec.file], ...spec.args.map((a, i) => [`argument ${i + 1}`, a])]) {
    if (text.includes('\0'))
      throw new Error(`cannot start ${spec.file}: its ${what} contains a NUL character`);
  }
  const Handle = backend === 'handle' ? processHandleClass() : null;
  return Handle ? spawnWithHandle(Handle, spec, envPairs) : spawnWithChildProcess(spec);
}

function environmentPairs(env: ProcessSpec['env']): string[] {
  const pairs: string[] = [];
  for (const key of Object.keys(env)) {
    const value = env[key];
    if (value === undefined) continue;
    const pair = `${key}=${value}`;
    if (pair.includes('\0')) {
      throw new Error(
        `cannot start a process: environment variable ${JSON.stringify(key)} contains a NUL character`,
      );
    }
    pairs.push(pair);
  }
  return pairs;
}

function spawnWithHandle(Handle: ProcessHandleClass, spec: ProcessSpec, envPairs: string[]): SpawnedProcess {
  const handle = new Handle();
  let settle!: (end: ProcessEnd) => void;
  const exited = new Promise<ProcessEnd>((resolve) => (settle = resolve));
  handle.onexit = (exitStatus, termSignal) => {
    handle.close();
    settle(
      termSignal
        ? { kind: 'exited', exitCode: null, signal: termSignal as NodeJS.Signals }
        : { kind: 'exited', exitCode: exitStatus, signal: null },
    );
  };
  const err = handle.spawn({
    file: spec.file,
    args: [spec.file, ...spec.args],
    cwd: spec.cwd,
    envPairs,
    stdio: [{ type: 'ignore' }, { type: 'fd', fd: spec.stdoutFd }, { type: 'fd', fd: spec.stderrFd }],
    detached: spec.detached,
    windowsHide: true,
  });
  if (err !== 0) {
    handle.onexit = null;
    handle.close();
    settle({ kind: 'spawn_failed', error: `spawn ${spec.file} ${getSystemErrorName(err)}` });
    return { pid: null, exited };
  }
  return { pid: handle.pid ?? null, exited };
}

function spawnWithChildProcess(spec: ProcessSpec): SpawnedProcess {
  const { spawn } = nodeRequire()('node:child_process') as {
    spawn(file: string, args: string[], options: SpawnOptions): ChildProcess;
  };
  const child = spawn(spec.file, [...spec.args], {
    cwd: spec.cwd,
    env: spec.env as NodeJS.ProcessEnv,
    detached: spec.detached,
    stdio: ['ignore', spec.stdoutFd, spec.stderrFd],
  });
  const exited = new Promise<ProcessEnd>((resolve) => {
    child.once('error', (err) => resolve({ kind: 'spawn_failed', error: err.message }));
    child.once('exit', (exitCode, signal) => resolve({ kind: 'exited', exitCode, signal }));
  });
  return { pid: child.pid ?? null, exited };
}

function nodeRequire(): NodeJS.Require {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled: loaded only when needed
  if (typeof require === 'function') return require;
  return createRequire(import.meta.url);
}
