// Ends the runs no worker took: a hold whose wait ran out, an ordinary task nobody claimed. Shared by the
// coordinator's detector and by the active scheduler, which does it while no coordinator is alive; an atomic
// step of the dispatch store decides which of them (or of several coordinators) writes a given run.

import { holdExpiredError } from '../core/distributed';
import { endedStatus } from '../core/endedStatus';
import type { Clock } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import type { CancelRequests, DispatchStore, DispatchTask } from './dispatchTypes';
import type { RunStore } from './types';

/**
 * Who takes an expired hold, as its claim records it: `hold-expiry:coordinator`, `hold-expiry:scheduler`.
 * A `:` never appears in a worker ID, so no worker can acknowledge such a claim.
 */
export type HoldTaker = `hold-expiry:${string}`;

export function isHoldTaker(claimant: string | null | undefined): boolean {
  return typeof claimant === 'string' && claimant.startsWith('hold-expiry:');
}

/** The run of `t` still waits for a worker: queued, the same attempt, no worker has it. */
export function isWaiting(s: RunStatus, t: Pick<DispatchTask, 'attempt'>): boolean {
  return s.status === 'queued' && s.attempt === t.attempt && s.worker_id === null;
}

export interface EndWaitingDeps {
  runs: RunStore;
  cancels: CancelRequests;
  clock: Clock;
  /** This process's per-run lock, when it has one (the coordinator's parts share one, its RunLocks). */
  locks?: { with<T>(runId: string, fn: () => Promise<T>): Promise<T> };
}

/**
 * Fails the run of `t` with `error` if it still waits for a worker; false when it no longer does. The caller
 * has won the task (taken or deleted it), which is what keeps another process from writing the run too.
 */
export function failWaitingRun(t: DispatchTask, error: string, d: EndWaitingDeps): Promise<boolean> {
  const fail = async () => {
    const r = await d.runs.readStatus(t.run_id);
    if (r.kind !== 'ok' || !isWaiting(r.status, t)) return false;
    await d.runs.writeStatus(endedStatus(r.status, 'failed', error, isoUtc(d.clock.nowMs())));
    await d.runs.unmarkActive(t.run_id);
    await d.cancels.clear(t.run_id);
    return true;
  };
  return d.locks ? d.locks.with(t.run_id, fail) : fail();
}

export type ExpireHoldOutcome =
  /**
   * The run was failed with `error` (the seed's text: `no worker matched the selector {zone: b} within
   * 2m0s`). `unremoved`: why the taken task could not be removed (a later pass removes it), else null.
   */
  | { kind: 'failed'; error: string; unremoved: string | null }
  /** Its run had left `queued` or is gone: the task was removed without a write (or `unremoved` says why not). */
  | { kind: 'dropped'; unremoved: string | null }
  /** Someone else has the task (another detector, a cancel, a worker in the last moment): nothing done. */
  | { kind: 'elsewhere' }
  /** The run's status cannot be read: the task is left for a later pass. */
  | { kind: 'unreadable'; path: string; error: string };

/**
 * Ends the held task `t` whose wait has passed. The task is taken first (an atomic rename, as a worker's
 * claim), so exactly one process goes on; the run is failed, then the taken task removed. One that cannot
 * write the run gives the claim back at once; a process that dies in between leaves a claim that the
 * dispatch store gives back after the reservation TTL. Either way the next pass, here or elsewhere, finds
 * the task again and finishes.
 */
export async function expireHold(
  t: DispatchTask,
  d: EndWaitingDeps & { tasks: DispatchStore; taker: HoldTaker },
): Promise<ExpireHoldOutcome> {
  const before = await d.runs.readStatus(t.run_id);
  if (before.kind === 'corrupt') return { kind: 'unreadable', path: before.path, error: before.error };
  const taken = await d.tasks.takeExpiredHold(t.task_id, d.taker, d.clock.nowMs());
  if (!taken) return { kind: 'elsewhere' };
  const error = holdExpiredError(taken.worker_selector, taken.wait_ms ?? 0);
  let failed: boolean;
  try {
    failed = await failWaitingRun(taken, error, d);
  } catch (err) {
    // The run could not be written (a full disk): the task goes back to pending at once, so that the next
    // pass that can write fails the run, rather than a reservation TTL later. Giving it back is best effort:
    // a claim left here is still given back by `recycle`.
    await d.tasks.release(taken.task_id, d.taker, taken.claim!.token).catch(() => false);
    throw err;
  }
  // The run is settled whatever happens now: a task left behind only costs a later pass a read.
  const unremoved = await d.tasks.ack(taken.task_id, d.taker, taken.claim!.token).then(
    () => null,
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );
  return failed ? { kind: 'failed', error, unremoved } : { kind: 'dropped', unremoved };
}
