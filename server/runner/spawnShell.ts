// Runs one shell invocation of a step as its own process group, with stdout/stderr going straight to the
// step's log files, and stops it (signal to the group, SIGKILL after a grace period) on request.

import { spawn } from 'node:child_process';
import { superviseChild } from './children';
import { groupAlive, signalGroup, waitGroupGone } from './processGroup';

/** How one shell invocation ended. `exitCode` is null when the shell was killed by a signal. */
export type ShellExit =
  | { kind: 'exited'; exitCode: number | null; signal: NodeJS.Signals | null }
  | { kind: 'spawn_failed'; error: string };

export interface ShellInvocation {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Open file descriptors the child writes to directly (no pipe through this process). */
  stdoutFd: number;
  stderrFd: number;
}

/** A running shell invocation. `stop` is idempotent; `exited` settles once the whole group is gone or killed. */
export interface ShellHandle {
  pid: number | null;
  exited: Promise<ShellExit>;
  stop(signal: NodeJS.Signals, graceMs: number): void;
}

/** How long to wait for a SIGKILLed group to disappear before giving up (zombies whose reaper is slow). */
const AFTER_KILL_WAIT_MS = 1000;

export function spawnShell(inv: ShellInvocation): ShellHandle {
  const child = spawn(inv.file, inv.args, {
    cwd: inv.cwd,
    env: inv.env,
    // Own process group: the runner decides when steps get signals (a terminal's Ctrl-C must not hit
    // them directly), and the group can be killed as a whole.
    detached: true,
    stdio: ['ignore', inv.stdoutFd, inv.stderrFd],
  });
  const pid = child.pid ?? null;
  let stopDeadline: number | null = null;
  let killTimer: NodeJS.Timeout | null = null;

  const exitedRaw = new Promise<ShellExit>((resolve) => {
    child.once('error', (err) => resolve({ kind: 'spawn_failed', error: err.message }));
    child.once('exit', (exitCode, signal) => resolve({ kind: 'exited', exitCode, signal }));
  });

  // When we stopped the step, the shell exiting is not enough: children that ignore the first signal
  // may still be around, and they get SIGKILL once the grace period is over.
  const exited = exitedRaw.then(async (result) => {
    if (pid !== null && stopDeadline !== null) {
      const gone = await waitGroupGone(pid, stopDeadline);
      if (!gone) {
        signalGroup(pid, 'SIGKILL');
        await waitGroupGone(pid, performance.now() + AFTER_KILL_WAIT_MS);
      }
    }
    if (killTimer) clearTimeout(killTimer);
    return result;
  });
  superviseChild(exited);

  return {
    pid,
    exited,
    stop(signal, graceMs) {
      if (pid === null || stopDeadline !== null) return;
      stopDeadline = performance.now() + graceMs;
      if (!signalGroup(pid, signal)) return;
      killTimer = setTimeout(() => {
        if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
      }, graceMs);
      killTimer.unref();
    },
  };
}
