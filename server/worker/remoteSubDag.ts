// The sub-DAG runner of runs on a worker: a `call:` step asks the coordinator to dispatch the child (the
// worker has no DAG catalogue of its own) and follows the child's status until it ends.

import type { Clock, Logger, Timers } from '../core/ports';
import { TERMINAL_RUN_STATES } from '../core/types';
import { SECOND } from '../core/units';
import { errorText } from '../runner/statusReporter';
import type { StepRetry } from '../core/retryPath';
import { childResult, SubDagStartError, type SubDagRequest, type SubDagRunner } from '../runner/subDag';
import { CoordinatorError, type CoordinatorApi } from './coordinatorClient';
import { retryBackoffMs, sleep } from './retryBackoff';

export interface RemoteSubDagOptions {
  client: Pick<CoordinatorApi, 'dispatch' | 'getRun' | 'cancel'>;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** How long a stopped parent waits for the cancelled child to end. */
  stopWaitMs: number;
  /** Default 500 ms. */
  pollIntervalMs?: number;
  /** How long an unreachable coordinator may keep the child from being dispatched. Default 60 s. */
  dispatchTimeoutMs?: number;
}

/** A coordinator that forgot the child this many polls in a row has lost it. */
const MISSING_LIMIT = 5;

export function remoteSubDagRunner(o: RemoteSubDagOptions): SubDagRunner {
  const pollMs = o.pollIntervalMs ?? 500;
  const dispatchTimeoutMs = o.dispatchTimeoutMs ?? 60 * SECOND;

  /** Keeps asking the coordinator until it answers, the parent stops (null) or the deadline passes. */
  const persist = async <T>(r: SubDagRequest, call: () => Promise<T>): Promise<T | null> => {
    const deadline = o.clock.monoMs() + dispatchTimeoutMs;
    for (let failures = 1; ; failures++) {
      try {
        return await call();
      } catch (err) {
        if (err instanceof SubDagStartError) throw err;
        // The coordinator answered: unknown DAG, bad params... a resend would get the same answer.
        if (err instanceof CoordinatorError) throw new SubDagStartError(r.dagName, err.message);
        if (r.signal.aborted) return null;
        if (o.clock.monoMs() >= deadline)
          throw new SubDagStartError(r.dagName, `cannot reach the coordinator: ${errorText(err)}`);
        await sleep(o.timers, retryBackoffMs(failures, SECOND, 10 * SECOND), r.signal);
      }
    }
  };

  /**
   * `retry --sub-run-id` through a call step of a run on a worker: the child of the attempt before is used
   * again. Kept, its result stands (nothing runs); on the path, the coordinator dispatches a new attempt of
   * it retrying the path's step. The attempt whose end the call step waits for (at least); null when the
   * parent stopped first.
   */
  const again = async (r: SubDagRequest, retry: StepRetry | null): Promise<number | null> => {
    const previous = await persist(r, () => o.client.getRun(r.runId));
    if (previous === null) {
      if (r.signal.aborted) return null;
      throw new SubDagStartError(r.dagName, `child DAG run ${r.runId} cannot be used again: it is gone`);
    }
    if (!TERMINAL_RUN_STATES.includes(previous.status))
      throw new SubDagStartError(
        r.dagName,
        `child DAG run ${r.runId} is ${previous.status}; it cannot be kept`,
      );
    if (retry === null) return previous.attempt;
    const reply = await persist(r, () =>
      o.client.dispatch({
        dag_name: previous.dag_name,
        run_id: r.runId,
        params: previous.params,
        worker_selector: r.workerSelector,
        parent: r.parent,
        retry: { ...retry, attempt: previous.attempt },
      }),
    );
    if (reply === null) return null;
    if (reply.outcome === 'refused')
      throw new SubDagStartError(
        r.dagName,
        `retry of child DAG run ${r.runId} did not start: ${reply.error ?? 'dispatch refused'}`,
      );
    return previous.attempt + 1;
  };

  const dispatch = async (r: SubDagRequest): Promise<boolean> => {
    const reply = await persist(r, () =>
      o.client.dispatch({
        dag_name: r.dagName,
        run_id: r.runId,
        params: r.params,
        worker_selector: r.workerSelector,
        parent: r.parent,
      }),
    );
    if (reply === null) return false;
    if (reply.outcome === 'refused') throw new SubDagStartError(r.dagName, reply.error ?? 'dispatch refused');
    return true;
  };

  return async (r) => {
    const logger = o.logger.child({ sub_run_id: r.runId });
    // The run ID is fixed, so a dispatch resent after a lost reply finds the child (`exists`) rather than
    // starting a second one.
    // The end of this attempt of the child (or a later one) is the call step's result.
    const attempt = r.existing ? await again(r, r.existing.retry) : (await dispatch(r)) ? 1 : null;
    if (attempt === null)
      return { run_id: r.runId, status: 'aborted', error: 'stopped before it was dispatched' };

    let missing = 0;
    let stopDeadline: number | null = null;
    let cancelSent = false;
    for (;;) {
      if (r.signal.aborted && stopDeadline === null) stopDeadline = o.clock.monoMs() + o.stopWaitMs;
      if (stopDeadline !== null && !cancelSent) {
        cancelSent = await o.client.cancel(r.runId).then(
          () => true,
          (err) => {
            logger.warn('Failed to cancel the sub-DAG run; will retry', { error: errorText(err) });
            return false;
          },
        );
      }
      try {
        const status = await o.client.getRun(r.runId);
        if (status === null) {
          if (++missing >= MISSING_LIMIT)
            return { run_id: r.runId, status: 'failed', error: 'the coordinator no longer knows the run' };
        } else {
          missing = 0;
          // With its output variables and published values, as a local child's: the call step's output.
          if (TERMINAL_RUN_STATES.includes(status.status) && status.attempt >= attempt)
            return { ...childResult(status), run_id: r.runId };
        }
      } catch (err) {
        logger.debug('Cannot read the sub-DAG run; will retry', { error: errorText(err) });
      }
      if (stopDeadline !== null && o.clock.monoMs() >= stopDeadline)
        return {
          run_id: r.runId,
          status: 'aborted',
          error: 'the sub-DAG run did not end in time after the stop',
        };
      // Before the stop, the wait ends early on it so the cancel goes out at once.
      await sleep(o.timers, pollMs, stopDeadline === null ? r.signal : undefined);
    }
  };
}
