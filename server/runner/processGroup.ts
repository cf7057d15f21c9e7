// Signals to a step's whole process group. Every step is spawned as its own group leader, so killing the
// group also reaches the grandchildren a shell leaves behind (`sleep 30 &`), which killing the shell would not.

import { readdirSync, readFileSync } from 'node:fs';

/** Sends `signal` to the process group led by `pid`; false if the group no longer exists. */
export function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return false;
    // EPERM: a member changed its credentials (setuid); it exists but we cannot touch it.
    if (code === 'EPERM') return true;
    throw err;
  }
}

/**
 * True while a process of the group is alive. Killed grandchildren are orphans whose zombies only go away
 * when init reaps them, and a container's PID 1 may never do that; so where /proc exists, zombies do not count.
 */
export function groupAlive(pid: number): boolean {
  if (!signalGroup(pid, 0)) return false;
  const members = liveGroupMembers(pid);
  return members === null || members.length > 0;
}

/** Live (non-zombie) processes of process group `pgid`, from /proc; null where there is no /proc. */
export function liveGroupMembers(pgid: number): number[] | null {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue; // not a digit: not a process
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // After the parenthesised command name: state, ppid, pgrp, ...
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(entry));
  }
  return members;
}

const POLL_MS = 25;

/** Polls until the group is gone or `deadlineMono` (performance.now() scale) passes; true if it is gone. */
export async function waitGroupGone(pid: number, deadlineMono: number): Promise<boolean> {
  for (;;) {
    if (!groupAlive(pid)) return true;
    if (performance.now() >= deadlineMono) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
