// Pure rules of distributed dispatch (seed 002): label selectors, worker health, whether a dispatch goes
// to a worker, is held for one, or is refused, and the conditions and error texts a waiting run carries.

import { formatDuration } from './duration';
import type { RunCondition } from './types';

export type Labels = Record<string, string>;

/** Exact-match AND over labels: every selector key must be a worker label with the same value. */
export function selectorMatches(selector: Labels | null | undefined, labels: Labels): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector)) {
    if (!Object.prototype.hasOwnProperty.call(labels, k) || labels[k] !== v) return false;
  }
  return true;
}

/** `{gpu: true, zone: b}`: keys sorted, so one selector always reads the same; `{}` when empty. */
export function formatSelector(selector: Labels | null | undefined): string {
  const keys = Object.keys(selector ?? {}).sort();
  return `{${keys.map((k) => `${k}: ${selector![k]}`).join(', ')}}`;
}

/** A worker as the dispatcher sees it: its labels and when it was last heard from (wall-clock ms). */
export interface WorkerPresence {
  worker_id: string;
  labels: Labels;
  last_heartbeat_ms: number;
}

/** Healthy = heard from within the stale threshold. */
export function isWorkerHealthy(w: WorkerPresence, nowMs: number, staleMs: number): boolean {
  return nowMs - w.last_heartbeat_ms <= staleMs;
}

/** Display health of a worker for the console and `dagu_workers{status}`. */
export function workerHealth(w: WorkerPresence, nowMs: number, staleMs: number): 'healthy' | 'unhealthy' {
  return isWorkerHealthy(w, nowMs, staleMs) ? 'healthy' : 'unhealthy';
}

/**
 * Why a run waits for a worker: none matches its selector, none is healthy at all, or no coordinator is alive
 * to hand it to one (a coordinator relays every worker's heartbeat and every claim).
 */
export type WaitReason = 'NoMatchingWorker' | 'NoAvailableWorker' | 'NoAvailableCoordinator';

/** Upstream Dagu's words when no coordinator is registered: the refusal the CLI prints and the API returns. */
export const NO_COORDINATORS = 'no coordinators available';

/**
 * What happens to a dispatch: `dispatch` (a healthy worker matches; the first one to poll takes it), `hold`
 * (none matches; wait up to `holdUntilMs`) or `refuse` (none matches and waiting is off for this path).
 */
export type DispatchDecision =
  | { kind: 'dispatch' }
  | { kind: 'hold'; reason: WaitReason; holdUntilMs: number }
  | { kind: 'refuse'; reason: WaitReason };

export interface DispatchInput {
  selector: Labels | null;
  workers: WorkerPresence[];
  nowMs: number;
  staleMs: number;
  /** `coordinator.worker_wait_timeout`; 0 refuses at once. */
  waitMs: number;
  /** The scheduler's queue re-dispatch keeps the refusal: the queue already holds the run. */
  fromQueue: boolean;
  /** A store that does not survive a restart cannot hold anything. */
  durableStore: boolean;
  /** Whether a coordinator has been seen alive recently (see coordinatorPresence.ts). */
  coordinatorAvailable: boolean;
}

export function decideDispatch(i: DispatchInput): DispatchDecision {
  if (!i.coordinatorAvailable) {
    // Nothing can hand the run to a worker, nor fail a hold that runs out but the active scheduler. A direct
    // dispatch is refused at once, as upstream does: its caller is there to read why. The queue's run is
    // already recorded and its caller is a timer: it is held, so it ends at its wait rather than never.
    const reason: WaitReason = 'NoAvailableCoordinator';
    if (!i.fromQueue || i.waitMs <= 0 || !i.durableStore) return { kind: 'refuse', reason };
    return { kind: 'hold', reason, holdUntilMs: i.nowMs + i.waitMs };
  }
  const healthy = i.workers.filter((w) => isWorkerHealthy(w, i.nowMs, i.staleMs));
  if (healthy.some((w) => selectorMatches(i.selector, w.labels))) return { kind: 'dispatch' };
  const reason: WaitReason = healthy.length > 0 ? 'NoMatchingWorker' : 'NoAvailableWorker';
  if (i.fromQueue || i.waitMs <= 0 || !i.durableStore) return { kind: 'refuse', reason };
  return { kind: 'hold', reason, holdUntilMs: i.nowMs + i.waitMs };
}

/** The human message of a wait reason. */
export function waitMessage(reason: WaitReason, selector: Labels | null): string {
  if (reason === 'NoAvailableCoordinator') return NO_COORDINATORS;
  return reason === 'NoMatchingWorker'
    ? `no healthy worker matches the selector ${formatSelector(selector)}`
    : 'no healthy worker is registered with the coordinator';
}

/** The two conditions of a run waiting for a worker (seed 002): `Runnable=False` and `WorkerReady=False`. */
export function waitingConditions(
  reason: WaitReason,
  selector: Labels | null,
  observedIso: string,
): RunCondition[] {
  const message = waitMessage(reason, selector);
  return [
    { type: 'Runnable', status: 'False', reason, message, checked_at: observedIso },
    { type: 'WorkerReady', status: 'False', reason, message, checked_at: observedIso },
  ];
}

/** The error of a held run whose wait ran out: `no worker matched the selector {zone: b} within 2m0s`. */
export function holdExpiredError(selector: Labels | null, waitMs: number): string {
  return `no worker matched the selector ${formatSelector(selector)} within ${formatDuration(waitMs)}`;
}

/** The error of a run whose ordinary task no healthy matching worker claimed within the reservation TTL. */
export function unclaimedError(selector: Labels | null, ttlMs: number): string {
  return `no healthy worker matching the selector ${formatSelector(selector)} took the run within ${formatDuration(ttlMs)}`;
}

/** The error of a dispatch refused at once (waiting off, or the queue's re-dispatch). */
export function refusalError(reason: WaitReason, selector: Labels | null): string {
  if (reason === 'NoAvailableCoordinator') return NO_COORDINATORS;
  return reason === 'NoMatchingWorker'
    ? `no worker matches the selector ${formatSelector(selector)}`
    : 'no available workers: no healthy worker is registered with the coordinator';
}

/** Whether a held task may still be claimed: a held task whose wait passed waits for the detector. */
export function isClaimable(task: { hold_until_ms: number | null }, nowMs: number): boolean {
  return task.hold_until_ms === null || nowMs < task.hold_until_ms;
}
