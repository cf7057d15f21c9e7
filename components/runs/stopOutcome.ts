// What the run page says after a stop, read from the run the server answers with.

import type { RunStatus } from '@/components/apiTypes';

/**
 * Ended now, or still running because its process was signalled here or (the 202 answer) the worker running
 * it was asked to stop it on its next heartbeat.
 */
export function stopOutcome(after: Pick<RunStatus, 'status' | 'worker_id'>): string {
  if (after.status !== 'running') return `Stopped: the run is ${after.status} now.`;
  if (after.worker_id) return `Worker ${after.worker_id} was asked to stop it; it ends aborted shortly.`;
  return 'Stop signal sent; the run ends aborted shortly.';
}
