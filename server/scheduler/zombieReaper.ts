// Finds runs whose process died (host crash, kill -9, a final status it could not write on a full disk) and
// marks them failed, so nothing stays `running` or `queued` forever with no owner. Runs only on the active
// scheduler. Runs handed to the workers are owned by a dispatch task or a worker; the coordinator relays
// their heartbeats and judges silent workers.

import { hostname } from 'node:os';
import { isoUtc } from '../core/runStatus';
import type { Clock, Logger } from '../core/ports';
import type { RunStatus } from '../core/types';
import { formatDuration } from '../core/duration';
import type { DispatchStore } from '../store/dispatchTypes';
import { MINUTE } from '../core/units';
import type { QueueStore, ReadStatusResult, RunStore } from '../store/types';
import { describeErrorCode } from './describeErrorCode';
import { markUnmarkedLiveRuns } from './markUnmarkedLiveRuns';
import { ClaimedAttemptCheck } from './claimedAttemptCheck';
import { parseSlotRunId } from '../core/slotRunId';
import { isLocalProcessAlive } from '../runner/localProcess';

/** Requeued runs remembered; far more than can be stranded between two sweeps. */
const MAX_REMEMBERED_REQUEUES = 10_000;

/** How many active runs the sweep reads at once, where the store reads many in one go. */
export const SWEEP_BATCH = 500;

/**
 * A queued run that waits in its queue, unclaimed, when the sweep reads it is read again at one sweep in
 * QUIET_RECHECK_SWEEPS only (within a minute at the default interval), unless its item is among the first
 * QUEUE_HEAD_CHECKED of its queue: those are the runs the queue starts next, so a process that claims one
 * and dies is judged as soon as before. Such a run needs nothing from the sweep while it waits; reading each
 * of a backlog of thousands at every sweep kept a scheduler on files busy in proportion to its backlog. Each
 * run's turn falls on a sweep of its own (from a hash of its ID), so every sweep reads about a
 * QUIET_RECHECK_SWEEPS-th of the backlog rather than one sweep in six reading all of it.
 */
export const QUIET_RECHECK_SWEEPS = 6;
export const QUEUE_HEAD_CHECKED = 64;

/** How often the run list is searched for queued or running runs that lost their active marker. */
export const UNMARKED_SCAN_INTERVAL_MS = 5 * MINUTE;

/** How often run directories left empty by a creator that died are looked for (and at the first sweep). */
export const ABANDONED_SCAN_INTERVAL_MS = 60 * MINUTE;

/**
 * How long a run directory stays empty before it counts as abandoned: creating a run takes milliseconds,
 * and a scheduler completes a slot's half-made run at its first tick after a takeover.
 */
export const ABANDONED_CREATION_MS = 10 * MINUTE;

export interface ZombieReaperDeps {
  clock: Clock;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  heartbeatStaleMs: number;
  canDispatch: () => boolean;
  /**
   * The dispatch store: a queued run with a task waits for (or is being claimed by) a worker, not stranded.
   * Without it, only queue items and `worker_id` keep a queued run from being reaped.
   */
  tasks?: Pick<DispatchStore, 'findByRun'>;
  /**
   * Whether this instance's scheduling loop has had its chance to adopt the slots a failed instance created
   * and never started (its first tick after becoming active). Until then a queued slot run with no queue item
   * is the loop's to adopt, not a run to fail: failing it first would lose a slot the design replays.
   */
  slotAdoptionDone?: () => boolean;
  /** Whether this instance is starting the run's process, or started it a moment ago (RecentLaunches). */
  launching?: (runId: string) => boolean;
  /** Told of each run put back in its queue, so that the queue offers it at once. */
  requeued?: (runId: string) => void;
  /** This host's name, compared with a run's `host` (default: os.hostname()). */
  host?: string;
  /** Whether a local pid is alive (default: signal 0); tests pass their own. */
  processAlive?: (pid: number) => boolean;
  /**
   * How long a run process may spend reporting its end (runner finalStatusBudgetMs): a queued run whose
   * attempt was claimed is judged only after that, and the stale threshold, of silence. Default: the
   * stale threshold.
   */
  finalStatusBudgetMs?: number;
  /**
   * How old a slot may be for its stranded run (one no process ever claimed) to be started again
   * (scheduler.failover_recovery_window); an older one is failed as a skipped slot. Default: no limit.
   */
  slotRestartWindowMs?: number;
  /**
   * The store's removal of run directories their creator left empty (RunStore.removeAbandonedCreations),
   * given unwrapped; absent where the store has none.
   */
  removeAbandonedCreations?: RunStore['removeAbandonedCreations'];
}

