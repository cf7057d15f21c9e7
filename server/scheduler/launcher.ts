// Starts run processes for the scheduler: detached `dagu start --run-id …`, in their own session, so that a
// run outlives the scheduler that started it. The runs of a burst (a busy slot) share run host processes
// (server/cli/runHost.ts), a few Node start-ups instead of one per run.

import { spawn } from 'node:child_process';
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../core/ports';
import { findRelayTools, INPUT_MAX, LaunchRelay } from '../runner/launchRelay';
import { RUN_HOST_COMMAND, type HostAssignment, type HostedRun } from '../runner/runHostCommand';
import { SparePool, type SpareSettings } from '../runner/spareRun';
import { runProcessEnv } from '../runner/runProcessEnv';
import { RunLanes, type LaneSettings } from '../runner/runLanes';
import { spawnDetachedRun } from '../runner/spawnDetached';
import { mkdir } from '../store/fileCalls';
import { randomHex } from '../store/randomHex';

export interface LaunchRequest {
  /** `retry`: the scheduler's retry of a failed run under its DAG-level retry_policy; default `start`. */
  operation?: 'start' | 'retry';
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
  /**
   * How many runs the caller is launching together, this one included (a busy slot): above
   * RUN_HOST_MIN_BURST they may share run host processes. Absent: one.
   */
  burst?: number;
  /**
   * The run comes from a queue (queueProcessor): it may go to a run lane. `backlog`: more of the queue's runs
   * are waiting than may start now, which is when a lane is started. `notStarted`: where given, the run may
   * be promised to a lane that is still starting (its pid is returned at once); called if the lane never
   * takes it after all, so that the caller offers the run again at once rather than after its start timeout.
   */
  queue?: { backlog: boolean; notStarted?: () => void };
}

/** A started run process, or `fenced`: the fence closed while the launch was being prepared; nothing started. */
export type LaunchResult = { pid: number | undefined; fenced?: false } | { pid: undefined; fenced: true };

export type Launcher = ((req: LaunchRequest) => LaunchResult | Promise<LaunchResult>) & {
  /** Gets ready to launch soon (starts a spare process); called when the scheduler becomes active. */
  prepare?: () => void;
  /** Lets any spare process go; called when the scheduler stops. */
  close?: () => void;
  /** Whether a spare process is connected and waiting for a run. */
  spareWaiting?: () => boolean;
  /** The pids of the run lanes open now. */
  lanePids?: () => number[];
  /**
   * How many launches a caller with a burst should have in flight at once for them to share run hosts (the
   * runs per host); absent when runs never share one.
   */
  burstSize?: number;
};

/** A burst of more than this many launches may share run hosts; fewer each get a process of their own. */
export const RUN_HOST_MIN_BURST = 3;

/**
 * How long the first launch of a burst waits for the others to join it in one host (each comes once its log
 * directory is made): a host starts as soon as it is full, and a burst's last host after this wait.
 */
export const RUN_HOST_GATHER_MS = 20;

/** Where a run host's own output goes (not its runs'), under the logs: a name no DAG can have. */
export const RUN_HOST_LOG_DIR = '.run-host';

/**
 * Starts each run as a detached `dagu start` process. With `spares`, a pre-started process takes the run
 * when one is waiting (and still of the build on disk), and the next spare is started right after. The
 * process log is created with async file calls: a synchronous call on a stalled disk would freeze the
 * scheduler's event loop, and with it the fencing timer and the health endpoint. For the same reason the
 * processes are started through a launch relay, started here, before the scheduler's storage is in use
 * (see launchRelay.ts): a fork of the scheduler itself waits for its child's exec, which waits on every file
 * of a stalled volume the scheduler has open. Without a shell and setsid on the host they are spawned directly.
 */
