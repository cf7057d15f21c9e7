// Stopping a run: a queued run is dequeued; a running one on this host gets SIGTERM and its run process
// aborts the steps and ends `aborted`. Everything else is refused with a reason.

import { hostname } from 'node:os';
import type { RunStatus } from '../core/types';
import { ConflictError } from './errors';
import { dequeueRun } from './queue';
import { getRun } from './runs';
import type { Services } from './services';

export async function stopRun(svc: Services, runId: string): Promise<RunStatus> {
  const status = await getRun(svc, runId);
  if (status.status === 'queued') return dequeueRun(svc, runId);
  if (status.status !== 'running') {
    throw new ConflictError(`run ${runId} already finished (status: ${status.status})`);
  }
  if (status.worker_id) {
    throw new ConflictError(
      `run ${runId} runs on worker ${status.worker_id}; it cannot be stopped from here yet`,
    );
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
  await svc.events.append('run:stop_requested', { run_id: runId, dag: status.dag_name, pid: status.pid });
  svc.logger.info('Stop requested', { dag: status.dag_name, run_id: runId, pid: status.pid });
  return status;
}