/** Runs the scheduler made for a slot (live or replayed). */
const SLOT_TRIGGERS: ReadonlySet<string> = new Set(['scheduler', 'catchup']);

export { isLocalProcessAlive };

/** The sweep's listing of the queues: every queued run ID, and those near the head of their queue. */
interface QueueListing {
  ids: Set<string>;
  head: Set<string>;
}
const NOTHING_LISTED: QueueListing = { ids: new Set(), head: new Set() };

/** The sweep (modulo QUIET_RECHECK_SWEEPS) at which a resting run is read again: spread by its ID. */
function turnOf(runId: string): number {
  let h = 0;
  for (let i = 0; i < runId.length; i++) h = (h * 31 + runId.charCodeAt(i)) >>> 0;
  return h % QUIET_RECHECK_SWEEPS;
}

export class ZombieReaper {
  private readonly host: string;
  private readonly processAlive: (pid: number) => boolean;
  /** Stranded queued runs this instance put back in their queue: a second stranding fails them. */
  private readonly requeued = new Set<string>();
  /**
   * Markers of runs with no status, or an ended one, by run ID: when (monotonic) this instance first saw
   * each so. A marker is written before the status of a new run or attempt, so one is removed only once it
   * has looked that way for the stale threshold; removing it at once could unmark a run being created.
   */
  private readonly markerIdleSince = new Map<string, number>();
  /** Queued runs whose attempt a process claimed: judged once they stay silent long enough. */
  private readonly claimed: ClaimedAttemptCheck;
  /** Runs whose check failed (a storage error), so that a failure is logged once rather than every sweep. */
  private readonly failing = new Set<string>();
  private readonly unmarkedScan = new PeriodicScan(UNMARKED_SCAN_INTERVAL_MS, (error) =>
    this.d.logger.warn('Could not look for runs that lost their active marker; trying again', { error }),
  );
  private readonly abandonedScan = new PeriodicScan(ABANDONED_SCAN_INTERVAL_MS, (error) =>
    this.d.logger.warn('Could not look for run directories left empty by a creator; trying again', { error }),
  );

  constructor(private readonly d: ZombieReaperDeps) {
    this.host = d.host ?? hostname();
    this.processAlive = d.processAlive ?? isLocalProcessAlive;
    this.claimed = new ClaimedAttemptCheck({
      clock: d.clock,
      runs: d.runs,
      heartbeatStaleMs: d.heartbeatStaleMs,
      finalStatusBudgetMs: d.finalStatusBudgetMs ?? d.heartbeatStaleMs,
      host: this.host,
      processAlive: this.processAlive,
      startRecordedFirst: d.runs.releasesClaims,
    });
  }

  /**
   * The run IDs in the queues, and those among the first QUEUE_HEAD_CHECKED of each, listed once per sweep
   * when first needed: a backlog of queued runs costs the sweep a few listings rather than a lookup per run.
   */
  private queuedThisSweep: Promise<QueueListing> | null = null;
  /** Sweeps made so far: the clock of QUIET_RECHECK_SWEEPS. */
  private sweeps = 0;
  /**
   * Queued runs found waiting in their queue, unclaimed, at their last read: the sweep that read them, and
   * the turn (a sweep number modulo QUIET_RECHECK_SWEEPS) at which each is read again.
   */
  private readonly quietSince = new Map<string, { sweep: number; turn: number }>();

