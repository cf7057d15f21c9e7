// Keeps this instance's role in the scheduler lock protocol (DESIGN §5): standby polling, acquisition,
// renewal with self-fencing on the local monotonic clock, and release on stop. Decisions live in core/lease.

import {
  decideStandby,
  judgeOwnRecord,
  lockIdentity,
  nextEpoch,
  observe,
  withinDispatchWindow,
  type Observation,
  type StandbyDecision,
} from '../core/lease/decideLease';
import { formatDuration } from '../core/duration';
import { leaseTiming, type LeaseTiming } from '../core/lease/timing';
import type { LockRead, LockRecord, LockStorage } from '../core/lease/types';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import { runWithDeadline, type DeadlineOutcome } from './deadline';
import { SchedulerLockStartError } from './leaseErrors';

/** This instance's place in the protocol, shown verbatim by /health and the instance registry. */
export type Role = 'starting' | 'standby' | 'active' | 'lost' | 'stopped';

/** A change of role, for the event log (failover history) and the process's exit decision. */
export type RoleChange =
  | {
      kind: 'acquired';
      how: 'fresh' | 'released' | 'stale';
      record: LockRecord;
      previous: LockRecord | null;
      /** Wall clock, previous.renewed_at -> now: display only (another host's clock). */
      gap_ms: number | null;
      /** Local monotonic, the last change of the record this instance saw -> now. */
      observed_gap_ms: number | null;
    }
  | { kind: 'lost'; reason: string }
  | { kind: 'released'; record: LockRecord };

/** What a LeaseKeeper needs; the CLI builds the real ones, tests a simulated world. */
export interface LeaseKeeperDeps {
  storage: LockStorage;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  staleThresholdMs: number;
  retryIntervalMs: number;
  identity: { instance_id: string; host: string; pid: number };
  newToken: () => string;
  onRoleChange?: (c: RoleChange) => void;
  /** For error messages. */
  dataDir: string;
}

type RenewResult =
  { kind: 'renewed'; record: LockRecord; overwrote: LockRecord | null } | { kind: 'skipped'; why: string };

export class LeaseKeeper {
  private readonly t: LeaseTiming;
  private readonly log: Logger;
  private current: Role = 'starting';
  /** Our record as last written; its holder and epoch are what "ours" means. */
  private mine: LockRecord | null = null;
  private highestCounter = 0;
  private lastRenewStartMono: number | null = null;
  private stopping = false;
  /** Bumped when the role ends, so continuations of storage calls begun before are ignored. */
  private generation = 0;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private obs: Observation | null = null;
  private highestEpochSeen = 0;
  private seen: { record: LockRecord | null; seenMono: number | null } = { record: null, seenMono: null };
  private tickTimer: TimerHandle | null = null;
  private fenceTimer: TimerHandle | null = null;
  private announcedStandby = false;
  private lastStorageWarnMono = Number.NEGATIVE_INFINITY;
  /** The epoch of the last claim said not to have settled (noteUnsettledClaim). */
  private lastUnsettledEpoch: number | null = null;

  constructor(private readonly d: LeaseKeeperDeps) {
    this.t = leaseTiming(d.staleThresholdMs, d.retryIntervalMs);
    this.log = d.logger.child({ component: 'scheduler-lock' });
  }

  /** Makes the first attempt at the lock; rejects if storage fails on it (a wrong data directory). */
  async start(): Promise<void> {
    if (this.current !== 'starting') throw new Error(`LeaseKeeper.start() called in role ${this.current}`);
    try {
      await this.poll(true);
    } catch (err) {
      this.current = 'stopped';
      this.generation++;
      this.clearTimers();
      throw new SchedulerLockStartError(this.d.dataDir, err);
    }
  }

  /** Invariant 1: synchronous, no I/O, checked right before every dispatch. */
  canDispatch(): boolean {
    return (
      this.current === 'active' &&
      !this.stopping &&
      withinDispatchWindow(this.lastRenewStartMono, this.d.clock.monoMs(), this.t.dispatchWindowMs)
    );
  }

  role(): Role {
    return this.current;
  }

