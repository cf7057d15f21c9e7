// Starts `dagu start ...` as a detached process: its own session and process group, not waited for, so the
// scheduler or web server that starts it can stop (or die) while the run keeps going.

import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/** What to start; `logFile` receives the process's stdout and stderr (appended), or they are discarded. */
export interface SpawnDetachedOptions {
  /** Script run by this Node binary (`process.execPath`), e.g. the bundled CLI. */
  executable: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile?: string | null;
  /**
   * An already open descriptor for stdout and stderr, instead of `logFile`: lets a caller open the file
   * asynchronously first, so a slow or stalled disk never blocks its event loop here. The caller closes it.
   */
  logFd?: number;
  cwd?: string;
}

export function spawnDetachedRun(o: SpawnDetachedOptions): { pid: number } {
  // The child gets its own copy of the descriptor; ours is closed right after the spawn either way.
  const opened = o.logFd === undefined && o.logFile ? openSync(o.logFile, 'a') : null;
  const fd = o.logFd ?? opened;
  try {
    const child = spawn(process.execPath, [o.executable, ...o.args], {
      env: o.env,
      cwd: o.cwd,
      // setsid(): a new session and process group, so a terminal's or a service manager's signal to the
      // parent's group does not reach the run.
      detached: true,
      stdio: ['ignore', fd ?? 'ignore', fd ?? 'ignore'],
    });
    if (child.pid === undefined) {
      // spawn reports failures (ENOENT, EAGAIN) asynchronously; swallow the event, report synchronously.
      child.once('error', () => {});
      throw new Error(`could not start ${process.execPath} ${o.executable}`);
    }
    child.unref();
    return { pid: child.pid };
  } finally {
    if (opened !== null) closeSync(opened);
  }
}
