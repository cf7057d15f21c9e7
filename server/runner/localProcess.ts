// Processes of this host: whether one is alive, killing one outright, and starting and watching the helper
// processes that connect back to the scheduler (spares, run lanes).

import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';

/** True when `pid` names a live process on this host (one of another user's counts as alive). */
export function isLocalProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILL to `pid`; nothing when it is gone already. */
export function killNow(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

/**
 * Starts `argv` detached (its own session and process group: it outlives this process), its output
 * appended to `log` from its first instruction. Its pid, or null when it could not be started.
 */
export async function spawnDetachedTo(
  argv: string[],
  log: string,
  env: NodeJS.ProcessEnv,
): Promise<number | null> {
  const out = await open(log, 'a');
  try {
    const child = spawn(argv[0], argv.slice(1), { env, detached: true, stdio: ['ignore', out.fd, out.fd] });
    child.once('error', () => undefined); // spawn failures are reported through the pid
    child.unref();
    return child.pid ?? null;
  } finally {
    await out.close();
  }
}

/**
 * Watches a process started to connect back (a spare, a run lane) while `waiting()` says it has not: once it
 * has exited, or has not connected within `timeoutMs` (it is then killed), the watch ends and `gone` is told
 * why. The caller clears the returned timer when the process connects.
 */
export function watchConnectBack(
  pid: number,
  timeoutMs: number,
  waiting: () => boolean,
  gone: (why: string) => void,
): ReturnType<typeof setInterval> {
  const startedAt = Date.now();
  const timer = setInterval(() => {
    if (!waiting()) return;
    const late = Date.now() - startedAt > timeoutMs;
    if (isLocalProcessAlive(pid) && !late) return;
    clearInterval(timer);
    if (late) killNow(pid);
    gone(late ? 'it did not connect back in time' : 'it exited before it connected');
  }, 200);
  timer.unref();
  return timer;
}
