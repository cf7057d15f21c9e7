// `dagu retry`: a new attempt of a finished run, with the same params, executed in this process.

import { newRunStatus, nextAutoRetryCount } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { AttemptConflictError, RunNotFoundError } from '../store/errors';
import { RunConflictError } from './errors';
import { attemptLogDir, dagLogRoot, runAttempt, type AttemptContext } from './runAttempt';
import { isoNow } from './runStep';
import type { RetryPath } from '../core/retryPath';

/** Inputs of `dagu retry`. */
export interface RetryRunOptions extends AttemptContext {
  runId: string;
  /**
   * Dagu's `retry --step`: run only this step again; every other step keeps the status it had. Throws
   * StepNotInRunError when the run has no such step.
   */
  step?: string;
  /** Dagu's `retry --step X --downstream`: the steps downstream of `step` run again too. */
  downstream?: boolean;
  /** Dagu's `retry --sub-run-id`: `step` is a call step whose child on this path is retried in place. */
  retryPath?: RetryPath;
  /** The directory a `--default-working-dir` of this retry gave the DAG (already in `dag.working_dir`). */
  defaultWorkingDir?: string | null;
  /** Started by the scheduler under the DAG's retry_policy: the new attempt counts one more auto retry. */
  autoRetry?: boolean;
}

/** `retry --step` named a step the run does not have. */
export class StepNotInRunError extends Error {
  constructor(
    readonly runId: string,
    readonly step: string,
  ) {
    super(`run ${runId} has no step ${JSON.stringify(step)}`);
    this.name = 'StepNotInRunError';
  }
}

/**
 * Runs attempt n+1 of a finished run (trigger `retry`, same params and schedule time) and returns its final
 * status. Throws RunNotFoundError for an unknown run and RunConflictError for one that is queued, running
 * or unreadable, or whose next attempt another process created first.
 */
export async function retryRun(o: RetryRunOptions): Promise<RunStatus> {
  return runNextAttempt(o, (previous) => TERMINAL_RUN_STATES.includes(previous.status), false);
}

/**
 * Creates attempt n+1 of a run whose latest attempt `accepts` (else RunConflictError), then runs it; with
 * `keepSucceeded` the steps that succeeded in attempt n keep their state and outputs (`dagu resume`).
 */
export async function runNextAttempt(
  o: RetryRunOptions,
  accepts: (previous: RunStatus) => boolean,
  keepSucceeded: boolean,
): Promise<RunStatus> {
  const read = await o.runStore.readStatus(o.runId);
  if (read.kind === 'missing') throw new RunNotFoundError(o.runId);
  if (read.kind === 'corrupt') throw new RunConflictError(o.runId, 'corrupt', read.error);
  const previous = read.status;
  if (!accepts(previous)) throw new RunConflictError(o.runId, previous.status);
  if (o.step !== undefined && !previous.steps.some((s) => s.name === o.step))
    throw new StepNotInRunError(o.runId, o.step);

  const attempt = previous.attempt + 1;
  const logDir = attemptLogDir(
    o.runStore,
    o.config,
    o.dag.name,
    o.runId,
    attempt,
    dagLogRoot(o.dag, o.config, o.env),
  );
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
    paramsJson: previous.params_json,
    // `--no-reuse` was asked for the run, not for one attempt of it.
    noReuse: previous.no_reuse === true,
    // A sub-run stays under its call step: the console links it back, and a later retry path finds it.
    parent: previous.parent,
  });
  // A run under another name (`dagu start -N`) keeps the file its DAG comes from.
  if (previous.dag_file) status.dag_file = previous.dag_file;
  if (previous.local_dag_file) status.local_dag_file = previous.local_dag_file;
  // Where `--default-working-dir` put the run, unless this retry gave another one.
  const workingDir = o.defaultWorkingDir ?? previous.default_working_dir;
  if (workingDir) status.default_working_dir = workingDir;
  // The run's labels (its DAG's then, and its `--labels`) hold for every attempt, as Dagu's snapshot has them.
  if (previous.labels) status.labels = [...previous.labels];
  const autoRetries = nextAutoRetryCount(previous, o.autoRetry === true);
  if (autoRetries !== undefined) status.auto_retry_count = autoRetries;
  try {
    await o.runStore.createAttempt(status);
  } catch (err) {
    if (!(err instanceof AttemptConflictError)) throw err;
    // Another process created this attempt first: report the state it put the run in.
    const now = await o.runStore.readStatus(o.runId);
    throw new RunConflictError(o.runId, now.kind === 'ok' ? now.status.status : 'unknown');
  }
  return runAttempt(o, status, logDir.absolute, {
    // Every form keeps something of the attempt before: a resume its successes, a retry what did not fail.
    resumeFrom: previous.steps,
    retryStep: o.step,
    retryFailed: !keepSucceeded && o.step === undefined,
    retryDownstream: o.downstream === true,
    ...(o.retryPath ? { retryPath: o.retryPath } : {}),
    markedActive: true,
  });
}