  /**
   * The holder token and epoch of the lock this instance holds while it may dispatch, else null: what a
   * database-fenced write checks, in its own transaction, against the lock record.
   */
  holding(): { holder: string; epoch: number } | null {
    if (!this.canDispatch() || this.mine === null) return null;
    return { holder: this.mine.holder, epoch: this.mine.epoch };
  }

  renewalIntervalMs(): number {
    return this.t.renewEveryMs;
  }

  /** The last record read from storage and when (local monotonic), for the instance registry. */
  lastSeen(): { record: LockRecord | null; seenMono: number | null } {
    return this.seen;
  }

  /** Releases the lock if it is provably ours; bounded in time even when storage hangs. */
  async stop(): Promise<void> {
    if (this.current === 'stopped') return;
    const wasActive = this.canDispatch();
    this.stopping = true;
    this.generation++;
    this.clearTimers();
    if (wasActive && this.mine !== null) await this.release(this.mine);
    this.current = 'stopped';
  }

  // ---- standby ----

  private async poll(first: boolean): Promise<void> {
    const gen = this.generation;
    const readStartMono = this.mono();
    let read: LockRead;
    try {
      read = await this.track(this.d.storage.read());
    } catch (err) {
      if (first) throw err;
      if (gen === this.generation) this.waitAfterStorageError(err);
      return;
    }
    if (gen !== this.generation) return;
    const nowMono = this.mono();
    this.noteSeen(read, nowMono);
    this.obs = observe(this.obs, read, nowMono);
    const decision = decideStandby(this.obs, readStartMono, nowMono, this.t.staleMs, this.t.retryMs);
    if (decision.kind === 'wait') {
      this.enterStandby(read);
      this.scheduleTick(decision.recheckAtMono - nowMono);
      return;
    }
    await this.acquire(decision, this.obs, first);
  }

  private async acquire(
    decision: Exclude<StandbyDecision, { kind: 'wait' }>,
    obs: Observation,
    first: boolean,
  ): Promise<void> {
    const gen = this.generation;
    const creating = decision.kind === 'create';
    const epoch = creating
      ? this.highestEpochSeen + 1
      : nextEpoch(obs.read, obs.attempt, this.highestEpochSeen);
    const nowIso = new Date(this.d.clock.nowMs()).toISOString();
    const record: LockRecord = {
      version: 1,
      holder: this.d.newToken(),
      ...this.d.identity,
      epoch,
      counter: 0,
      released: false,
      acquired_at: nowIso,
      renewed_at: nowIso,
    };
    // The dispatch window counts from the start of the call that writes our record: it cannot land earlier.
    const callStartMono = this.mono();
    const call = creating
      ? this.d.storage.create(record)
      : this.d.storage.takeOver(obs.read, record, obs.attempt);
    const outcome = await this.deadline(this.track(call), callStartMono);
    if (gen !== this.generation) return;
    // A first attempt that fails on a directory it could read is a full or failing disk, not a wrong path: the
    // instance waits as a standby and keeps trying, rather than exit and be restarted into the same error.
    if (outcome.kind === 'error' && first && !isWriteFailure(outcome.error)) throw outcome.error;
    if (outcome.kind === 'done' && outcome.value) {
      this.becomeActive(record, callStartMono, creating ? 'fresh' : decision.how, obs);
      return;
    }
    if (outcome.kind === 'done' && !creating) {
      // Another standby won this claim: its record should appear at once. If it does not, the winner died
      // mid-takeover, and only after another full T of no change may the next claim be tried.
      this.obs = { ...obs, sinceMono: this.mono(), attempt: obs.attempt + 1 };
    }
    // On an error or a timeout the claim may or may not be ours: retry the same claim, never the next one.
    if (outcome.kind !== 'done') this.noteUnsettledClaim(epoch, outcome.kind);
    if (outcome.kind === 'error') this.warnStorage('acquire', outcome.error);
    if (outcome.kind === 'timeout') this.warnStorage('acquire', 'no answer within the deadline');
    this.enterStandby(obs.read);
    this.scheduleTick(this.t.retryMs);
  }