  private queueListing(): Promise<QueueListing> {
    this.queuedThisSweep ??= (async () => {
      const ids = new Set<string>();
      const head = new Set<string>();
      for (const items of (await this.d.queue.listAll()).values()) {
        items.forEach((item, i) => {
          ids.add(item.run_id);
          if (i < QUEUE_HEAD_CHECKED) head.add(item.run_id);
        });
      }
      return { ids, head };
    })();
    return this.queuedThisSweep;
  }

  /**
   * Whether the run has a queue item. The sweep's listing answers yes; a run not in it (enqueued since)
   * is looked up, so the listing never makes a run look stranded.
   */
  private async inAQueue(runId: string): Promise<boolean> {
    const listed = await this.queueListing().catch(() => NOTHING_LISTED);
    return listed.ids.has(runId) || (await this.d.queue.find(runId)) !== null;
  }

  /**
   * The active runs this sweep reads: all but the quiet ones (see QUIET_RECHECK_SWEEPS) that are still in
   * their queue past its head, were read less than QUIET_RECHECK_SWEEPS sweeps ago, and whose turn this
   * sweep is not. When the queues cannot be listed, every run is read.
   */
  private async toRead<T extends { run_id: string }>(active: T[]): Promise<T[]> {
    if (this.quietSince.size === 0) return active;
    const listed = await this.queueListing().catch(() => null);
    if (listed === null) return active;
    return active.filter((a) => {
      const quiet = this.quietSince.get(a.run_id);
      const resting =
        quiet !== undefined &&
        this.sweeps - quiet.sweep < QUIET_RECHECK_SWEEPS &&
        this.sweeps % QUIET_RECHECK_SWEEPS !== quiet.turn &&
        listed.ids.has(a.run_id) &&
        !listed.head.has(a.run_id);
      return !resting;
    });
  }

  /** The run's latest status, and its claim when the store reads it in the same go (undefined: it does not). */
  private async readWithClaim(
    runId: string,
  ): Promise<{ read: ReadStatusResult; claim: string | null | undefined }> {
    if (this.d.runs.readStatusAndClaim) return this.d.runs.readStatusAndClaim(runId);
    return { read: await this.d.runs.readStatus(runId), claim: undefined };
  }

  /** One sweep over the active markers. Returns the IDs of runs it marked failed. */
  async sweep(): Promise<string[]> {
    if (!this.d.canDispatch()) {
      // Standing by or fenced: another instance may act on the queues meanwhile, so whatever rested here
      // is read again at the first sweep once this one may act.
      this.quietSince.clear();
      return [];
    }
    this.queuedThisSweep = null;
    this.sweeps++;
    const reaped: string[] = [];
    const active = await this.d.runs.listActive();
    const seen = new Set(active.map((a) => a.run_id));
    const toRead = await this.toRead(active);
    for (let from = 0; from < toRead.length; from += SWEEP_BATCH) {
      const batch = toRead.slice(from, from + SWEEP_BATCH);
      const reads = await this.readBatch(batch);
      for (const a of batch) {
        // One run whose files cannot be written (a full disk) must not keep the others from being checked.
        try {
          if (await this.check(a, reads?.get(a.run_id))) reaped.push(a.run_id);
          this.failing.delete(a.run_id);
        } catch (err) {
          if (!this.failing.has(a.run_id)) {
            this.failing.add(a.run_id);
            this.d.logger.warn('Could not check an active run; trying again at the next sweep', {
              dag: a.dag_name,
              run_id: a.run_id,
              error: (err as Error).message,
            });
          }
        }
      }
    }
    for (const runId of this.markerIdleSince.keys()) if (!seen.has(runId)) this.markerIdleSince.delete(runId);
    for (const runId of this.failing) if (!seen.has(runId)) this.failing.delete(runId);
    for (const runId of this.quietSince.keys()) if (!seen.has(runId)) this.quietSince.delete(runId);
    this.claimed.prune(seen);
    await this.scanForUnmarked();
    await this.removeAbandonedCreations();
    return reaped;
  }

