// The coordinator's periodic detector: fails runs no worker took (an ordinary task nobody claimed, a hold
// whose wait ran out), fails the runs of workers that stopped heartbeating, clears spent cancel requests, and
// removes the records of workers silent for longer than the retention (retired pods never come back).

import { formatSelector, isWorkerHealthy, selectorMatches, unclaimedError } from '../core/distributed';
import { formatDuration } from '../core/duration';
import type { Clock, Logger, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import { isoUtc } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import type {
  CancelRequests,
  DispatchStore,
  DispatchTask,
  WorkerRecord,
  WorkerRegistry,
} from '../store/dispatchTypes';
import type { RunStore } from '../store/types';
import { CANCELLED_BEFORE_WORKER } from './dispatcher';
import { endedStatus } from '../core/endedStatus';
import { expireHold, failWaitingRun, isWaiting, type EndWaitingDeps } from '../store/expireHold';
import { RunLocks } from './runLocks';
import { onWorker, runsOwnedBy } from './workerRuns';
import type { WorkerSightings } from './workerSightings';

export interface CoordinatorDetectorDeps {
  /** What this coordinator heard from workers whose records the registry may not have taken (a full disk). */
  sightings?: WorkerSightings;
  runs: RunStore;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** `coordinator.detection_interval`. */
  intervalMs: number;
  /** `coordinator.worker_stale_threshold`. */
  staleMs: number;
  /** `coordinator.reservation_ttl`. */
  reservationTtlMs: number;
  /** `coordinator.worker_retention`: records silent for longer are removed; 0 keeps them for ever. */
  workerRetentionMs: number;
  /** Shared with the other parts of this coordinator that write runs. */
  locks?: RunLocks;
}

/** What one sweep did, by run ID (for tests and the debug log). */
export interface SweepResult {
  /** Runs of ordinary tasks nobody claimed within the reservation TTL, now failed. */
  unclaimedFailed: string[];
  /** Claims not acknowledged in time, back to pending. */
  claimsReturned: string[];
  /** Held runs whose wait ran out, now failed (their task deleted). */
  holdsFailed: string[];
  /** Tasks past their hold deleted without a write: their run had left `queued` or was gone. */
  tasksDropped: string[];
  /** Runs of silent or unknown workers, now failed. */
  workerRunsFailed: string[];
  /** Cancel requests of runs that ended. */
  cancelsCleared: string[];
  /** Workers silent for longer than the retention whose records were removed. */
  workersRemoved: string[];
}

export class CoordinatorDetector {
  private readonly loop: TimerLoop;
  private readonly locks: RunLocks;
  /** When (monotonic ms) each run on a healthy worker was first seen missing from its heartbeats. */
  private readonly unlistedSince = new Map<string, number>();
  private readonly seenThisPass = new Set<string>();
  /** Items (`<what>:<run ID>`) whose handling failed, so that a failure is logged once, not every pass. */
  private readonly failing = new Set<string>();
  /**
   * When this detector began (clock ms). A worker cannot heartbeat while no coordinator is up, so silence is
   * only judged once a whole stale threshold has passed under this coordinator: a restart that took longer
   * than the threshold must not fail every run that kept going on its worker meanwhile.
   */
  private readonly startedMs: number;

  constructor(private readonly d: CoordinatorDetectorDeps) {
    this.locks = d.locks ?? new RunLocks();
    this.startedMs = d.clock.nowMs();
    this.loop = new TimerLoop({
      timers: d.timers,
      pass: async () => {
        await this.sweep();
        return d.intervalMs;
      },
      onError: (err) => {
        this.d.logger.error('Coordinator detector pass failed; retrying next interval', {
          error: err instanceof Error ? err.message : String(err),
        });
        return d.intervalMs;
      },
    });
  }

  /** Sweeps now and then every interval until `stop` (after which it never sweeps again). */
  start(): void {
    this.loop.start(0);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass. A failure in one part is logged and does not stop the others. */
  async sweep(): Promise<SweepResult> {
    const result: SweepResult = {
      unclaimedFailed: [],
      claimsReturned: [],
      holdsFailed: [],
      tasksDropped: [],
      workerRunsFailed: [],
      cancelsCleared: [],
      workersRemoved: [],
    };
    const parts: Array<[string, () => Promise<void>]> = [
      ['recycle', () => this.recycle(result)],
      ['holds', () => this.expireHolds(result)],
      ['workers', () => this.failSilentWorkerRuns(result)],
      ['cancels', () => this.clearSpentCancels(result)],
      ['retention', () => this.pruneRetiredWorkers(result)],
    ];
    for (const [part, run] of parts) {
      try {
        await run();
      } catch (err) {
        this.d.logger.error('Coordinator detector step failed', {
          step: part,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    return result;
  }

  /**
   * Claims not acknowledged go back to pending; ordinary tasks nobody claimed fail their runs, unless a
   * healthy worker matches them (it is busy: the run waits for a free slot, as a run in a queue would).
   */
  private async recycle(result: SweepResult): Promise<void> {
    const now = this.d.clock.nowMs();
    const healthy = (await this.d.workers.list()).filter((w) => isWorkerHealthy(w, now, this.d.staleMs));
    const busyMatch = (t: DispatchTask) => healthy.some((w) => selectorMatches(t.worker_selector, w.labels));
    const { returned, expired } = await this.d.tasks.recycle(now, this.d.reservationTtlMs, busyMatch);
    for (const t of returned) {
      result.claimsReturned.push(t.run_id);
      // A hold past its wait is not offered again: the hold step below ends it (most likely an expiry that
      // stopped half-way, whose taker's claim this was).
      if (t.hold_until_ms !== null && t.hold_until_ms <= now) continue;
      this.d.logger.warn('A worker claimed a run but did not acknowledge it; offered again', {
        run_id: t.run_id,
        worker_id: t.claim?.worker_id ?? null,
      });
    }
    // The store already removed these tasks: their runs are failed now or they would wait forever.
    await this.each(expired, 'unclaimed', async (t) => {
      const error = unclaimedError(t.worker_selector, this.d.reservationTtlMs);
      if (await failWaitingRun(t, error, this.endDeps())) {
        result.unclaimedFailed.push(t.run_id);
        this.d.logger.warn('Failed a run no worker took', { dag: t.dag_name, run_id: t.run_id, error });
      }
    });
  }

  /**
   * Held tasks past their hold. Each is taken before its run is failed (expireHold), so the active scheduler,
   * which does the same while it sees no coordinator alive, and other coordinators never write a run twice.
   */
  private async expireHolds(result: SweepResult): Promise<void> {
    const now = this.d.clock.nowMs();
    const due = await this.d.tasks.listPending((t) => t.hold_until_ms !== null && t.hold_until_ms <= now);
    await this.each(due, 'hold', async (t) => {
      const outcome = await expireHold(t, {
        ...this.endDeps(),
        tasks: this.d.tasks,
        taker: 'hold-expiry:coordinator',
      });
      if (outcome.kind === 'unreadable') {
        this.d.logger.error('A held run has an unreadable status; its task is kept for the next pass', {
          run_id: t.run_id,
          path: outcome.path,
          error: outcome.error,
        });
      } else if (outcome.kind === 'failed') {
        result.holdsFailed.push(t.run_id);
        this.d.logger.warn('Failed a held run: its wait for a worker ran out', {
          dag: t.dag_name,
          run_id: t.run_id,
          selector: formatSelector(t.worker_selector),
          error: outcome.error,
        });
      } else if (outcome.kind === 'dropped') {
        result.tasksDropped.push(t.run_id);
      }
      if ((outcome.kind === 'failed' || outcome.kind === 'dropped') && outcome.unremoved !== null) {
        this.d.logger.error('Could not remove the task of a held run that ended; a later pass removes it', {
          run_id: t.run_id,
          error: outcome.unremoved,
        });
      }
    });
  }

  private endDeps(): EndWaitingDeps {
    return { runs: this.d.runs, cancels: this.d.cancels, clock: this.d.clock, locks: this.locks };
  }

  /** Runs on a worker whose heartbeats stopped (or that is not registered at all) are failed. */
  private async failSilentWorkerRuns(result: SweepResult): Promise<void> {
    const now = this.d.clock.nowMs();
    const judgeSilence = now - this.startedMs > this.d.staleMs;
    const stored = await this.d.workers.list();
    const records = this.d.sightings
      ? this.d.sightings.overlay(stored, this.d.clock.nowMs())
      : new Map(stored.map((w) => [w.worker_id, w]));
    const failedByWorker = new Map<string, string[]>();
    this.seenThisPass.clear();
    // A run whose task is still pending has no worker yet: no need to read it (thousands may be held).
    const waiting = new Set((await this.d.tasks.pendingSummaries()).map((t) => t.run_id));
    const active = (await this.d.runs.listActive()).filter((a) => !waiting.has(a.run_id));
    await this.each(active, 'worker run', async (a) => {
      const r = await this.d.runs.readStatus(a.run_id);
      if (r.kind !== 'ok' || !onWorker(r.status)) return;
      const workerId = r.status.worker_id!;
      const record = records.get(workerId);
      // An unregistered worker is judged at once; a silent one only after the start-up grace.
      const reason =
        (judgeSilence || record === undefined
          ? silenceReason(workerId, record, now, this.d.staleMs)
          : null) ?? this.unlistedReason(r.status, record!);
      if (reason === null) return;
      const failed = await this.locks.with(a.run_id, async () => {
        // Read again right before writing: a final status may have landed meanwhile.
        const again = await this.d.runs.readStatus(a.run_id);
        if (again.kind !== 'ok' || !onWorker(again.status) || again.status.worker_id !== workerId)
          return false;
        if (again.status.attempt !== r.status.attempt) return false;
        const nowIso = isoUtc(this.d.clock.nowMs());
        await this.d.runs.writeStatus(
          endedStatus(again.status, 'failed', reason, nowIso, 'the worker stopped heartbeating'),
        );
        await this.d.runs.unmarkActive(a.run_id);
        await this.d.cancels.clear(a.run_id);
        return true;
      });
      if (!failed) return;
      result.workerRunsFailed.push(a.run_id);
      failedByWorker.set(workerId, [...(failedByWorker.get(workerId) ?? []), a.run_id]);
    });
    for (const key of this.unlistedSince.keys())
      if (!this.seenThisPass.has(key)) this.unlistedSince.delete(key);
    for (const [workerId, runIds] of failedByWorker) {
      const rec = records.get(workerId);
      this.d.logger.warn('Failed the runs of a worker that stopped heartbeating', {
        worker_id: workerId,
        run_ids: runIds,
        last_heartbeat: rec ? isoUtc(rec.last_heartbeat_ms) : null,
      });
    }
  }

  /**
   * A healthy worker that has not listed one of its runs for longer than the stale threshold no longer
   * runs it (it restarted under the same ID, or dropped it): the run would otherwise stay active for ever.
   */
  private unlistedReason(s: RunStatus, worker: WorkerRecord): string | null {
    const listed = worker.running.some((x) => x.run_id === s.run_id && x.attempt === s.attempt);
    const key = `${s.run_id}#${s.attempt}`;
    this.seenThisPass.add(key);
    if (listed) {
      this.unlistedSince.delete(key);
      return null;
    }
    const now = this.d.clock.monoMs();
    const since = this.unlistedSince.get(key);
    if (since === undefined) {
      this.unlistedSince.set(key, now);
      return null;
    }
    if (now - since <= this.d.staleMs) return null;
    this.unlistedSince.delete(key);
    return `worker ${s.worker_id} no longer reports run ${s.run_id}; marked failed`;
  }

  /**
   * Removes the records of workers silent for longer than the retention, so retired workers (every new pod
   * has a new ID) leave the worker list and the unhealthy count. Runs last: the silent-worker step above has
   * settled their runs by now. A worker that still owns a run (unreadable, or settled later) keeps its record.
   */
  private async pruneRetiredWorkers(result: SweepResult): Promise<void> {
    const retention = this.d.workerRetentionMs;
    if (retention <= 0) return;
    const now = this.d.clock.nowMs();
    const retired = (await this.d.workers.list()).filter((w) => now - w.last_heartbeat_ms > retention);
    if (retired.length === 0) return;
    const owned = await runsOwnedBy(this.d.runs, this.d.tasks, new Set(retired.map((w) => w.worker_id)));
    for (const w of retired) {
      if (owned.has(w.worker_id)) continue;
      // Read again: a heartbeat that landed since the list brought the worker back.
      const again = await this.d.workers.get(w.worker_id);
      if (!again || now - again.last_heartbeat_ms <= retention) continue;
      await this.d.workers.remove(w.worker_id);
      this.d.sightings?.forget(w.worker_id);
      result.workersRemoved.push(w.worker_id);
      this.d.logger.info(
        'Removed the record of a worker silent for longer than coordinator.worker_retention',
        {
          worker_id: w.worker_id,
          last_heartbeat: isoUtc(again.last_heartbeat_ms),
        },
      );
    }
  }

  /**
   * Cancel requests of runs that ended are cleared. A run cancelled while a worker held its claim, whose
   * claim then went back to pending unacknowledged, is aborted here and its task dropped.
   */
  private async clearSpentCancels(result: SweepResult): Promise<void> {
    await this.each(await this.d.cancels.list(), 'cancel request', async (runId) => {
      const r = await this.d.runs.readStatus(runId);
      if (r.kind === 'corrupt') return;
      if (r.kind === 'missing' || TERMINAL_RUN_STATES.includes(r.status.status)) {
        await this.d.cancels.clear(runId);
        result.cancelsCleared.push(runId);
        return;
      }
      const task = await this.d.tasks.findByRun(runId);
      if (!task || task.claim !== null || !isWaiting(r.status, task)) return;
      const aborted = await this.locks.with(runId, async () => {
        if (!(await this.d.tasks.delete(task.task_id))) return false; // claimed again just now: the ack aborts it
        const again = await this.d.runs.readStatus(runId);
        if (again.kind !== 'ok' || !isWaiting(again.status, task)) return false;
        const nowIso = isoUtc(this.d.clock.nowMs());
        await this.d.runs.writeStatus(endedStatus(again.status, 'aborted', CANCELLED_BEFORE_WORKER, nowIso));
        await this.d.runs.unmarkActive(runId);
        await this.d.cancels.clear(runId);
        return true;
      });
      if (aborted) result.cancelsCleared.push(runId);
    });
  }

  /**
   * Runs `fn` on every item; one item's failure is logged and the others still get their turn. A failure is
   * logged once until that item is handled (a full disk fails it every pass, several times a second).
   */
  private async each<T>(items: T[], what: string, fn: (item: T) => Promise<void>): Promise<void> {
    const seen = new Set<string>();
    for (const item of items) {
      const key = `${what}:${runIdOf(item) ?? ''}`;
      seen.add(key);
      try {
        await fn(item);
        this.failing.delete(key);
      } catch (err) {
        if (this.failing.has(key)) continue;
        this.failing.add(key);
        this.d.logger.error('Coordinator detector could not handle an item; trying again next pass', {
          item: what,
          run_id: runIdOf(item),
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    for (const key of this.failing)
      if (key.startsWith(`${what}:`) && !seen.has(key)) this.failing.delete(key);
  }
}

function runIdOf(item: unknown): string | null {
  if (typeof item === 'string') return item;
  if (item && typeof item === 'object' && 'run_id' in item) return String(item.run_id);
  return null;
}

/** Why the runs of `workerId` count as abandoned, or null while its heartbeats are fresh. */
export function silenceReason(
  workerId: string,
  record: WorkerRecord | undefined,
  nowMs: number,
  staleMs: number,
): string | null {
  if (!record) return `worker ${workerId} is not registered; marked failed`;
  const age = nowMs - record.last_heartbeat_ms;
  if (age <= staleMs) return null;
  return `worker ${workerId} stopped heartbeating ${formatDuration(Math.round(age / SECOND) * SECOND)} ago; marked failed`;
}
