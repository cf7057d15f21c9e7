// Starts run processes for the scheduler: detached `dagu start --run-id …`, in their own session, so that a
// run outlives the scheduler that started it.

import { open } from 'node:fs/promises';
import path from 'node:path';
import { SparePool, type SpareSettings } from '../runner/spareRun';
import { runProcessEnv } from '../runner/runProcessEnv';
import { spawnDetachedRun } from '../runner/spawnDetached';
import { mkdir } from '../store/fileCalls';

export interface LaunchRequest {
  dagName: string;
  /** The DAG file, so the run process loads exactly the definition the scheduler planned with. */
  dagFile: string | null;
  /** The run is under another name than its DAG file's (`enqueue -N`): `dagName` is passed as `--name`. */
  renamed?: boolean;
  runId: string;
  triggerType: string;
  scheduleTime: string | null;
  /** Where the run process's own stdout/stderr go (its step logs are separate). */
  processLog: string;
  /** The DAG asks for SIGINT/SIGTERM of a stopping scheduler to reach this run (signal_handling). */
  propagateSignals?: boolean;
  /**
   * The fencing check, asked again right before the process starts: preparing its log file is storage work
   * that can take any time (a stalled volume), and the lease may have run out meanwhile.
   */
  stillAllowed?: () => boolean;
}

/** A started run process, or `fenced`: the fence closed while the launch was being prepared; nothing started. */
export type LaunchResult = { pid: number | undefined; fenced?: false } | { pid: undefined; fenced: true };

export type Launcher = ((req: LaunchRequest) => LaunchResult | Promise<LaunchResult>) & {
  /** Gets ready to launch soon (starts a spare process); called when the scheduler becomes active. */
  prepare?: () => void;
  /** Lets any spare process go; called when the scheduler stops. */
  close?: () => void;
};

/**
 * Starts each run as a detached `dagu start` process. With `spares`, a pre-started process takes the run
 * when one is waiting (and still of the build on disk), and the next spare is started right after. The
 * process log is created with async file calls: a synchronous call on a stalled disk would freeze the
 * scheduler's event loop, and with it the fencing timer and the health endpoint.
 */
export function processLauncher(opts: {
  executable: string;
  env: NodeJS.ProcessEnv;
  spares?: SpareSettings | null;
}): Launcher {
  const env = runProcessEnv(opts.env);
  const pool = opts.spares ? new SparePool({ ...opts.spares, executable: opts.executable, env }) : null;
  const allowed = (req: LaunchRequest) => !req.stillAllowed || req.stillAllowed();
  const launch: Launcher = async (req) => {
    await mkdir(path.dirname(req.processLog), true);
    const args = ['start', '--quiet', '--run-id', req.runId, '--trigger-type', req.triggerType];
    if (req.scheduleTime) args.push('--schedule-time', req.scheduleTime);
    if (req.renamed) args.push('--name', req.dagName);
    args.push(req.dagFile ?? req.dagName);
    try {
      const viaSpare = (await pool?.assign(args, req.processLog, () => allowed(req))) ?? null;
      if (viaSpare) return viaSpare;
      const log = await open(req.processLog, 'a');
      try {
        if (!allowed(req)) return { pid: undefined, fenced: true };
        return spawnDetachedRun({ executable: opts.executable, args, env, logFd: log.fd });
      } finally {
        // The child holds its own copy of the descriptor; closing ours may wait on the disk, so it is not
        // awaited.
        void log.close().catch(() => undefined);
      }
    } finally {
      if (pool) setImmediate(() => void pool.fill());
    }
  };
  launch.prepare = () => void pool?.fill();
  launch.close = () => pool?.close();
  return launch;
}