  /**
   * The statuses and claims of a batch of active runs in one read, where the store has one; null where it
   * has not, or the read failed (each run is then read on its own, and a failure logged for it).
   */
  private async readBatch(
    batch: ReadonlyArray<{ run_id: string }>,
  ): Promise<Map<string, { read: ReadStatusResult; claim: string | null }> | null> {
    if (!this.d.runs.readStatusesAndClaims) return null;
    return this.d.runs.readStatusesAndClaims(batch.map((a) => a.run_id)).catch(() => null);
  }

  /**
   * Checks one marked run; true when it was marked failed. `pre`: the run as the sweep's batch read it (a
   * moment old, which is as good as a read of its own: nothing is written on it before the run is read again).
   */
  private async check(
    a: { run_id: string; dag_name: string },
    pre?: { read: ReadStatusResult; claim: string | null | undefined },
  ): Promise<boolean> {
    const { read: r, claim: claimRead } = pre ?? (await this.readWithClaim(a.run_id));
    this.quietSince.delete(a.run_id);
    if (r.kind === 'corrupt' && !r.incomplete) {
      this.d.logger.error('Active run has an unreadable status file', {
        run_id: a.run_id,
        path: r.path,
        error: r.error,
      });
      return false;
    }
    if (r.kind !== 'ok' || (r.status.status !== 'running' && r.status.status !== 'queued')) {
      await this.unmarkOnceSettled(a, r);
      return false;
    }
    this.markerIdleSince.delete(a.run_id);
    const s = r.status;
    const verdict =
      s.status === 'running' ? await this.deadRunReason(s) : await this.strandedQueuedReason(s, claimRead);
    if (verdict === null) return false;
    let reason = typeof verdict === 'string' ? verdict : verdict.reason;
    let skippedSlot = false;
    // Read again right before writing: the run may have finished, or been queued, while we looked.
    const { read: again, claim: claimAgain } = await this.readWithClaim(a.run_id);
    if (again.kind !== 'ok' || again.status.status !== s.status || again.status.attempt !== s.attempt)
      return false;
    if (s.status === 'queued') {
      const still = await this.strandedQueuedReason(again.status, claimAgain);
      if (still === null) return false;
      reason = still.reason;
      if (!still.ended && (await this.mayStartAgain(again.status, still.claim))) {
        const tooOld = this.slotTooOldReason(again.status, still.claim !== null);
        if (tooOld === null) {
          // A claim is given back only while its claimant has not begun the run: if it just did, nothing
          // changes, and the run is judged as running from the next sweep on.
          if (still.claim !== null && !(await this.d.runs.releaseClaim(s.run_id, s.attempt, still.claim)))
            return false;
          await this.requeue(again.status, still.reason, still.claim);
          return false;
        }
        reason = tooOld;
        skippedSlot = true;
      }
    }
    await this.markFailed(again.status, reason, skippedSlot);
    // A claimed run failed in its queue: the item goes too (the queue would also drop it, at its next pass).
    if (s.status === 'queued') await this.d.queue.dequeue(s.queue, s.run_id).catch(() => undefined);
    return true;
  }

  /**
   * A marker whose run has no status (missing, or a directory its creator left without one) or has ended:
   * removed once it has looked so for the stale threshold. Nothing then counts that run as active; a run
   * left without a status is shown in the run list as corrupt, with the reason.
   */
  private async unmarkOnceSettled(a: { run_id: string; dag_name: string }, r: ReadStatusResult) {
    const now = this.d.clock.monoMs();
    const since = this.markerIdleSince.get(a.run_id);
    if (since === undefined) {
      this.markerIdleSince.set(a.run_id, now);
      return;
    }
    if (now - since < this.d.heartbeatStaleMs) return;
    await this.d.runs.unmarkActive(a.run_id);
    this.markerIdleSince.delete(a.run_id);
    if (r.kind === 'ok') return; // an ended run whose own process could not remove its marker
    this.d.logger.warn('Removed the active marker of a run that has no status', {
      dag: a.dag_name,
      run_id: a.run_id,
      reason: r.kind === 'corrupt' ? `${r.path}: ${r.error}` : 'no run directory',
    });
  }

