// `dagu resume`: a new attempt of a finished run that runs again only the steps that did not succeed; the
// steps that succeeded keep their status and outputs.

import { newRunStatus } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { AttemptConflictError, RunNotFoundError } from '../store/errors';
import { RunConflictError } from './errors';
import { executeRun } from './executeRun';
import { attemptLogDir, type AttemptContext } from './runAttempt';
import { isoNow } from './runStep';
import { errorText, storeReporter } from './statusReporter';
import type { SubDagRunner } from './subDag';

/** Inputs of `dagu resume`. */
export interface ResumeRunOptions extends AttemptContext {
  runId: string;
  subDag?: SubDagRunner;
}

/** Whether a run in this state can be resumed: it ended, and not every step succeeded. */
export function isResumable(status: RunStatus): boolean {
  return TERMINAL_RUN_STATES.includes(status.status) && status.status !== 'succeeded';
}

/**
 * Runs attempt n+1 of a finished run (trigger `retry`, same params and schedule time) in which the steps
 * that succeeded in attempt n are kept, and returns its final status. Throws RunNotFoundError for an unknown
 * run and RunConflictError for one that is queued, running, succeeded or unreadable, or whose next attempt
 * another process created first.
 */
export async function resumeRun(o: ResumeRunOptions): Promise<RunStatus> {
  const read = await o.runStore.readStatus(o.runId);
  if (read.kind === 'missing') throw new RunNotFoundError(o.runId);
  if (read.kind === 'corrupt') throw new RunConflictError(o.runId, 'corrupt', read.error);
  const previous = read.status;
  if (!isResumable(previous)) throw new RunConflictError(o.runId, previous.status);

  const attempt = previous.attempt + 1;
  const logDir = attemptLogDir(o.runStore, o.config, o.dag.name, o.runId, attempt);
  const status = newRunStatus({
    dag: o.dag,
    runId: o.runId,
    attempt,
    status: 'running',
    triggerType: 'retry',
    scheduleTime: previous.schedule_time,
    params: previous.params,
    nowIso: isoNow(o.clock),
    logDir: logDir.relative,
  });
  try {
    await o.runStore.createAttempt(status);
  } catch (err) {
    if (!(err instanceof AttemptConflictError)) throw err;
    const now = await o.runStore.readStatus(o.runId);
    throw new RunConflictError(o.runId, now.kind === 'ok' ? now.status.status : 'unknown');
  }

  // As runAttempt, plus the kept steps: marked active for the whole attempt, status through the run store.
  const logger = o.logger.child({ run_id: o.runId });
  const active = { run_id: o.runId, dag_name: status.dag_name, queue: status.queue };
  await o.runStore
    .markActive(active)
    .catch((err) => logger.warn('Failed to mark the run active', { error: errorText(err) }));
  try {
    return await executeRun({
      dag: o.dag,
      status,
      reporter: storeReporter(o.runStore, logger),
      logDir: logDir.absolute,
      clock: o.clock,
      logger: o.logger,
      signal: o.signal,
      killGraceMs: o.config.run.kill_grace_ms,
      heartbeatIntervalMs: o.config.run.heartbeat_interval_ms,
      baseEnv: o.env ?? process.env,
      dagsDir: o.config.paths.dags_dir,
      subDag: o.subDag,
      resumeFrom: previous.steps,
    });
  } finally {
    await o.runStore
      .unmarkActive(o.runId)
      .catch((err) => logger.warn('Failed to unmark the run active', { error: errorText(err) }));
  }
}
