// A worker's heartbeat state and capacity as the workers page shows them.

import type { WorkerSummary } from '@/components/apiTypes';
import type { Tone } from '../tone';

export type WorkerState = WorkerSummary['state'];

/**
 * The state the server judged; a server that predates the `state` field is judged here by the same rule:
 * healthy within half the stale threshold, late within it (still dispatched to), lost beyond it.
 */
export function workerStateOf(
  w: { state?: WorkerState | null; heartbeat_age_ms: number },
  staleThresholdMs: number,
): WorkerState {
  if (w.state === 'healthy' || w.state === 'late' || w.state === 'lost') return w.state;
  if (w.heartbeat_age_ms <= staleThresholdMs / 2) return 'healthy';
  if (w.heartbeat_age_ms <= staleThresholdMs) return 'late';
  return 'lost';
}

export function workerStateTone(state: WorkerState): Tone {
  return state === 'healthy' ? 'ok' : state === 'late' ? 'warn' : 'bad';
}

/** How much of a worker's capacity its runs take: `fraction` is 0..1 for the bar, `text` is `2 / 4`. */
export interface CapacityUse {
  text: string;
  fraction: number;
  full: boolean;
}

export function capacityUse(running: number, maxActiveRuns: number): CapacityUse {
  const used = Math.max(0, running);
  const max = Math.max(0, maxActiveRuns);
  const fraction = max === 0 ? (used > 0 ? 1 : 0) : Math.min(1, used / max);
  return { text: `${used} / ${max}`, fraction, full: used >= max };
}