  /**
   * Every UNMARKED_SCAN_INTERVAL_MS (and at the first sweep): queued or running runs among the newest in the
   * run list that have no active marker (removed by an older version, or by hand) get one again, so that
   * this check sees them from the next sweep on instead of leaving them `running` for ever.
   */
  private async scanForUnmarked(): Promise<void> {
    const remarked = await this.unmarkedScan.run(this.d.clock, () => markUnmarkedLiveRuns(this.d.runs));
    if (remarked === null) return;
    for (const run of remarked) {
      this.d.logger.warn('Marked a run active again: its status says it is not over but it had no marker', {
        dag: run.dag_name,
        run_id: run.run_id,
        state: run.status,
      });
    }
  }

  /**
   * Every ABANDONED_SCAN_INTERVAL_MS (and at the first sweep): run directories a creator claimed and left
   * empty, listed nowhere, are removed. A slot's run ID is left for as long as a takeover may still complete
   * the slot's run (cronLoop's completeHalfCreated): until its slot is older than the replay window, and for
   * ever when replays are not bounded.
   */
  private async removeAbandonedCreations(): Promise<void> {
    const remove = this.d.removeAbandonedCreations;
    if (remove === undefined) return;
    const windowMs = this.d.slotRestartWindowMs;
    const mayRemove = (runId: string) => {
      const slot = parseSlotRunId(runId);
      if (slot === null) return true;
      return windowMs !== undefined && this.d.clock.nowMs() - slot.slotMs > windowMs + ABANDONED_CREATION_MS;
    };
    const removed = await this.abandonedScan.run(this.d.clock, () =>
      remove(ABANDONED_CREATION_MS, mayRemove),
    );
    if (removed === null) return;
    for (const runId of removed)
      this.d.logger.warn('Removed a run directory its creator left empty; no run was recorded in it', {
        run_id: runId,
      });
  }

  private async deadRunReason(s: RunStatus): Promise<string | null> {
    const now = this.d.clock.nowMs();
    // A run on a worker is judged by its heartbeat alone (the coordinator writes it): its pid is the
    // worker host's, and signalling it here could hit an unrelated local process.
    if (s.worker_id === null && s.host === this.host && s.pid !== null && !this.processAlive(s.pid)) {
      return (await this.unwrittenEndReason(s)) ?? `run process ${s.pid} on ${s.host} is gone; marked failed`;
    }
    const hb = await this.d.runs.readHeartbeat(s.run_id, s.attempt);
    const last = hb ?? (s.started_at ? Date.parse(s.started_at) : Date.parse(s.created_at));
    const age = now - last;
    if (age <= this.d.heartbeatStaleMs) return null;
    const ago = formatDuration(Math.round(age / 1000) * 1000);
    if (s.worker_id !== null) {
      return `run on worker ${s.worker_id} stopped heartbeating ${ago} ago (no heartbeat relayed by the coordinator); marked failed`;
    }
    return (
      (await this.unwrittenEndReason(s)) ??
      `run process ${s.pid ?? '?'} on ${s.host ?? 'unknown host'} stopped heartbeating ${ago} ago; marked failed`
    );
  }

  /** The reason of a run whose process ended without being able to write its final status, if it said so. */
  private async unwrittenEndReason(s: RunStatus): Promise<string | null> {
    const note = await this.d.runs.readUnwrittenFinalStatus(s.run_id, s.attempt);
    if (note === null) return null;
    return `run process ${s.pid ?? '?'} on ${s.host ?? 'unknown host'} ended ${note.state}, but its final status could not be written (${describeErrorCode(note.error_code)}); marked failed`;
  }