  private becomeActive(
    record: LockRecord,
    startMono: number,
    how: 'fresh' | 'released' | 'stale',
    obs: Observation,
  ) {
    this.current = 'active';
    this.mine = record;
    // What we wrote is the lock as it stands: the registry shows the holder's own latest renewal.
    this.seen = { record, seenMono: this.mono() };
    this.highestCounter = record.counter;
    this.highestEpochSeen = Math.max(this.highestEpochSeen, record.epoch);
    this.lastRenewStartMono = startMono;
    this.obs = null;
    this.announcedStandby = false;
    this.armFence();
    this.scheduleTick(startMono + this.t.renewEveryMs - this.mono());
    const previous = obs.read.kind === 'record' ? obs.read.record : null;
    const renewedMs = previous ? Date.parse(previous.renewed_at) : Number.NaN;
    const gapMs = Number.isFinite(renewedMs) ? Math.max(0, this.d.clock.nowMs() - renewedMs) : null;
    const observedGapMs = obs.read.kind === 'none' ? null : Math.round(this.mono() - obs.sinceMono);
    const fields = { epoch: record.epoch, holder: record.holder };
    if (how === 'stale') {
      this.log.info('Took over the scheduler lock from a failed instance', {
        ...fields,
        previous_instance: previous?.instance_id ?? null,
        previous_host: previous?.host ?? null,
        previous_pid: previous?.pid ?? null,
        gap_ms: gapMs,
        observed_gap_ms: observedGapMs,
        corrupt_record: obs.read.kind === 'corrupt' ? obs.read.error : undefined,
      });
    } else if (how === 'released') {
      this.log.info('Acquired the released scheduler lock', {
        ...fields,
        previous_instance: previous?.instance_id,
      });
    } else {
      this.log.info('Acquired the free scheduler lock', fields);
    }
    this.emit({ kind: 'acquired', how, record, previous, gap_ms: gapMs, observed_gap_ms: observedGapMs });
  }

  private enterStandby(read: LockRead): void {
    if (this.current === 'starting') this.current = 'standby';
    if (this.announcedStandby) return;
    this.announcedStandby = true;
    const holder = read.kind === 'record' ? read.record : null;
    this.log.info('Waiting as standby for the scheduler lock', {
      holder_instance: holder?.instance_id ?? null,
      holder_host: holder?.host ?? null,
      stale_threshold_ms: this.t.staleMs,
      retry_interval_ms: this.t.retryMs,
    });
  }

  private waitAfterStorageError(err: unknown): void {
    if (this.current === 'starting') this.current = 'standby';
    this.warnStorage('read', err);
    this.scheduleTick(this.t.retryMs);
  }

  // ---- active ----

  private async renew(): Promise<void> {
    const gen = this.generation;
    const startMono = this.mono();
    this.scheduleTick(this.t.renewEveryMs);
    // One storage call at a time: a stalled call holds a thread-pool slot, and piling more on fills the pool.
    if (this.inFlight > 0) {
      this.log.warn('Scheduler lock renewal skipped: the previous storage call has not returned', {
        in_flight: this.inFlight,
      });
      return;
    }
    const outcome = await this.deadline(this.track(this.renewOnce(gen, startMono)), startMono);
    if (gen !== this.generation) return;
    // After a failure, retry at half the interval: with T = 4I that is four tries inside T - I instead of two.
    if (outcome.kind !== 'done' || outcome.value.kind === 'skipped') {
      this.scheduleTick(startMono + this.t.renewEveryMs / 2 - this.mono());
    }
    if (outcome.kind === 'error') {
      this.log.warn('Scheduler lock renewal failed', { error: String(outcome.error), ...this.windowLeft() });
    } else if (outcome.kind === 'timeout') {
      this.log.warn('Scheduler lock renewal did not complete in time', {
        deadline_ms: this.t.deadlineMs,
        ...this.windowLeft(),
      });
    } else if (outcome.value.kind === 'skipped') {
      this.log.warn('Scheduler lock renewal failed', { error: outcome.value.why, ...this.windowLeft() });
    } else {
      const { record, overwrote } = outcome.value;
      if (overwrote) {
        this.log.info('Overwrote a late write to the scheduler lock', {
          late_instance: overwrote.instance_id,
          late_epoch: overwrote.epoch,
          epoch: record.epoch,
        });
      }
      this.mine = record;
      this.seen = { record, seenMono: this.mono() };
      this.lastRenewStartMono = Math.max(this.lastRenewStartMono ?? startMono, startMono);
      this.armFence();
    }
  }