export function processLauncher(opts: {
  executable: string;
  env: NodeJS.ProcessEnv;
  spares?: SpareSettings | null;
  /**
   * Runs of a burst share run hosts of at most this many runs (run.host_max_runs); below 2, never.
   * `gatherMs`: how long the first launch waits for others to join its host (default RUN_HOST_GATHER_MS).
   */
  hosts?: { maxRuns: number; logDir: string; gatherMs?: number } | null;
  /** Queued runs may go to run lanes (runner/runLanes.ts): at most `maxLanes` of them (run.lanes); 0, never. */
  lanes?: Pick<LaneSettings, 'maxLanes' | 'runsPerLane' | 'logDir' | 'currentBuild' | 'idleMs'> | null;
  logger: Logger;
}): Launcher {
  const env = runProcessEnv(opts.env);
  const tools = findRelayTools();
  const relay = tools ? new LaunchRelay({ env, tools, logger: opts.logger }) : null;
  relay?.start();
  const pool = opts.spares
    ? new SparePool({ ...opts.spares, executable: opts.executable, env, relay })
    : null;
  const allowed = (req: LaunchRequest) => !req.stillAllowed || req.stillAllowed();
  const hosts =
    opts.hosts && opts.hosts.maxRuns >= 2
      ? new RunHostBatcher({ ...opts.hosts, executable: opts.executable, env, allowed, relay })
      : null;
  const lanes =
    opts.lanes && opts.lanes.maxLanes > 0
      ? new RunLanes({ ...opts.lanes, executable: opts.executable, env, relay, logger: opts.logger })
      : null;
  const launch: Launcher = async (req) => {
    await mkdir(path.dirname(req.processLog), true);
    // A queued run goes to a lane with room, if there is one; a run whose stop must reach its process as a
    // signal (signal_handling) keeps a process of its own.
    if (lanes && req.queue && !req.propagateSignals && req.operation !== 'retry') {
      if (req.queue.backlog) lanes.want();
      // A lane still starting is ready as soon as a process started now would be, and runs the rest of the
      // backlog too; a spare waiting is ready now, and takes the run first.
      const notHanded = req.queue.notStarted;
      const waitForLane = notHanded && pool?.waitingPid() == null ? { notHanded } : undefined;
      const viaLane = await lanes.assign(hostedRun(req), () => allowed(req), waitForLane);
      if (viaLane) return viaLane;
    }
    // A run whose stop must reach its process as a signal (signal_handling) keeps a process of its own.
    if (hosts && (req.burst ?? 1) > RUN_HOST_MIN_BURST && !req.propagateSignals && req.operation !== 'retry')
      return hosts.add(req);
    const args = launchArgs(req);
    try {
      const viaSpare = (await pool?.assign(args, req.processLog, () => allowed(req))) ?? null;
      if (viaSpare) return viaSpare;
      const log = await open(req.processLog, 'a');
      try {
        if (!allowed(req)) return { pid: undefined, fenced: true };
        if (relay)
          return { pid: await relay.launch([process.execPath, opts.executable, ...args], req.processLog) };
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
  launch.close = () => {
    pool?.close();
    lanes?.close();
    relay?.close();
  };
  launch.spareWaiting = () => pool?.waitingPid() != null;
  launch.lanePids = () => lanes?.pids() ?? [];
  if (hosts) launch.burstSize = hosts.maxRuns;
  return launch;
}

interface Pending {
  req: LaunchRequest;
  resolve: (r: LaunchResult) => void;
  reject: (err: Error) => void;
}

/**
 * Gathers the launches of a burst into run hosts (server/cli/runHost.ts): a host is started once it has
 * `maxRuns` runs, or RUN_HOST_GATHER_MS after the first one came. Every launch of a host resolves with the
 * host's pid (the pid its runs record), or with `fenced` when the fence closed before the host started.
 */
class RunHostBatcher {
  private pending: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly o: {
      maxRuns: number;
      logDir: string;
      gatherMs?: number;
      executable: string;
      env: NodeJS.ProcessEnv;
      allowed: (req: LaunchRequest) => boolean;
      relay: LaunchRelay | null;
    },
  ) {}

  get maxRuns(): number {
    return this.o.maxRuns;
  }

  add(req: LaunchRequest): Promise<LaunchResult> {
    return new Promise<LaunchResult>((resolve, reject) => {
      this.pending.push({ req, resolve, reject });
      if (this.pending.length >= this.o.maxRuns) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.o.gatherMs ?? RUN_HOST_GATHER_MS);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending.splice(0, this.o.maxRuns);
    if (this.pending.length > 0) {
      this.timer = setTimeout(() => this.flush(), this.o.gatherMs ?? RUN_HOST_GATHER_MS);
    }
    void this.start(batch).catch((err: Error) => {
      for (const p of batch) p.reject(err);
    });
  }

  private async start(batch: Pending[]): Promise<void> {
    await mkdir(this.o.logDir, true);
    const hostLog = path.join(this.o.logDir, `host-${randomHex(6)}.log`);
    const out = await open(hostLog, 'a');
    try {
      // The fencing check, right before the host starts: a run whose fence closed is not given to it.
      const runs = batch.filter((p) => {
        if (this.o.allowed(p.req)) return true;
        p.resolve({ pid: undefined, fenced: true });
        return false;
      });
      if (runs.length === 0) {
        await unlink(hostLog).catch(() => undefined);
        return;
      }
      const assignment: HostAssignment = { runs: runs.map((p) => hostedRun(p.req)) };
      const input = JSON.stringify(assignment);
      if (this.o.relay && Buffer.byteLength(input) > INPUT_MAX && runs.length > 1) {
        // More than the relay passes at once (very long paths): two hosts.
        await unlink(hostLog).catch(() => undefined);
        const half = Math.ceil(runs.length / 2);
        await Promise.all([this.start(runs.slice(0, half)), this.start(runs.slice(half))]);
        return;
      }
      if (this.o.relay) {
        const pid = await this.o.relay.launch(
          [process.execPath, this.o.executable, RUN_HOST_COMMAND, hostLog],
          hostLog,
          input,
        );
        for (const p of runs) p.resolve({ pid });
        return;
      }
      const child = spawn(process.execPath, [this.o.executable, RUN_HOST_COMMAND, hostLog], {
        env: this.o.env,
        // Its own session and process group, like a run process: it outlives the scheduler.
        detached: true,
        stdio: ['pipe', out.fd, out.fd],
      });
      if (child.pid === undefined) {
        child.once('error', () => undefined); // reported here, synchronously
        throw new Error(`could not start ${process.execPath} ${this.o.executable} ${RUN_HOST_COMMAND}`);
      }
      child.stdin!.on('error', () => undefined); // a host that died at once: its runs are found dead
      child.stdin!.end(`${input}\n`);
      child.unref();
      for (const p of runs) p.resolve({ pid: child.pid });
    } finally {
      void out.close().catch(() => undefined);
    }
  }
}

/** The `dagu` arguments of a run process of its own. */
function launchArgs(req: LaunchRequest): string[] {
  // A retry finds its DAG, params and schedule time in the run's record.
  if (req.operation === 'retry') return ['retry', '--quiet', '--auto-retry', req.runId];
  const args = ['start', '--quiet', '--run-id', req.runId, '--trigger-type', req.triggerType];
  if (req.scheduleTime) args.push('--schedule-time', req.scheduleTime);
  if (req.renamed) args.push('--name', req.dagName);
  args.push(req.dagFile ?? req.dagName);
  return args;
}

function hostedRun(req: LaunchRequest): HostedRun {
  return {
    dag: req.dagFile ?? req.dagName,
    runId: req.runId,
    triggerType: req.triggerType,
    scheduleTime: req.scheduleTime,
    name: req.renamed ? req.dagName : null,
    processLog: req.processLog,
  };
}
