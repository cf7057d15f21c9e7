// How long a run process keeps trying to report its end when the run store does not answer. The dead-run
// check waits this out before it judges a run that could not report (scheduler/claimedAttemptCheck.ts).

import type { Config } from '../config/types';
import { SECOND } from '../core/units';

const FINAL_STATUS_RETRY_CAP_MS = 30 * SECOND;

/** Longest wait for the logs to be shipped before the final status is written (a database that is down). */
export const FINAL_LOG_FLUSH_MS = 10 * SECOND;

/**
 * How long a run process keeps trying to write its final status before it gives up: the dead-run check marks
 * the run failed once its heartbeat is stale, so trying much longer than that threshold gains nothing.
 */
export function finalStatusRetryMs(config: Config): number {
  return Math.min(FINAL_STATUS_RETRY_CAP_MS, config.run.heartbeat_stale_threshold_ms);
}

/**
 * The longest a run process may spend reporting its end once its steps are over: shipping its logs (no
 * heartbeat meanwhile), then retrying its final status. After that it has written it, or given up and exited.
 */
export function finalStatusBudgetMs(config: Config): number {
  const retryMs = finalStatusRetryMs(config);
  return Math.min(FINAL_LOG_FLUSH_MS, retryMs) + retryMs;
}
