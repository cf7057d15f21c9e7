// Starts a child process whose output goes straight to open files: a step's shell, a local sub-DAG run.
// A thin layer over child_process.spawn: it gives both callers one shape of result (a pid and a promise
// of how the child ended, never an 'error' event to forget) and refuses NUL characters with a message
// that names the argument.

import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';

export interface ProcessSpec {
  /** The program, looked up in PATH when it has no slash; it is also the child's argv[0]. */
  file: string;
  args: readonly string[];
  cwd?: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Leader of a new process group (and session), so that signals can reach the whole group. */
  detached: boolean;
  /**
   * Descriptors the child gets as its stdout and stderr (its stdin is /dev/null), or `'pipe'` for a pipe
   * this process reads from `SpawnedProcess.stdout`/`stderr`.
   */
  stdoutFd: number | 'pipe';
  stderrFd: number | 'pipe';
}

/** How a child ended. `exitCode` is null when a signal killed it. */
export type ProcessEnd =
  | { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null }
  | { kind: 'spawn_failed'; error: string };

export interface SpawnedProcess {
  /** Null when the process could not be started (`exited` then says why). */
  pid: number | null;
  exited: Promise<ProcessEnd>;
  /** The read ends of the pipes asked for with `'pipe'`, else null. */
  stdout: Readable | null;
  stderr: Readable | null;
}

/**
 * Starts `spec`. Never throws for a program that cannot be run: `exited` resolves `spawn_failed` with
 * child_process's error (`spawn sh ENOENT`). Throws for an argument or variable holding a NUL character,
 * which no process can be given.
 */
export function spawnProcess(spec: ProcessSpec): SpawnedProcess {
  assertNoNul(spec);
  const child = spawn(spec.file, [...spec.args], {
    cwd: spec.cwd,
    // child_process leaves out the variables whose value is undefined.
    env: spec.env as NodeJS.ProcessEnv,
    detached: spec.detached,
    stdio: ['ignore', spec.stdoutFd, spec.stderrFd],
  });
  const exited = new Promise<ProcessEnd>((resolve) => {
    child.once('error', (err) => resolve({ kind: 'spawn_failed', error: err.message }));
    child.once('exit', (exitCode, signal) => resolve({ kind: 'exited', exitCode, signal }));
  });
  return { pid: child.pid ?? null, exited, stdout: child.stdout, stderr: child.stderr };
}

function assertNoNul(spec: ProcessSpec): void {
  const texts: Array<[string, string]> = [
    ['program', spec.file],
    ...spec.args.map((a, i): [string, string] => [`argument ${i + 1}`, a]),
  ];
  for (const [what, text] of texts) {
    if (text.includes('\0'))
      throw new Error(`cannot start ${spec.file}: its ${what} contains a NUL character`);
  }
  for (const [key, value] of Object.entries(spec.env)) {
    if (value !== undefined && `${key}=${value}`.includes('\0')) {
      throw new Error(
        `cannot start a process: environment variable ${JSON.stringify(key)} contains a NUL character`,
      );
    }
  }
}
