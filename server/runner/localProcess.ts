// Processes of this host, by pid: whether one is alive, and killing one outright.

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
