// Whether a coordinator is alive, judged from the liveness records coordinators keep fresh in the data
// directory, and what a run waiting for a worker shows while none is: it cannot get one.

import { waitingConditions } from './distributed';
import { isoUtc } from './runStatus';
import type { RunCondition, RunStatus } from './types';

/** What a coordinator's liveness record says about it (the store's record carries more). */
export interface CoordinatorBeat {
  coordinator_id: string;
  /** Wall-clock ms of the coordinator's host when it last refreshed its record. */
  last_seen_ms: number;
  /** How long after `last_seen_ms` it promises to have refreshed again: a record older than this is a dead one. */
  fresh_for_ms: number;
  /** Set when it stopped cleanly: gone at once, not after `fresh_for_ms`. */
  stopped_at_ms: number | null;
}

/**
 * How often a coordinator that promises `freshForMs` refreshes its record: three times within it, so one
 * slow or failed write does not make a live coordinator look dead.
 */
export function beaconIntervalMs(freshForMs: number): number {
  return Math.max(1, Math.floor(freshForMs / 3));
}

/**
 * Alive = not stopped, and refreshed within its own promise. The time is the coordinator host's wall clock
 * against ours, as worker heartbeats are: hosts whose clocks differ by more than the promise disagree.
 */
export function isCoordinatorAlive(r: CoordinatorBeat, nowMs: number): boolean {
  return r.stopped_at_ms === null && nowMs - r.last_seen_ms <= r.fresh_for_ms;
}

/** The coordinators alive now, and when one was last seen alive (null: never, in this data directory). */
export interface CoordinatorAvailability {
  available: boolean;
  alive: string[];
  last_seen_ms: number | null;
}

export function coordinatorAvailability(records: CoordinatorBeat[], nowMs: number): CoordinatorAvailability {
  const alive = records.filter((r) => isCoordinatorAlive(r, nowMs)).map((r) => r.coordinator_id);
  let lastSeen: number | null = null;
  for (const r of records) {
    const seen = r.stopped_at_ms ?? r.last_seen_ms;
    if (lastSeen === null || seen > lastSeen) lastSeen = seen;
  }
  return { available: alive.length > 0, alive: alive.sort(), last_seen_ms: lastSeen };
}

/**
 * A run that waits for a worker: queued, no worker has it, and a dispatch task holds it or the dispatcher
 * recorded why no worker could take it yet (the queue keeps such a run as an item).
 */
export function waitsForWorker(
  s: Pick<RunStatus, 'status' | 'worker_id' | 'conditions'>,
  hasTask: boolean,
): boolean {
  if (s.status !== 'queued' || s.worker_id !== null) return false;
  return hasTask || s.conditions.some((c) => c.type === 'WorkerReady' && c.status === 'False');
}

/**
 * The conditions to show for a run now. The recorded ones are what the dispatcher saw when it looked; while
 * no coordinator is alive a run waiting for a worker cannot get one whatever they say, so it reads
 * `NoAvailableCoordinator` since the coordinator was last seen (or now, if none ever was).
 */
export function conditionsNow(
  s: Pick<RunStatus, 'status' | 'worker_id' | 'conditions'>,
  hasTask: boolean,
  availability: CoordinatorAvailability,
  nowMs: number,
): RunCondition[] {
  if (availability.available || !waitsForWorker(s, hasTask)) return s.conditions;
  const since = Math.min(availability.last_seen_ms ?? nowMs, nowMs);
  return waitingConditions('NoAvailableCoordinator', null, isoUtc(since));
}