  /**
   * Why the queued run `s` is stranded, and who claimed its attempt (null: nobody); null while something
   * may still start it.
   */
  private async strandedQueuedReason(
    s: RunStatus,
    claimRead?: string | null,
  ): Promise<{ reason: string; claim: string | null; ended?: boolean } | null> {
    const slotRun = SLOT_TRIGGERS.has(s.trigger_type);
    if (slotRun && this.d.slotAdoptionDone && !this.d.slotAdoptionDone()) return null;
    if (this.d.launching?.(s.run_id)) return null;
    // Acknowledged by a worker (still `queued` until it reports `running`), or waiting in the dispatch
    // store for one: the coordinator fails these itself when the worker falls silent or the hold runs out.
    if (s.worker_id !== null) return null;
    // A run that waits in the dispatch store (`dagu start` claimed it to hand it to the workers, maybe long
    // ago) is the coordinator's. Asked only where it decides, so that the usual queued run, unclaimed and
    // in its queue, costs a sweep two reads rather than three.
    const dispatched = async () => Boolean(this.d.tasks && (await this.d.tasks.findByRun(s.run_id)));
    // A process took the attempt and has not said it started: in its queue or not, no other process can
    // take it, and it may have run its steps without being able to say so.
    // Read with the status where the store has it at hand (`claimRead`), else read now.
    const claim = claimRead !== undefined ? claimRead : await this.d.runs.readClaim(s.run_id, s.attempt);
    if (claim !== null) {
      if (await dispatched()) return null;
      const reason = await this.claimed.reason(s, claim);
      return reason === null ? null : { reason, claim };
    }
    if (await this.inAQueue(s.run_id)) {
      this.quietSince.set(s.run_id, { sweep: this.sweeps, turn: turnOf(s.run_id) });
      return null;
    }
    if (await dispatched()) return null;
    const age = this.d.clock.nowMs() - Date.parse(s.created_at);
    if (age <= this.d.heartbeatStaleMs) return null; // a scheduled run that is just starting
    // Ended before it started (dequeued, or a hand-off that failed) by a caller that could not write that
    // end and left this note instead: it was told the run will not run, so it is not queued again.
    const note = await this.d.runs.readUnwrittenFinalStatus(s.run_id, s.attempt);
    if (note !== null) {
      return {
        reason: `queued run was ended ${note.state} before it started, but that could not be written (${describeErrorCode(note.error_code)}); marked failed`,
        claim: null,
        ended: true,
      };
    }
    return {
      reason: `run was never started: queued ${formatDuration(Math.round(age / 1000) * 1000)} ago with no queue item and no run process`,
      claim: null,
    };
  }

  /**
   * Once per run (a run stranded again is failed, so that nothing waits for ever), and only while no process
   * has claimed the attempt or the claim can be given back: its claimant never began the run (it would be
   * `running`), and where the store can release claims a run process runs nothing before its start is
   * recorded under its claim, so none of it ran. A claim that cannot be released would refuse every process
   * the queue starts for the run.
   */
  private async mayStartAgain(s: RunStatus, claim: string | null): Promise<boolean> {
    if (this.requeued.has(s.run_id)) return false;
    return claim === null || this.d.runs.releasesClaims;
  }

  /**
   * Why a stranded slot run is not started again but failed: its slot is older than the window in which a
   * replay would still run it (a slot that old would run long after its time). Null when it may run.
   */
  private slotTooOldReason(s: RunStatus, claimed: boolean): string | null {
    const windowMs = this.d.slotRestartWindowMs;
    if (windowMs === undefined || !SLOT_TRIGGERS.has(s.trigger_type) || s.schedule_time === null) return null;
    const ageMs = this.d.clock.nowMs() - Date.parse(s.schedule_time);
    if (!(ageMs > windowMs)) return null;
    const why = claimed
      ? 'the process that claimed its run never began it'
      : 'no process ever claimed its run';
    return `skipped the slot ${s.schedule_time}: ${why}, and the slot is ${formatDuration(Math.round(ageMs / 1000) * 1000)} old, older than scheduler.failover_recovery_window (${formatDuration(windowMs)}) within which a stranded slot is started again; marked failed`;
  }

