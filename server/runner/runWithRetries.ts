// A DAG-level retry_policy: after a failed attempt the run process waits (interval × backoff^n, capped) and
// runs the next attempt of the same run ID with trigger `retry`, until the limit is spent.

import { backoffDelayMs } from '../core/backoff';
import { formatDuration } from '../core/duration';
import type { RunStatus } from '../core/types';
import { retryRun } from './retryRun';
import type { AttemptContext } from './runAttempt';

/** Runs `first`, then retries it while it ends `failed` and the DAG's retry_policy allows. */
export async function runWithRetries(
  ctx: AttemptContext,
  first: () => Promise<RunStatus>,
): Promise<RunStatus> {
  let final = await first();
  const policy = ctx.dag.retry_policy;
  while (policy && final.status === 'failed' && final.attempt <= policy.limit && !ctx.signal.aborted) {
    const delayMs = backoffDelayMs(policy, final.attempt - 1);
    ctx.logger.info('Retrying the failed run (retry_policy)', {
      run_id: final.run_id,
      next_attempt: final.attempt + 1,
      limit: policy.limit,
      wait: formatDuration(delayMs),
    });
    if (!(await wait(delayMs, ctx.signal))) break;
    final = await retryRun({ ...ctx, runId: final.run_id });
  }
  return final;
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
