// Per-host storage for the soak's schedulers: one faultfs mount per scheduler "host" over the one shared home,
// bound over the home's own path inside a private mount namespace. Every process then sees the data directory
// at the same absolute path (it is part of each slot's run ID), while a fault on one host's mount stalls or
// fails only that host's file calls, the scheduler's and those of the runs it started.

import { mountFaultFs, type FaultFs } from '../../conformance/support/faults';

export interface HostStorage {
  /** The host's faultfs mount (its `set` switches the fault mode). */
  fs: FaultFs;
  /** argv of `dagu scheduler` on this host: in its own mount namespace, the mount bound over `home`. */
  schedulerArgv(): string[];
}

/** Mounts faultfs over `home` for one scheduler host, whose scheduler is started with the launcher `dagu`. */
export async function mountHostStorage(home: string, dagu: string): Promise<HostStorage> {
  const fs = await mountFaultFs(home);
  // unshare -m without --fork execs: the shell, then node, keep the PID that the supervisor signals.
  // Mounts made in the new namespace are private to it (unshare's default propagation).
  const script = 'mount --bind "$1" "$2" && exec "$3" "$4" scheduler';
  return {
    fs,
    schedulerArgv: () => ['unshare', '-m', 'sh', '-c', script, 'sh', fs.mnt, home, process.execPath, dagu],
  };
}
