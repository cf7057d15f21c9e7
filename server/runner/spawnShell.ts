// Runs one process of a step as its own process group, with stdout/stderr going to the step's log files
// (straight, or through a pipe when a step `stdout:`/`stderr:` file must receive a copy), and stops it:
// a polite stop (a signal to the group, resent, then SIGKILL after the clean-up time) or a kill (SIGKILL
// to the whole group at once, for timeouts).

import { pipeline } from 'node:stream/promises';
import { superviseChild } from './children';
import { teeSink, type OutputCapture } from './outputCapture';
import { groupAlive, signalGroup, waitGroupGone } from './processGroup';
import type { SecretMask } from './secretMask';
import { spawnProcess, type ProcessEnd } from './spawnProcess';

/** How one shell invocation ended. `exitCode` is null when the shell was killed by a signal. */
export type ShellExit = ProcessEnd;

export interface ShellInvocation {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Open file descriptors the child's output goes to (the same one for a merged log). */
  stdoutFd: number;
  stderrFd: number;
  /** More descriptors that receive a copy of stdout / stderr; then the output flows through a pipe. */
  stdoutTee?: readonly number[];
  stderrTee?: readonly number[];
  /** Receives stdout too (the step's `output:`); then stdout flows through a pipe. */
  stdoutCapture?: OutputCapture | null;
  /** Receives stderr too (a structured output reading stderr); then stderr flows through a pipe. */
  stderrCapture?: OutputCapture | null;
  /** The run's secret values, masked in both streams (which then flow through pipes). */
  mask?: SecretMask | null;
}

/** How to stop a running invocation politely. */
export interface StopPlan {
  /** The first signal to the group. */
  signal: NodeJS.Signals;
  /** The signal resent every `resendEveryMs` while the group lives (Dagu resends the run's own signal). */
  resendSignal?: NodeJS.Signals;
  /** After this long, the group gets SIGKILL. */
  graceMs: number;
  resendEveryMs?: number;
}

/** A running invocation. `stop`/`kill` are idempotent; `exited` settles once the group is gone or killed. */
export interface ShellHandle {
  pid: number | null;
  exited: Promise<ShellExit>;
  stop(plan: StopPlan): void;
  /** SIGKILL to the whole group now. */
  kill(): void;
}

/** How long to wait for a SIGKILLed group to disappear before giving up (zombies whose reaper is slow). */
const AFTER_KILL_WAIT_MS = 1000;
const RESEND_EVERY_MS = 5000;

export function spawnShell(inv: ShellInvocation): ShellHandle {
  const mask = inv.mask && !inv.mask.empty ? inv.mask : null;
  const teeOut = (inv.stdoutTee ?? []).length > 0 || !!inv.stdoutCapture || mask !== null;
  const teeErr = (inv.stderrTee ?? []).length > 0 || !!inv.stderrCapture || mask !== null;
  const child = spawnProcess({
    file: inv.file,
    args: inv.args,
    cwd: inv.cwd,
    env: inv.env,
    // Own process group: the runner decides when steps get signals (a terminal's Ctrl-C must not hit
    // them directly), and the group can be killed as a whole.
    detached: true,
    stdoutFd: teeOut ? 'pipe' : inv.stdoutFd,
    stderrFd: teeErr ? 'pipe' : inv.stderrFd,
  });
  const { pid } = child;
  const pumps: Array<Promise<void>> = [];
  if (child.stdout) {
    pumps.push(pump(child.stdout, [inv.stdoutFd, ...(inv.stdoutTee ?? [])], inv.stdoutCapture ?? null, mask));
  }
  if (child.stderr) {
    pumps.push(pump(child.stderr, [inv.stderrFd, ...(inv.stderrTee ?? [])], inv.stderrCapture ?? null, mask));
  }

  let stopDeadline: number | null = null;
  const timers: NodeJS.Timeout[] = [];
  const arm = (fn: () => void, ms: number, repeat: boolean) => {
    const t = repeat ? setInterval(fn, ms) : setTimeout(fn, ms);
    t.unref();
    timers.push(t);
  };

  // When we stopped the step, the shell exiting is not enough: children that ignore the first signal
  // may still be around, and they get SIGKILL once the grace period is over.
  const exited = child.exited.then(async (result) => {
    if (pid !== null && stopDeadline !== null) {
      const gone = await waitGroupGone(pid, stopDeadline);
      if (!gone) {
        signalGroup(pid, 'SIGKILL');
        await waitGroupGone(pid, performance.now() + AFTER_KILL_WAIT_MS);
      }
    }
    // A copy still flowing through a pipe ends when the last writer of the group is gone.
    await Promise.all(pumps);
    for (const t of timers) clearTimeout(t);
    return result;
  });
  superviseChild(exited);

  const kill = () => {
    if (pid === null) return;
    stopDeadline = performance.now();
    signalGroup(pid, 'SIGKILL');
  };
  return {
    pid,
    exited,
    kill,
    stop(plan) {
      if (pid === null || stopDeadline !== null) return;
      stopDeadline = performance.now() + plan.graceMs;
      if (!signalGroup(pid, plan.signal)) return;
      const resend = plan.resendSignal ?? plan.signal;
      arm(
        () => {
          if (groupAlive(pid)) signalGroup(pid, resend);
        },
        plan.resendEveryMs ?? RESEND_EVERY_MS,
        true,
      );
      arm(
        () => {
          if (groupAlive(pid)) signalGroup(pid, 'SIGKILL');
        },
        plan.graceMs,
        false,
      );
    },
  };
}

/** Copies a child's pipe into every descriptor in order; a failing write ends the copy (the rest is drained). */
async function pump(
  source: NodeJS.ReadableStream,
  fds: readonly number[],
  capture: OutputCapture | null,
  mask: SecretMask | null,
): Promise<void> {
  await pipeline(source, teeSink(fds, capture, mask)).catch(() => {
    source.resume();
  });
}