  private async renewOnce(gen: number, startMono: number): Promise<RenewResult> {
    const mine = this.mine!;
    const read = await this.d.storage.read();
    if (gen !== this.generation) return { kind: 'skipped', why: 'no longer active' };
    this.noteSeen(read, this.mono());
    const verdict = judgeOwnRecord(read, mine);
    // Proof of a new owner counts even when it arrives after the deadline.
    if (verdict.kind === 'lost') {
      this.lose(verdict.reason);
      return { kind: 'skipped', why: verdict.reason };
    }
    if (verdict.kind === 'unreadable')
      return { kind: 'skipped', why: `the lock record is unreadable: ${verdict.error}` };
    if (!this.canDispatch()) return { kind: 'skipped', why: 'the dispatch window closed during the renewal' };
    // Past the deadline the renewal has failed already; a write now would only be a late write.
    if (this.mono() - startMono >= this.t.deadlineMs)
      return { kind: 'skipped', why: 'the read took too long' };
    const next: LockRecord = {
      ...mine,
      counter: ++this.highestCounter,
      renewed_at: new Date(this.d.clock.nowMs()).toISOString(),
    };
    await this.d.storage.write(next);
    return {
      kind: 'renewed',
      record: next,
      overwrote: verdict.kind === 'late-write' ? verdict.record : null,
    };
  }

  /** The fence: a plain timer, so it fires even while every file call is stuck. */
  private armFence(): void {
    if (this.fenceTimer) this.d.timers.clearTimeout(this.fenceTimer);
    const closesAt = (this.lastRenewStartMono ?? 0) + this.t.dispatchWindowMs;
    this.fenceTimer = this.d.timers.setTimeout(() => {
      this.fenceTimer = null;
      if (this.current !== 'active' || this.stopping) return;
      if (this.canDispatch()) return this.armFence();
      this.lose(
        `no successful renewal for ${formatDuration(this.t.dispatchWindowMs)} (stale threshold minus renewal interval)`,
      );
    }, closesAt - this.mono());
  }

  private lose(reason: string): void {
    if (this.current !== 'active' || this.stopping) return;
    this.generation++;
    this.current = 'lost';
    this.clearTimers();
    // The owner reports the loss in one line (and exits); the keeper only tells it why.
    this.emit({ kind: 'lost', reason });
  }

  private async release(mine: LockRecord): Promise<void> {
    // A renewal still in flight could land after the release and hide it; give it its deadline first.
    await this.waitIdle(this.t.deadlineMs);
    const startMono = this.mono();
    const outcome = await this.deadline(
      this.track(
        (async (): Promise<LockRecord | string> => {
          const verdict = judgeOwnRecord(await this.d.storage.read(), mine);
          if (verdict.kind !== 'mine' && verdict.kind !== 'late-write') {
            return verdict.kind === 'lost'
              ? verdict.reason
              : `the lock record is unreadable: ${verdict.error}`;
          }
          // Our window must still be open: past it a standby may already have taken the lock.
          if (!withinDispatchWindow(this.lastRenewStartMono, this.mono(), this.t.dispatchWindowMs)) {
            return 'the dispatch window had closed';
          }
          const released: LockRecord = {
            ...mine,
            counter: ++this.highestCounter,
            released: true,
            renewed_at: new Date(this.d.clock.nowMs()).toISOString(),
          };
          await this.d.storage.write(released);
          return released;
        })(),
      ),
      startMono,
    );
    if (outcome.kind === 'done' && typeof outcome.value !== 'string') {
      this.log.info('Released the scheduler lock on stop', { epoch: mine.epoch });
      this.emit({ kind: 'released', record: outcome.value });
      return;
    }
    const why =
      outcome.kind === 'done'
        ? outcome.value
        : outcome.kind === 'error'
          ? String(outcome.error)
          : 'storage did not answer in time';
    this.log.warn('Did not release the scheduler lock on stop', { reason: why, epoch: mine.epoch });
  }

