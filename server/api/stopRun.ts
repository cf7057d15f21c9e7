// Stopping a run: a queued run is dequeued; a running one on this host gets SIGTERM and its run process
// aborts the steps and ends `aborted` (a run in a run host, which runs several, is asked through a stop file
// instead: store/runHostFiles.ts). A run handed to the workers goes to the dispatcher: one still waiting
// for a worker is aborted at once, one a worker has is cancelled by that worker (told on its next heartbeat).
// Everything else is refused with a reason.

import { hostname } from 'node:os';
import { RunUnreadableError } from '../coordinator/errors';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { hostPidOf, requestHostedStop } from '../store/runHostFiles';
import { ConflictError, CorruptRecordError, NotFoundError } from './errors';
import { abortWaitingRun } from './humanTask';
import { dequeueRun } from './queue';
import { recordEvent } from './recordEvent';
import { getRun } from './runs';
import type { Services } from './services';

/**
 * How a stop went. `dequeued`/`aborted`/`aborted_waiting` (a run waiting at human tasks): the run ended now
 * (`aborted`); `signalled`: its process on this host
 * got SIGTERM; `requested`: the worker running it will stop it (the API answers 202).
 */
export interface StopResult {
  outcome: 'dequeued' | 'aborted' | 'aborted_waiting' | 'signalled' | 'requested';
  /** The run after the stop (`aborted`), or as it was when the stop was requested. */
  status: RunStatus;
}

/**
 * The console's cancel of a queued run: a run waiting for a worker is cancelled through the dispatcher (its
 * task dropped, so no worker starts it later); any other queued run leaves its queue.
 */
export async function dequeueOrCancel(svc: Services, runId: string): Promise<RunStatus> {
  const status = await getRun(svc, runId);
  if (await onWorkers(svc, status)) return (await cancelOnWorkers(svc, status)).status;
  return dequeueRun(svc, runId);
}

/** Stops a run; see `requestStop`. Returns the run's status. */
export async function stopRun(svc: Services, runId: string): Promise<RunStatus> {
  return (await requestStop(svc, runId)).status;
}

export async function requestStop(svc: Services, runId: string): Promise<StopResult> {
  const status = await getRun(svc, runId);
  if (await onWorkers(svc, status)) return cancelOnWorkers(svc, status);
  if (status.status === 'queued') return { outcome: 'dequeued', status: await dequeueRun(svc, runId) };
  // A run waiting at human tasks has no process: it is aborted here and now.
  if (status.status === 'waiting')
    return { outcome: 'aborted_waiting', status: await abortWaitingRun(svc, status) };
  if (status.status !== 'running') {
    throw new ConflictError(`run ${runId} already finished (status: ${status.status})`);
  }
  if (status.host !== hostname() || status.pid === null) {
    throw new ConflictError(`run ${runId} runs on host ${status.host ?? 'unknown'}; stop it there`);
  }
  // A pid outlives its process: only signal it while the run's heartbeat says the process is alive, so a
  // dead run's pid reused by an unrelated process is never signalled.
  const beat = await svc.runs.readHeartbeat(runId, status.attempt);
  const ageMs = beat === null ? 0 : svc.clock.nowMs() - beat;
  if (ageMs > svc.config.run.heartbeat_stale_threshold_ms) {
    throw new ConflictError(
      `run ${runId} has not sent a heartbeat for ${Math.round(ageMs / 1000)}s; the scheduler will mark it failed`,
    );
  }
  // A run executed by a run host shares its pid with the other runs there: that host is asked, through a
  // file, to stop this one run only.
  const hostPid = await hostPidOf(svc.config.paths.data_dir, runId);
  if (hostPid !== null && hostPid === status.pid) {
    await requestHostedStop(svc.config.paths.data_dir, runId, 'SIGTERM');
    await recordEvent(svc, 'run:stop_requested', { run_id: runId, dag: status.dag_name, pid: status.pid });
    svc.logger.info('Stop requested', {
      dag: status.dag_name,
      run_id: runId,
      pid: status.pid,
      run_host: true,
    });
    return { outcome: 'signalled', status };
  }
  try {
    process.kill(status.pid, 'SIGTERM');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConflictError(
      code === 'ESRCH'
        ? `run process ${status.pid} of run ${runId} is gone; the scheduler will mark the run failed`
        : `cannot signal run process ${status.pid} of run ${runId}: ${code ?? String(err)}`,
    );
  }
  await recordEvent(svc, 'run:stop_requested', { run_id: runId, dag: status.dag_name, pid: status.pid });
  svc.logger.info('Stop requested', { dag: status.dag_name, run_id: runId, pid: status.pid });
  return { outcome: 'signalled', status };
}

/** Whether an active run belongs to the workers: a worker has it, or a dispatch task waits for one. */
async function onWorkers(svc: Services, s: RunStatus): Promise<boolean> {
  if (s.status !== 'queued' && s.status !== 'running') return false;
  if (s.worker_id !== null) return true;
  return s.status === 'queued' && (await svc.tasks.findByRun(s.run_id)) !== null;
}

async function cancelOnWorkers(svc: Services, s: RunStatus): Promise<StopResult> {
  let r;
  try {
    r = await svc.dispatcher.cancel(s.run_id);
  } catch (err) {
    if (err instanceof RunUnreadableError) throw new CorruptRecordError(err.message, err.path);
    throw err;
  }
  switch (r.kind) {
    case 'aborted':
      svc.logger.info('Cancelled a run waiting for a worker', { dag: s.dag_name, run_id: s.run_id });
      return { outcome: 'aborted', status: r.status };
    case 'requested':
      await recordEvent(svc, 'run:stop_requested', {
        run_id: s.run_id,
        dag: s.dag_name,
        worker_id: r.status.worker_id,
      });
      svc.logger.info('Stop requested from the worker', {
        dag: s.dag_name,
        run_id: s.run_id,
        worker_id: r.status.worker_id,
      });
      return { outcome: 'requested', status: r.status };
    case 'not_found':
      throw new NotFoundError(`run ${s.run_id} not found`);
    case 'not_active':
      throw new ConflictError(
        TERMINAL_RUN_STATES.includes(r.status.status)
          ? `run ${s.run_id} already finished (status: ${r.status.status})`
          : `run ${s.run_id} is neither waiting for nor running on a worker (status: ${r.status.status})`,
      );
  }
}
