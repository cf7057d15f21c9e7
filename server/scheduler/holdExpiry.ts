// The active scheduler's share of ending runs no worker took. A held run must not outlive its hold, yet only
// a coordinator's detector fails an expired one: on a one-host install, or with the coordinator down, nobody
// would. So while no coordinator is alive the scheduler does the detector's housekeeping of waiting tasks:
// expired holds fail with the seed's text, unclaimed tasks past the reservation TTL fail, stale claims go
// back. While one is alive it leaves that to it, except for a hold it should have failed long ago.

import { coordinatorAvailability, type CoordinatorAvailability } from '../core/coordinatorPresence';
import { formatSelector, isWorkerHealthy, selectorMatches, unclaimedError } from '../core/distributed';
import type { Clock, Logger } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import type {
  CancelRequests,
  CoordinatorRegistry,
  DispatchStore,
  DispatchTask,
  WorkerRegistry,
} from '../store/dispatchTypes';
import type { RunStore } from '../store/types';
import { expireHold, failWaitingRun, type EndWaitingDeps } from '../store/expireHold';

/**
 * Detection intervals a live coordinator gets to fail an expired hold before the scheduler does it: its
 * detector may be in a slow pass, or stuck, while its liveness record stays fresh.
 */
export const COORDINATOR_GRACE_INTERVALS = 3;

/** Failing tasks remembered for logging once; past this many (a flood), the memory starts over. */
const MAX_REMEMBERED_FAILURES = 10_000;

export interface HoldExpiryDeps {
  runs: RunStore;
  tasks: DispatchStore;
  cancels: CancelRequests;
  workers: Pick<WorkerRegistry, 'list'>;
  coordinators: Pick<CoordinatorRegistry, 'list'>;
  clock: Clock;
  logger: Logger;
  /** The fence: only the active scheduler writes runs, and only while it holds the lock. */
  canDispatch: () => boolean;
  /** `coordinator.detection_interval`: how soon a live coordinator fails an expired hold itself. */
  detectionIntervalMs: number;
  /** `coordinator.reservation_ttl`. */
  reservationTtlMs: number;
  /** `coordinator.worker_stale_threshold`. */
  staleMs: number;
}

/** What one sweep did, by run ID (for tests and the debug log). */
export interface HoldExpirySweep {
  /** Whether a coordinator was alive (then only long-overdue holds are the scheduler's). */
  coordinatorAlive: boolean;
  /** Held runs whose wait ran out, now failed. */
  holdsFailed: string[];
  /** Expired holds whose run had already left `queued`: the task was removed without a write. */
  tasksDropped: string[];
  /** Runs of ordinary tasks nobody claimed within the reservation TTL, now failed (no coordinator only). */
  unclaimedFailed: string[];
  /** Claims not acknowledged within the reservation TTL, back to pending (no coordinator only). */
  claimsReturned: string[];
}

export class HoldExpiry {
  /** Whether the scheduler has said that it covers for a missing coordinator (said once per absence). */
  private covering = false;
  /** Tasks whose handling failed, so that a failure is logged once rather than at every pass. */
  private readonly failing = new Set<string>();

  constructor(private readonly d: HoldExpiryDeps) {}

  /** One pass; runs on the active scheduler's dead-run check. A failure on one run does not stop the others. */
  async sweep(): Promise<HoldExpirySweep> {
    const result: HoldExpirySweep = {
      coordinatorAlive: true,
      holdsFailed: [],
      tasksDropped: [],
      unclaimedFailed: [],
      claimsReturned: [],
    };
    if (!this.d.canDispatch()) return result;
    const pending = await this.d.tasks.pendingSummaries();
    const nowMs = this.d.clock.nowMs();
    const availability = coordinatorAvailability(await this.d.coordinators.list(), nowMs);
    result.coordinatorAlive = availability.available;
    this.sayWhoCovers(availability, pending.length > 0);
    if (!availability.available) await this.recycle(nowMs, result);

    const graceMs = COORDINATOR_GRACE_INTERVALS * this.d.detectionIntervalMs;
    const due = await this.d.tasks.listPending(
      (t) =>
        t.hold_until_ms !== null &&
        t.hold_until_ms <= nowMs &&
        (!availability.available || nowMs - t.hold_until_ms > graceMs),
    );
    const deps = { ...this.endDeps(), tasks: this.d.tasks, taker: 'hold-expiry:scheduler' } as const;
    await this.each(due, { fenced: true }, async (t) => {
      const outcome = await expireHold(t, deps);
      if (outcome.kind === 'unreadable') {
        this.d.logger.error('A held run has an unreadable status; its task is kept for the next pass', {
          run_id: t.run_id,
          path: outcome.path,
          error: outcome.error,
        });
        return;
      }
      if (outcome.kind === 'elsewhere') return;
      if (outcome.kind === 'failed') {
        result.holdsFailed.push(t.run_id);
        this.d.logger.warn('Failed a held run: its wait for a worker ran out', {
          dag: t.dag_name,
          run_id: t.run_id,
          selector: formatSelector(t.worker_selector),
          error: outcome.error,
          coordinator: availability.available ? 'overdue' : 'none alive',
        });
      } else {
        result.tasksDropped.push(t.run_id);
      }
      if (outcome.unremoved !== null) {
        this.d.logger.error('Could not remove the task of a held run that ended; a later pass removes it', {
          run_id: t.run_id,
          error: outcome.unremoved,
        });
      }
    });
    return result;
  }