  // ---- plumbing ----

  private onTick(): void {
    this.tickTimer = null;
    if (this.stopping) return;
    if (this.current === 'active') void this.renew();
    else if (this.current === 'standby' || this.current === 'starting') {
      if (this.inFlight > 0) return this.scheduleTick(this.t.retryMs);
      void this.poll(false).catch((err: unknown) => this.waitAfterStorageError(err));
    }
  }

  private scheduleTick(delayMs: number): void {
    if (this.tickTimer) this.d.timers.clearTimeout(this.tickTimer);
    this.tickTimer = this.d.timers.setTimeout(() => this.onTick(), Math.max(0, delayMs));
  }

  private clearTimers(): void {
    if (this.tickTimer) this.d.timers.clearTimeout(this.tickTimer);
    if (this.fenceTimer) this.d.timers.clearTimeout(this.fenceTimer);
    this.tickTimer = null;
    this.fenceTimer = null;
  }

  private deadline<T>(p: Promise<T>, startMono: number): Promise<DeadlineOutcome<T>> {
    return runWithDeadline(p, this.t.deadlineMs, startMono, this.d.clock, this.d.timers);
  }

  /** Counts storage calls in flight; the count drops when the call settles, however late. */
  private track<T>(p: Promise<T>): Promise<T> {
    this.inFlight++;
    const done = () => {
      this.inFlight--;
      if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
    };
    p.then(done, done);
    return p;
  }

  private waitIdle(maxMs: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const h = this.d.timers.setTimeout(resolve, maxMs);
      this.idleWaiters.push(() => {
        this.d.timers.clearTimeout(h);
        resolve();
      });
    });
  }

  private noteSeen(read: LockRead, mono: number): void {
    if (read.kind === 'record') this.highestEpochSeen = Math.max(this.highestEpochSeen, read.record.epoch);
    this.seen = { record: read.kind === 'record' ? read.record : null, seenMono: mono };
  }

  /**
   * A claim whose write failed or timed out may still land (a stalled mount completes it later): the lock then
   * carries an epoch nobody acquired, and a standby takes it over as stale. Said once per epoch, so that such
   * an epoch is not mistaken for an acquisition that went unlogged.
   */
  private noteUnsettledClaim(epoch: number, how: 'error' | 'timeout'): void {
    if (epoch === this.lastUnsettledEpoch) return;
    this.lastUnsettledEpoch = epoch;
    this.log.info('A claim of the scheduler lock did not settle; it may still land', { epoch, outcome: how });
  }

  private warnStorage(op: string, err: unknown): void {
    const now = this.mono();
    // One line per T is enough to show a persistent problem without flooding the log every R.
    if (now - this.lastStorageWarnMono < this.t.staleMs) return;
    this.lastStorageWarnMono = now;
    this.log.warn('Storage error while waiting for the scheduler lock', {
      op,
      error: err instanceof Error ? err.message : String(err),
      data_dir: this.d.dataDir,
      observed: this.obs ? lockIdentity(this.obs.read) : null,
    });
  }

  private windowLeft() {
    const left = (this.lastRenewStartMono ?? 0) + this.t.dispatchWindowMs - this.mono();
    return { dispatch_window_left_ms: Math.max(0, Math.round(left)) };
  }

  private emit(c: RoleChange): void {
    try {
      this.d.onRoleChange?.(c);
    } catch (err) {
      this.log.error('Role change handler failed', { error: String(err), change: c.kind });
    }
  }

  private mono(): number {
    return this.d.clock.monoMs();
  }
}

/** Errors of a write that the storage could not take (full, over quota, failing, mounted read-only). */
const WRITE_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS']);

function isWriteFailure(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : '';
  return WRITE_FAILURES.has(code);
}
