// How `dagu restart` waits for the run it stopped: until the run records its end, or, for a run whose process
// is on this host, until that process is gone. A run process that stopped its steps may still spend its
// final-status budget retrying the write of its end (a full disk), so the wait covers that budget; and a
// process that exits without having written its end is reported as such, not as a run that did not stop.

import type { Config } from '../../config/types';
import { formatDuration } from '../../core/duration';
import type { Clock, Timers } from '../../core/ports';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../core/types';
import { SECOND } from '../../core/units';
import { finalStatusBudgetMs } from '../../runner/finalStatusBudget';
import { describeErrorCode } from '../../scheduler/describeErrorCode';
import type { UnwrittenFinalStatus } from '../../store/types';

const POLL_MS = 200;
/** Slack on top of the stop's own budget: starting the kill, a slow status read. */
const STOP_SLACK_MS = 10 * SECOND;

export type StopOutcome =
  /** The run recorded its end. */
  | { kind: 'stopped'; status: RunStatus }
  /** Its process on this host is gone, but what it last recorded is not an end. */
  | { kind: 'unwritten'; status: RunStatus; pid: number; note: UnwrittenFinalStatus | null }
  /** Neither within `waitedMs`; `alive`: its process on this host still runs (null: not on this host). */
  | { kind: 'timeout'; status: RunStatus; waitedMs: number; alive: boolean | null };

export interface AwaitStopDeps {
  readRun(runId: string): Promise<RunStatus>;
  readUnwrittenFinalStatus(runId: string, attempt: number): Promise<UnwrittenFinalStatus | null>;
  processAlive(pid: number): boolean;
  /** This host's name, compared with a run's `host`. */
  host: string;
  clock: Clock;
  timers: Timers;
}

/**
 * The longest a stopped run may take to record its end: its steps' kill grace, then the run process's
 * budget for shipping its logs and writing its final status.
 */
export function stopWaitMs(config: Config): number {
  return config.run.kill_grace_ms + finalStatusBudgetMs(config) + STOP_SLACK_MS;
}

/** Waits for the run `status` names, already asked to stop, to end; at most `waitMs`. */
export async function awaitStop(d: AwaitStopDeps, status: RunStatus, waitMs: number): Promise<StopOutcome> {
  const start = d.clock.monoMs();
  let current = status;
  for (;;) {
    if (TERMINAL_RUN_STATES.includes(current.status)) return { kind: 'stopped', status: current };
    const pid = localPid(d, current);
    if (pid !== null && !d.processAlive(pid)) {
      // It may have written its end just before it exited, after the read above.
      current = await d.readRun(current.run_id);
      if (TERMINAL_RUN_STATES.includes(current.status)) return { kind: 'stopped', status: current };
      const note = await d.readUnwrittenFinalStatus(current.run_id, current.attempt).catch(() => null);
      return { kind: 'unwritten', status: current, pid, note };
    }
    const waitedMs = d.clock.monoMs() - start;
    if (waitedMs >= waitMs) {
      return { kind: 'timeout', status: current, waitedMs, alive: pid === null ? null : true };
    }
    await new Promise<void>((r) => d.timers.setTimeout(r, Math.min(POLL_MS, waitMs - waitedMs)));
    current = await d.readRun(current.run_id);
  }
}

/** The pid of the run's process when it runs on this host (not on a worker), else null. */
function localPid(d: AwaitStopDeps, s: RunStatus): number | null {
  return s.worker_id === null && s.host === d.host && s.pid !== null ? s.pid : null;
}

/** Why `restart` does not start the run again, for an outcome other than `stopped`. */
export function notStoppedMessage(runId: string, outcome: Exclude<StopOutcome, { kind: 'stopped' }>): string {
  if (outcome.kind === 'unwritten') {
    const why = outcome.note
      ? `after the run ended ${outcome.note.state}, but its final status could not be written ` +
        `(${describeErrorCode(outcome.note.error_code)})`
      : 'without writing its final status';
    return (
      `run ${runId} stopped: its process ${outcome.pid} exited ${why}; it shows ` +
      `${outcome.status.status} until the dead-run check marks it failed; not restarting`
    );
  }
  const still =
    outcome.alive === null
      ? `it has not recorded its end (still ${outcome.status.status})`
      : `its process ${outcome.status.pid} is still running`;
  return `run ${runId} did not stop within ${formatDuration(outcome.waitedMs)}: ${still}; not restarting`;
}
