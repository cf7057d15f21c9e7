// How long one statement of a command's (a run process's) database connection may take before it is given
// up. A stalled database must not hold a run's exit past its final-status budget, and a process that vanished
// in the middle of a transaction must not hold its row locks (the run's own row, which the dead-run check
// writes) for ever.

import { SECOND } from './units';

const MIN_MS = 2 * SECOND;
const MAX_MS = 10 * SECOND;

/**
 * A quarter of run.heartbeat_stale_threshold, kept within 2 s and 10 s: a few tries of a status write fit in
 * the final-status budget (the threshold itself), and a healthy database answers far sooner even when busy.
 */
export function storeQueryTimeoutMs(heartbeatStaleMs: number): number {
  return Math.min(MAX_MS, Math.max(MIN_MS, Math.floor(heartbeatStaleMs / 4)));
}