  /**
   * The coordinator's recycle step, while there is none: claims not acknowledged in time go back to pending
   * (an expiry that stopped half-way among them), and ordinary tasks nobody claimed within the TTL fail their
   * runs, unless a healthy matching worker is on record (it only looks healthy for a moment, but may be busy).
   */
  private async recycle(nowMs: number, result: HoldExpirySweep): Promise<void> {
    const healthy = (await this.d.workers.list()).filter((w) => isWorkerHealthy(w, nowMs, this.d.staleMs));
    const busyMatch = (t: DispatchTask) => healthy.some((w) => selectorMatches(t.worker_selector, w.labels));
    const { returned, expired } = await this.d.tasks.recycle(nowMs, this.d.reservationTtlMs, busyMatch);
    for (const t of returned) {
      result.claimsReturned.push(t.run_id);
      if (t.hold_until_ms !== null && t.hold_until_ms <= nowMs) continue; // ended by the hold step
      this.d.logger.warn('A worker claimed a run but did not acknowledge it; offered again', {
        run_id: t.run_id,
      });
    }
    // The store removed these tasks, for this process only: their runs fail now or they would wait forever
    // (even if the lock was lost meanwhile: no other process can have them).
    await this.each(expired, { fenced: false }, async (t) => {
      const error = unclaimedError(t.worker_selector, this.d.reservationTtlMs);
      if (!(await failWaitingRun(t, error, this.endDeps()))) return;
      result.unclaimedFailed.push(t.run_id);
      this.d.logger.warn('Failed a run no worker took', { dag: t.dag_name, run_id: t.run_id, error });
    });
  }

  /** Says once when the scheduler starts covering for a missing coordinator, and when one is back. */
  private sayWhoCovers(availability: CoordinatorAvailability, tasksWaiting: boolean): void {
    if (availability.available) {
      if (this.covering) this.d.logger.info('A coordinator is alive again; it fails expired holds');
      this.covering = false;
      return;
    }
    if (this.covering || !tasksWaiting) return;
    this.covering = true;
    this.d.logger.warn('No coordinator is alive; the scheduler fails held runs whose wait runs out', {
      last_seen: availability.last_seen_ms === null ? null : isoUtc(availability.last_seen_ms),
    });
  }

  private endDeps(): EndWaitingDeps {
    return { runs: this.d.runs, cancels: this.d.cancels, clock: this.d.clock };
  }

  /** Runs `fn` on every task (while the lock is held, if fenced); one task's failure does not stop the rest. */
  private async each(
    tasks: DispatchTask[],
    o: { fenced: boolean },
    fn: (t: DispatchTask) => Promise<void>,
  ): Promise<void> {
    for (const t of tasks) {
      if (o.fenced && !this.d.canDispatch()) return;
      try {
        await fn(t);
        this.failing.delete(t.task_id);
      } catch (err) {
        // Said once until a pass handles it: on a full disk every pass fails, several times a second.
        if (this.failing.has(t.task_id)) continue;
        this.failing.add(t.task_id);
        this.d.logger.error('Hold expiry could not handle a run; trying again next pass', {
          run_id: t.run_id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    if (this.failing.size > MAX_REMEMBERED_FAILURES) this.failing.clear();
  }
}