  /**
   * Puts a queued run that nothing will start back in its queue: its run process died before taking it over
   * or before beginning it (a storage error, the database out of reach), or the coordinator stopped between
   * a worker's claim and recording the worker (the worker, without a reply, does not run it). `claim`: the
   * claim just given back, if any. A process that claims it late is refused by the claim, and one whose
   * claim was given back cannot begin it.
   */
  private async requeue(s: RunStatus, reason: string, claim: string | null) {
    // An item may be there still (a claimed run in its queue): the queue offers it again, with no second item.
    if (!(await this.d.queue.find(s.run_id))) {
      await this.d.queue.enqueue({
        queue: s.queue,
        run_id: s.run_id,
        dag_name: s.dag_name,
        enqueued_at: s.queued_at ?? s.created_at,
      });
    }
    this.requeued.add(s.run_id);
    this.d.requeued?.(s.run_id);
    if (this.requeued.size > MAX_REMEMBERED_REQUEUES)
      this.requeued.delete(this.requeued.values().next().value!);
    const fields = { dag: s.dag_name, run_id: s.run_id, reason };
    if (claim !== null) {
      this.d.logger.warn(
        'Starting again a run whose claimant never began it: gave its claim back and queued it',
        {
          ...fields,
          slot: s.schedule_time,
          claimed_by: claim,
        },
      );
    } else if (SLOT_TRIGGERS.has(s.trigger_type)) {
      this.d.logger.warn('Starting again a slot whose run no process claimed: put it back in its queue', {
        ...fields,
        slot: s.schedule_time,
      });
    } else {
      this.d.logger.warn('Put a queued run nobody started back in its queue', fields);
    }
  }

  /** `skippedSlot`: a stranded slot run too old to start again, rather than a run whose process died. */
  private async markFailed(s: RunStatus, reason: string, skippedSlot = false) {
    const now = isoUtc(this.d.clock.nowMs());
    await this.d.runs.writeStatus({
      ...s,
      status: 'failed',
      finished_at: now,
      error: reason,
      conditions: [],
      // The steps it cut off say why, as Dagu's repair of a dead run does: the process may have ended and only
      // failed to record its end, which "the process died" would misstate.
      steps: s.steps.map((st) =>
        st.status === 'running' || st.status === 'retrying'
          ? { ...st, status: 'failed', finished_at: now, error: reason }
          : st,
      ),
    });
    await this.d.runs.unmarkActive(s.run_id);
    this.d.logger.warn(
      skippedSlot
        ? 'Skipped a slot: its run was never started and is too old to start now'
        : 'Marked a run failed: its process died',
      { dag: s.dag_name, run_id: s.run_id, reason },
    );
  }
}

/** A search made at the first sweep and then every `intervalMs`; a failure is told once until one works. */
class PeriodicScan {
  private lastMono: number | null = null;
  private failing = false;

  constructor(
    private readonly intervalMs: number,
    private readonly onFailure: (error: string) => void,
  ) {}

  /**
   * Runs `scan` when it is due and answers what it found; null when it was not due or failed (it is tried
   * again at the next sweep).
   */
  async run<T>(clock: Clock, scan: () => Promise<T>): Promise<T | null> {
    const now = clock.monoMs();
    if (this.lastMono !== null && now - this.lastMono < this.intervalMs) return null;
    let found: T;
    try {
      found = await scan();
    } catch (err) {
      if (!this.failing) this.onFailure((err as Error).message);
      this.failing = true;
      return null;
    }
    this.failing = false;
    this.lastMono = now;
    return found;
  }
}
