// How long a run process keeps trying to report its end when the run store does not answer. The dead-run
// check waits this out before it judges a run that could not report (scheduler/claimedAttemptCheck.ts).

import type { Config } from '../config/types';
import { storeQueryTimeoutMs } from '../core/storeQueryTimeout';
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
 * heartbeat meanwhile), then retrying its final status; on PostgreSQL the last try under way, and the note
 * of an unwritten end, each bounded by a connection attempt and a statement timeout. After that it has
 * written its end, or given up and exited.
 */
export function finalStatusBudgetMs(config: Config): number {
  const retryMs = finalStatusRetryMs(config);
  const base = Math.min(FINAL_LOG_FLUSH_MS, retryMs) + retryMs;
  if (config.storage.backend !== 'postgres') return base;
  const statementMs =
    config.storage.postgres.connect_timeout_ms + storeQueryTimeoutMs(config.run.heartbeat_stale_threshold_ms);
  return base + 2 * statementMs;
}
