// Runs one shell invocation of a step as its own process group, with stdout/stderr going straight to the
// step's log files, and stops it (signal to the group, SIGKILL after a grace period) on request.

import { superviseChild } from './children';
import { groupAlive, signalGroup, waitGroupGone } from './processGroup';
import { spawnProcess, type ProcessEnd } from './spawnProcess';

/** How one shell invocation ended. `exitCode` is null when the shell was killed by a signal. */
export type ShellExit = ProcessEnd;

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
  const { pid, exited: exitedRaw } = spawnProcess({
    file: inv.file,
    args: inv.args,
    cwd: inv.cwd,
    env: inv.env,
    // Own process group: the runner decides when steps get signals (a terminal's Ctrl-C must not hit
    // them directly), and the group can be killed as a whole.
    detached: true,
    stdoutFd: inv.stdoutFd,
    stderrFd: inv.stderrFd,
  });
  let stopDeadline: number | null = null;
  let killTimer: NodeJS.Timeout | null = null;

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
