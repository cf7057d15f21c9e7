// "Retry" of a finished run from the console: a new attempt of the same run ID, all steps again, started the
// way `dagu retry` starts it. A local DAG gets a detached `dagu retry <run-id>` process (it outlives the
// server, like `startDag`'s runs); a DAG that goes to workers is handed to the dispatcher, as the CLI does.
// "Retry this step" (Dagu's step retry, optionally with the steps downstream of it): `dagu retry --step` of
// the run, or, for a sub-run, `dagu retry --sub-run-id` of its root run, which retries the call steps on the
// way down in place.

import path from 'node:path';
import { isDistributed, nextAttemptDispatch } from '../core/dispatcherApi';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { resolveRetryPath } from '../runner/resolveRetryPath';
import { ConflictError, NotFoundError } from './errors';
import { recordEvent } from './recordEvent';
import { requireRunDag } from './requireDag';
import { getRun } from './runs';
import type { Services } from './services';
import { dispatchError, refusalError } from './startDag';

/** POST /api/v1/runs/:id/retry answers 202 with this: the retry is under way, not done. */
export interface RetryResult {
  run_id: string;
  dag_name: string;
  /** The attempt number the retry will write. */
  attempt: number;
  /** `started`: a `dagu retry` process on this host; `dispatched`/`held`: handed to the workers. */
  outcome: 'started' | 'dispatched' | 'held';
  /** A step retry: the step, in the run asked for (`sub_run_id` when that is a sub-run of `run_id`). */
  step?: string;
  sub_run_id?: string;
}

/** What to retry: the whole run (no step), or one step of it and, with `downstream`, what depends on it. */
export interface RetryRequest {
  step?: string;
  downstream?: boolean;
}

/** The most levels of call steps walked up from a sub-run to its root run. */
const MAX_NESTING = 100;

export async function retryRun(svc: Services, runId: string, req: RetryRequest = {}): Promise<RetryResult> {
  const previous = await getRun(svc, runId);
  if (!TERMINAL_RUN_STATES.includes(previous.status)) {
    throw new ConflictError(`run ${runId} is ${previous.status}; only a finished run can be retried`);
  }
  if (req.step !== undefined) return retryStep(svc, previous, req.step, req.downstream === true);
  const dag = await requireRunDag(svc, previous);
  const attempt = previous.attempt + 1;
  if (isDistributed(dag, svc.config.default_execution_mode)) {
    const result = await svc.dispatcher
      .dispatch(nextAttemptDispatch(dag, previous, 'retry'))
      .catch(dispatchError);
    if (result.outcome === 'refused') throw refusalError(result);
    svc.logger.info('Retry handed to the workers', {
      dag: dag.name,
      run_id: runId,
      attempt,
      outcome: result.outcome,
    });
    return { run_id: runId, dag_name: dag.name, attempt, outcome: result.outcome };
  }
  // Beside the new attempt's step logs, where `startDag` and the scheduler put a run process's own output.
  const processLog = path.join(svc.runs.logDir(dag.name, runId, attempt), 'process.log');
  const pid = await svc.startProcess(['retry', '--quiet', runId], processLog);
  await recordEvent(svc, 'run:retry_requested', { run_id: runId, dag: dag.name, attempt, pid });
  svc.logger.info('Retry started', { dag: dag.name, run_id: runId, attempt, pid });
  return { run_id: runId, dag_name: dag.name, attempt, outcome: 'started' };
}

/**
 * One step of a finished run again, in place, with a `dagu retry` process on this host: `--step` of the run
 * itself, or `--sub-run-id` of its root run when it is a sub-run (the root, and every run on the way down,
 * gets a new attempt in which only the call step leading to it runs).
 */
async function retryStep(
  svc: Services,
  run: RunStatus,
  step: string,
  downstream: boolean,
): Promise<RetryResult> {
  if (!run.steps.some((s) => s.name === step))
    throw new NotFoundError(`run ${run.run_id} has no step ${JSON.stringify(step)}`);
  const root = await rootOf(svc, run);
  if (!TERMINAL_RUN_STATES.includes(root.status))
    throw new ConflictError(
      `run ${root.run_id}, which run ${run.run_id} is part of, is ${root.status}; a step can be retried once it has ended`,
    );
  const dag = await requireRunDag(svc, root);
  if (isDistributed(dag, svc.config.default_execution_mode))
    throw new ConflictError(
      `a step of DAG ${dag.name} cannot be retried alone: its runs go to the workers; retry the whole run`,
    );
  const sub = root.run_id !== run.run_id;
  if (sub) {
    const resolved = await resolveRetryPath(svc.runs, root, run.run_id, step, downstream);
    if (!resolved.ok) throw new ConflictError(resolved.error);
  }
  const args = [
    'retry',
    '--quiet',
    ...(sub ? ['--sub-run-id', run.run_id] : []),
    '--step',
    step,
    ...(downstream ? ['--downstream'] : []),
    root.run_id,
  ];
  const attempt = root.attempt + 1;
  const processLog = path.join(svc.runs.logDir(dag.name, root.run_id, attempt), 'process.log');
  const pid = await svc.startProcess(args, processLog);
  const target = { step, ...(sub ? { sub_run_id: run.run_id } : {}) };
  await recordEvent(svc, 'run:retry_requested', {
    run_id: root.run_id,
    dag: dag.name,
    attempt,
    pid,
    ...target,
    downstream,
  });
  svc.logger.info('Step retry started', { dag: dag.name, run_id: root.run_id, attempt, pid, ...target });
  return { run_id: root.run_id, dag_name: dag.name, attempt, outcome: 'started', ...target };
}

/** The run at the top of `run`'s chain of call steps (itself when nobody called it). */
async function rootOf(svc: Services, run: RunStatus): Promise<RunStatus> {
  let current = run;
  for (let depth = 0; current.parent; depth++) {
    if (depth >= MAX_NESTING)
      throw new ConflictError(`run ${run.run_id} is nested more than ${MAX_NESTING} levels deep`);
    current = await getRun(svc, current.parent.run_id).catch((err: unknown) => {
      if (err instanceof NotFoundError)
        throw new ConflictError(
          `run ${run.run_id} cannot be retried in place: its parent run ${current.parent!.run_id} is gone`,
        );
      throw err;
    });
  }
  return current;
}
