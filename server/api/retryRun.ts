// "Retry" of a finished run from the console: a new attempt of the same run ID, all steps again, started the
// way `dagu retry` starts it. A local DAG gets a detached `dagu retry <run-id>` process (it outlives the
// server, like `startDag`'s runs); a DAG that goes to workers is handed to the dispatcher, as the CLI does.

import path from 'node:path';
import { isDistributed, nextAttemptDispatch } from '../core/dispatcherApi';
import { TERMINAL_RUN_STATES } from '../core/types';
import { ConflictError } from './errors';
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
}

export async function retryRun(svc: Services, runId: string): Promise<RetryResult> {
  const previous = await getRun(svc, runId);
  if (!TERMINAL_RUN_STATES.includes(previous.status)) {
    throw new ConflictError(`run ${runId} is ${previous.status}; only a finished run can be retried`);
  }
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
