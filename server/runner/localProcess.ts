// Processes of this host: whether one is alive, killing one outright, and starting and watching the helper
// processes that connect back to the scheduler (spares, run lanes).

import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { mkdir } from '../store/fileCalls';
import { randomHex } from '../store/randomHex';
import type { LaunchRelay } from './launchRelay';

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

/**
 * Starts `dagu <command> <its log> <socket> <token>` (a spare, a run lane) to connect back to `socketPath`:
 * through the relay when there is one, else from this process. Its output goes to a new file under `logDir`
 * named `<command word>-<random>.log`; the token tells its connection from any other (the socket's directory is
 * this user's alone). Null, with nothing started, when `wanted()` says no once the file is made; `pid` is null
 * when it could not be started.
 */
export async function startHelper(o: {
  executable: string;
  env: NodeJS.ProcessEnv;
  relay?: LaunchRelay | null;
  command: string;
  logName: string;
  logDir: string;
  socketPath: string;
  wanted: () => boolean;
}): Promise<{ pid: number | null; log: string; token: string; argv: string[] } | null> {
  await mkdir(o.logDir, true);
  const log = path.join(o.logDir, `${o.logName}-${randomHex(6)}.log`);
  const token = randomHex(16);
  const argv = [process.execPath, o.executable, o.command, log, o.socketPath, token];
  if (!o.wanted()) return null;
  const pid = o.relay ? await o.relay.launch(argv, log) : await spawnDetachedTo(argv, log, o.env);
  return { pid, log, token, argv };
}
