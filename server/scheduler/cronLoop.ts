// The scheduler's tick loop: at each slot boundary it creates one run per due slot (run ID derived from the
// slot, created exclusively, so a slot never runs twice) and starts it as a detached process.

import { defaultParamList } from '../core/params';
import { isoUtc, newRunStatus } from '../core/runStatus';
import { slotRunId } from '../core/slotRunId';
import { dueSlots } from '../core/schedule';
import { NextSlotMemo } from '../core/nextSlotMemo';
import { planOneOffs, withoutOneOff, type PendingOneOffs } from '../core/oneOffSlots';
import {
  planSkipResets,
  skipsAsSucceeded,
  startedByHandSince,
  type SkipResets,
} from '../core/skipIfSuccessful';
import { nextWake, planCatchup, planTick, type PlannedSlot } from '../core/tickPlan';
import type { Clock, Logger, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import { TERMINAL_RUN_STATES, type DagSpec } from '../core/types';
import { MINUTE, SECOND } from '../core/units';
import type { SuspendFlags } from '../store/suspendFlags';
import type { QueueStore, RunStore, RunSummary } from '../store/types';
import type { DagSource } from './dagCatalogCache';
import type { Launcher } from './launcher';
import { runConcurrently } from '../core/concurrency';
import type { SchedulerState, SchedulerStateStore } from './schedulerState';

/** Longest sleep between ticks, so that new or edited DAG files are picked up without a watcher. */
const MAX_IDLE_MS = 5 * SECOND;

/** How long a slot whose record could not be created keeps being retried. */
const RETRY_HORIZON_MS = 2 * MINUTE;

/**
 * How many slot records are created at once. A record is a few small files, two of them fsynced: done one at a
 * time, 200 of them take over a second on an ordinary disk; in parallel, the file system commits their
 * fsyncs together. 16 matches the thread pool the CLI gives the scheduler (bin/dagu).
 */
const CREATE_CONCURRENCY = 16;

/**
 * How many slot processes are being launched at once. A launch prepares the process's log file (and hands a
 * pre-started process its run) with file calls, then spawns; the spawn itself runs on the event loop, one at
 * a time. Launched one after the other, each waited for its file calls, which a CPU busy with the processes
 * already started delays by tens of milliseconds: 200 launches took 8 s. Overlapping them takes the loop off
 * the critical path; it does not bound the processes running (each run is its own process, started at once).
 */
const LAUNCH_CONCURRENCY = 8;

export interface CronLoopDeps {
  /** Names this installation's slots in their run IDs (the data directory, or a database's installation ID). */
  slotNamespace: string;
  /** Recorded on every run this loop creates (`dispatched_by`). */
  instanceId: string;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  catalog: DagSource;
  /**
   * The suspend flags, read at every tick that has a slot due (never cached): a DAG suspended before its
   * slot's tick does not run it, whichever scheduler instance is active.
   */
  suspended: Pick<SuspendFlags, 'names'>;
  stateFile: SchedulerStateStore;
  launch: Launcher;
  queuesEnabled: boolean;
  /** Fencing check, called synchronously right before every dispatch (always true without HA). */
  canDispatch: () => boolean;
  /**
   * Whether a DAG's runs go to the workers. Their slots go through the queue, which hands them to the
   * coordinator and keeps them queued (with the waiting conditions) while no worker matches.
   */
  isDistributed?: (dag: DagSpec) => boolean;
}

/** Active (queued or running) run IDs by DAG name. */
export type ActiveRuns = Map<string, Set<string>>;

export type DispatchOutcome =
  | 'started'
  | 'exists'
  | 'busy'
  | 'fenced'
  | 'failed'
  | 'queued'
  /** `skip_if_successful`: the DAG's latest run succeeded since the previous slot. */
  | 'skipped'
  /** The DAG's schedule is suspended: the slot is handled (not missed), so it is never replayed. */
  | 'suspended';

/** A slot a tick dispatches; `oneOff` for a one-off (`at`) slot, which waits while its DAG is busy. */
interface DueSlot extends PlannedSlot {
  oneOff?: true;
}

/** A slot whose run record createSlot made, and whose process launchSlot is to start. */
export interface CreatedSlot {
  dag: DagSpec;
  runId: string;
  scheduleTime: string;
}

export class CronLoop {
  private state: SchedulerState | null = null;
  private lastTickMs = 0;
  private readonly loop: TimerLoop;
  /** Slots whose dispatch failed on storage errors; retried on the next tick. */
  private retry: PlannedSlot[] = [];
  /** One-off slots seen before their time and not dispatched yet; persisted in the state file. */
  private pendingOneOffs: PendingOneOffs = {};
  /** skip_if_successful's edit resets (persisted with the state, as pendingOneOffs). */
  private skipResets: SkipResets = {};
  private skipResetsDirty = false;
  /** Whether pendingOneOffs changed since the state file was last written. */
  private pendingOneOffsDirty = false;
  /** Run IDs of one-off slots already logged as waiting for their busy DAG. */
  private readonly waitingOneOffs = new Set<string>();
  /** Run IDs of slots whose record this instance created but whose process failed to start. */
  private readonly unlaunched = new Set<string>();
  /** Run IDs of slots whose record this tick created and whose process is not started yet. */
  private readonly pendingLaunches = new Set<string>();
  private firstTickDone = false;
  /** Set by start(): the replay of missed slots the first tick does before it plans (see start()). */
  private replayBeforeFirstTick: { recoveryWindowMs: number } | null = null;
  /** The DAGs of the last successful catalog load, planned with while the catalog cannot be read. */
  private lastDags: DagSpec[] = [];
  private lastDagsLoaded = false;
  private catalogFailing = false;
  /** Each schedule's coming slots, worked out once each instead of at every tick. */
  private readonly slots = new NextSlotMemo();
  /** Suspended DAGs whose skipped slot was logged at info level; later ones go to debug until resumed. */
  private readonly suspendedLogged = new Set<string>();

  constructor(private readonly d: CronLoopDeps) {
    // tick() logs its own failures and always returns the next wake-up.
    this.loop = new TimerLoop({ timers: d.timers, pass: () => this.tick(), onError: () => MAX_IDLE_MS });
  }

  /**
   * Starts ticking. The first tick plans the slots of the current minute. Before it plans, it queues missed
   * slots as catch-up runs: as far back as each DAG's `catchup_window`, and after a takeover from a failed
   * instance also as far back as `recoveryWindowMs`, from the last tick the failed instance completed.
   */
  async start(opts: { recoveryWindowMs?: number } = {}): Promise<void> {
    this.state = await this.d.stateFile.read();
    this.pendingOneOffs = this.state.pending_at ?? {};
    this.skipResets = this.state.skip_resets ?? {};
    this.replayBeforeFirstTick = { recoveryWindowMs: opts.recoveryWindowMs ?? 0 };
    this.loop.start(0);
  }

  /**
   * True once a tick has completed with nothing left to retry: every slot record a failed instance left
   * queued in the replayed window or the live slot has been adopted (or found started) by then.
   */
  slotAdoptionDone(): boolean {
    return this.firstTickDone && this.retry.length === 0;
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One tick: plan slots since the last tick, dispatch them, persist progress; returns the delay to the next. */
  private async tick(): Promise<number> {
    let dags: DagSpec[] = this.lastDags;
    let failed = false;
    const now = this.d.clock.nowMs();
    try {
      if (this.replayBeforeFirstTick) {
        // The replay stops just before the slot the first tick runs live, so both must be worked out at the
        // same `now`. Replayed at start, with the first tick after the next slot came due (the replay's own
        // reads take that long on a slow volume or a remote database), the first tick took the live slot for
        // one superseded by that next slot and skipped it: a slot missed in the failover never ran.
        const { recoveryWindowMs } = this.replayBeforeFirstTick;
        this.replayBeforeFirstTick = null;
        const minuteStart = Math.floor(now / MINUTE) * MINUTE;
        this.lastTickMs = minuteStart - 1;
        await this.replayMissed(now, minuteStart, recoveryWindowMs);
      }
      dags = await this.loadDags();
      const oneOffs = planOneOffs(dags, this.pendingOneOffs, now);
      this.pendingOneOffs = oneOffs.pending;
      if (oneOffs.changed) this.pendingOneOffsDirty = true;
      const resets = planSkipResets(dags, this.skipResets, now);
      this.skipResets = resets.resets;
      if (resets.changed) this.skipResetsDirty = true;
      const cronDue = [
        ...this.retry.filter((p) => now - p.slotMs <= RETRY_HORIZON_MS),
        ...newestPerDag(planTick(dags, this.lastTickMs, now, this.slots), this.d.logger).filter(
          (p) => !this.handled(p),
        ),
      ];
      const due: DueSlot[] = [...cronDue, ...oneOffs.due.map((p) => ({ ...p, oneOff: true as const }))];
      for (const p of this.retry)
        if (now - p.slotMs > RETRY_HORIZON_MS)
          this.d.logger.error('Gave up on a slot whose run record could not be created', {
            dag: p.dag,
            slot: isoUtc(p.slotMs),
          });
      this.retry = [];
      this.lastTickMs = Math.max(this.lastTickMs, now);
      // Read what is active before creating anything. If it cannot be read, nothing is created and this
      // tick's slots are retried next tick (as a failed record creation is): left to be planned again, a
      // slot of a seconds schedule would be dropped as superseded by the newer slot of that next tick.
      // The suspend flags likewise: a slot is not created while it cannot be told whether its DAG is suspended.
      let activeRuns: ActiveRuns;
      let suspended: Set<string>;
      try {
        // Only when a slot is due: a backlog of queued runs is all active, and listing it every second
        // for nothing would cost the scheduler in proportion to the backlog.
        activeRuns = due.length > 0 ? await this.activeRunsByDag() : new Map();
        suspended = due.length > 0 ? await this.d.suspended.names() : new Set();
      } catch (err) {
        this.retry = cronDue; // one-off slots stay pending, and so are due again
        throw err;
      }
      if (due.length > 0)
        for (const name of this.suspendedLogged) if (!suspended.has(name)) this.suspendedLogged.delete(name);
      // Every due slot's record first, then the processes: a record is file work in this process, a launch
      // starts a Node process, and the last record of a busy minute must not wait behind all the launches.
      const toLaunch = await this.createDueSlots(due, dags, activeRuns, suspended);
      // Launches that may share a run host wait for one another: as many in flight as a host takes.
      const concurrency = Math.max(LAUNCH_CONCURRENCY, this.d.launch.burstSize ?? 0);
      await runConcurrently(toLaunch, concurrency, async ({ plan, slot }) =>
        this.settleSlot(plan, await this.launchSlot(slot, toLaunch.length)),
      );
      if (
        (cronDue.length > 0 || this.pendingOneOffsDirty || this.skipResetsDirty) &&
        this.state &&
        this.d.canDispatch()
      ) {
        if (cronDue.length > 0) this.state.last_tick_ms = now;
        this.state.pending_at = this.pendingOneOffs;
        this.state.skip_resets = this.skipResets;
        this.pendingOneOffsDirty = false;
        this.skipResetsDirty = false;
        await this.d.stateFile.write(this.state).catch((err: Error) => {
          this.pendingOneOffsDirty = true;
          this.skipResetsDirty = true;
          throw err;
        });
      }
      this.firstTickDone = true;
    } catch (err) {
      failed = true;
      this.d.logger.error('Scheduler tick failed; retrying', { error: (err as Error).message });
    }
    // The next slot after the last one planned, not after now: a slot that came due while this tick ran (a
    // timer fires up to a few milliseconds early, and planning 200 DAGs takes tens) is due at once. Counted
    // from `after`, it was left to the tick after the next idle wait, up to MAX_IDLE_MS late.
    const after = this.d.clock.nowMs();
    const wake = nextWake(dags, this.lastTickMs, this.slots);
    // A failed tick may not have moved lastTickMs: it waits a moment rather than spin on the same slot.
    const earliest = failed ? SECOND : 0;
    const delay = wake === null ? MAX_IDLE_MS : Math.max(earliest, Math.min(MAX_IDLE_MS, wake - after));
    return this.retry.length > 0 ? Math.min(delay, SECOND) : delay;
  }

  /**
   * Creates the records of the due slots, several DAGs at a time (each DAG's own slots one after the other,
   * oldest first, so that its first record makes it busy for the next). Returns the created slots to launch,
   * in the order they were due; any other outcome is settled here.
   */
  private async createDueSlots(
    due: DueSlot[],
    dags: DagSpec[],
    activeRuns: ActiveRuns,
    suspended: Set<string>,
  ): Promise<Array<{ plan: DueSlot; slot: CreatedSlot }>> {
    const byName = new Map(dags.map((g) => [g.name, g]));
    const perDag = new Map<string, Array<{ plan: DueSlot; order: number }>>();
    due.forEach((plan, order) => {
      if (!byName.has(plan.dag)) return;
      perDag.set(plan.dag, [...(perDag.get(plan.dag) ?? []), { plan, order }]);
    });
    const created: Array<{ plan: DueSlot; slot: CreatedSlot; order: number }> = [];
    await runConcurrently([...perDag.values()], CREATE_CONCURRENCY, async (slots) => {
      for (const { plan, order } of slots) {
        const r = await this.createSlot(byName.get(plan.dag)!, plan.slotMs, activeRuns, {
          oneOff: plan.oneOff === true,
          suspended,
        }).catch((err: Error) => {
          this.d.logger.error('Could not plan a slot; will retry', { dag: plan.dag, error: err.message });
          return 'failed' as const;
        });
        if (typeof r === 'object') created.push({ plan, slot: r, order });
        else this.settleSlot(plan, r);
      }
    });
    return created.sort((a, b) => a.order - b.order);
  }

  /**
   * The DAGs as the catalog has them now; when it cannot be read (a storage error), the last ones loaded, as
   * a cron daemon keeps its table in memory: the slots due meanwhile are still planned, and retried if their
   * records cannot be created either. Throws only when no DAGs were ever loaded.
   */
  private async loadDags(): Promise<DagSpec[]> {
    try {
      this.lastDags = await this.d.catalog.load();
      this.catalogFailing = false;
    } catch (err) {
      if (!this.lastDagsLoaded) throw err;
      if (!this.catalogFailing)
        this.d.logger.warn('Could not reload the DAGs; planning with the ones loaded last', {
          error: (err as Error).message,
        });
      this.catalogFailing = true;
      return this.lastDags;
    }
    this.lastDagsLoaded = true;
    return this.lastDags;
  }

  /**
   * Creates the slot's run record exclusively and starts its process (createSlot, then launchSlot).
   * `activeRuns` holds the active run IDs of each DAG; the slot's own run does not make its DAG busy (a failed
   * instance may have created and marked it, then died before launching it: it is adopted, not skipped).
   */
  async dispatchSlot(dag: DagSpec, slotMs: number, activeRuns: ActiveRuns): Promise<DispatchOutcome> {
    const created = await this.createSlot(dag, slotMs, activeRuns);
    return typeof created === 'object' ? this.launchSlot(created) : created;
  }

  /**
   * The first half of a dispatch: creates the slot's run record, or finds why not. A DAG that runs on the
   * workers is queued for them here (no process to start); a created local run is returned for launchSlot,
   * and its DAG counts as busy from now on. A one-off slot (`oneOff`) is not skipped by `skip_if_successful`,
   * and while its DAG is busy it waits (the caller keeps it pending) rather than being skipped, as in Dagu.
   * No slot of a suspended DAG is created (`suspended`: the flags this tick read; without it they are read
   * now); a one-off slot of one is dropped too, as Dagu's planner does not keep it for after the resume.
   */
  async createSlot(
    dag: DagSpec,
    slotMs: number,
    activeRuns: ActiveRuns,
    opts: { oneOff?: boolean; suspended?: Set<string> } = {},
  ): Promise<CreatedSlot | DispatchOutcome> {
    const runId = slotRunId(this.d.slotNamespace, dag.name, slotMs);
    const log = this.d.logger.child({ dag: dag.name, run_id: runId });
    if ((opts.suspended ?? (await this.d.suspended.names())).has(dag.name)) {
      if (this.suspendedLogged.has(dag.name)) {
        log.debug('Skipped a slot of a suspended DAG', { slot: isoUtc(slotMs) });
      } else {
        this.suspendedLogged.add(dag.name);
        log.info('Skipped a slot: the DAG is suspended', { slot: isoUtc(slotMs) });
      }
      return 'suspended';
    }
    const others = [...(activeRuns.get(dag.name) ?? [])].filter((id) => id !== runId);
    if (others.length > 0 && (await this.anyStillActive(others))) {
      if (!opts.oneOff) {
        log.info('Skipped a slot: the previous run of this DAG is still active', { slot: isoUtc(slotMs) });
      } else if (!this.waitingOneOffs.has(runId)) {
        this.waitingOneOffs.add(runId);
        log.info('A one-off slot waits until the active run of its DAG ends', { slot: isoUtc(slotMs) });
      }
      return 'busy';
    }
    this.waitingOneOffs.delete(runId);
    if (!opts.oneOff) {
      const latest = await this.latestOtherRun(dag, runId);
      if (startedByHandSince(slotMs, latest)) {
        log.info('Skipped a slot: the DAG was started by hand in its minute or later', {
          slot: isoUtc(slotMs),
          latest_run_id: latest!.run_id,
        });
        return 'skipped';
      }
      const resetAt = this.skipResets[dag.name]?.reset_at_ms ?? null;
      if (dag.skip_if_successful && skipsAsSucceeded(dag, slotMs, latest, resetAt)) {
        log.info('Skipped a slot: the last run succeeded since the previous slot (skip_if_successful)', {
          slot: isoUtc(slotMs),
        });
        return 'skipped';
      }
    }
    if (!this.d.canDispatch()) return 'fenced';
    const status = newRunStatus({
      dag,
      runId,
      status: 'queued',
      triggerType: 'scheduler',
      scheduleTime: isoUtc(slotMs),
      params: defaultParamList(dag.params),
      nowIso: isoUtc(this.d.clock.nowMs()),
      dispatchedBy: this.d.instanceId,
    });
    try {
      const created = await this.d.runs.createRun(status);
      if (!created.created) {
        log.debug('Slot already has a run', { slot: status.schedule_time });
        return await this.adoptStranded(dag, runId, slotMs);
      }
      // createRun marked it active.
    } catch (err) {
      log.error('Could not create the run record of a slot; will retry', { error: (err as Error).message });
      return 'failed';
    }
    if (!this.d.isDistributed?.(dag)) {
      markBusy(activeRuns, dag.name, runId);
      this.pendingLaunches.add(runId);
      return { dag, runId, scheduleTime: status.schedule_time! };
    }
    if (!this.d.canDispatch()) return 'fenced';
    try {
      await this.d.queue.enqueue({
        queue: dag.queue,
        run_id: runId,
        dag_name: dag.name,
        enqueued_at: status.created_at,
      });
    } catch (err) {
      // The record exists without a queue item: the next tick adopts it (adoptStranded).
      log.error('Could not queue a scheduled run for the workers; will retry', {
        error: (err as Error).message,
      });
      return 'failed';
    }
    markBusy(activeRuns, dag.name, runId);
    log.info('Queued a scheduled run for the workers', { slot: status.schedule_time });
    return 'queued';
  }

  /** The DAG's latest run, for the slot checks; the slot's own run (a record a failed instance left) is none. */
  private async latestOtherRun(dag: DagSpec, runId: string): Promise<RunSummary | null> {
    const [latest] = (await this.d.runs.listRuns({ dag: dag.name, limit: 1 })).items;
    return latest === undefined || latest.run_id === runId ? null : latest;
  }

  /**
   * The second half of a dispatch: starts the process of a slot whose record createSlot made, unless the
   * fence closed meanwhile (the record is left for a successor to adopt). `burst`: how many slots this tick
   * launches together (the launcher may give them shared run hosts).
   */
  async launchSlot(slot: CreatedSlot, burst = 1): Promise<DispatchOutcome> {
    const { dag, runId, scheduleTime } = slot;
    const log = this.d.logger.child({ dag: dag.name, run_id: runId });
    try {
      if (!this.d.canDispatch()) return 'fenced';
      let started;
      try {
        started = await this.d.launch({
          dagName: dag.name,
          dagFile: dag.file,
          runId,
          triggerType: 'scheduler',
          scheduleTime,
          processLog: `${this.d.runs.logDir(dag.name, runId, 1)}/process.log`,
          propagateSignals: dag.signal_handling.enable_propagation,
          stillAllowed: this.d.canDispatch,
          burst,
        });
      } catch (err) {
        // The record exists and nothing runs it: the retry hands it to the queue, whose consumer keeps trying.
        this.unlaunched.add(runId);
        log.error('Could not start the run process of a slot; will retry through the queue', {
          slot: scheduleTime,
          error: (err as Error).message,
        });
        return 'failed';
      }
      if (started.fenced) return 'fenced';
      log.info('Started a scheduled run', { slot: scheduleTime, pid: started.pid });
      return 'started';
    } finally {
      this.pendingLaunches.delete(runId);
    }
  }

  /**
   * Whether the run is a slot whose record this loop created and whose process it has not started yet: it is
   * `queued` with no queue item for a moment, and not stranded.
   */
  isLaunchPending(runId: string): boolean {
    return this.pendingLaunches.has(runId);
  }

  /** Queues catch-up runs for missed slots, under each DAG's overlap policy. */
  private async replayMissed(nowMs: number, beforeMs: number, recoveryWindowMs: number): Promise<void> {
    let dags: DagSpec[];
    try {
      dags = await this.d.catalog.load();
    } catch (err) {
      this.d.logger.error('Could not load DAGs to replay missed slots', { error: (err as Error).message });
      return;
    }
    // A suspended DAG's missed slots are not replayed (Dagu moves its catch-up mark past them as well). If the
    // flags cannot be read, the replay goes ahead: the queue checks them again before it starts any run.
    let suspended = new Set<string>();
    try {
      suspended = await this.d.suspended.names();
    } catch (err) {
      this.d.logger.error('Could not read the suspend flags before replaying missed slots', {
        error: (err as Error).message,
      });
    }
    let queued = 0;
    for (const dag of dags) {
      const windowMs = Math.max(dag.catchup_window_ms, recoveryWindowMs);
      if (windowMs <= 0 || dag.schedule.length === 0) continue;
      if (suspended.has(dag.name)) {
        this.d.logger.info('Missed slots of a suspended DAG are not replayed', { dag: dag.name });
        continue;
      }
      if (!this.d.queuesEnabled) {
        this.d.logger.warn('Missed slots are not replayed: queues are disabled (queues.enabled: false)', {
          dag: dag.name,
        });
        continue;
      }
      // The last tick the previous active instance completed: every slot up to it was handled (run, or
      // skipped because the DAG was busy); slots after it were at most planned.
      const handledUpTo = this.state?.last_tick_ms ?? null;
      const live = firstLiveSlot(dag, beforeMs, nowMs);
      let slots = planCatchup(dag, {
        lastSlotMs:
          handledUpTo === null ? null : Math.max(handledUpTo, this.state?.dags[dag.name]?.last_slot_ms ?? 0),
        windowMs,
        nowMs,
        beforeMs: live ?? beforeMs,
      });
      // The first tick would skip its live slot while these replays wait in the queue (the DAG is busy), so
      // the live slot joins them; under `latest` the live slot alone is the newest and runs as usual.
      if (live !== null && slots.length > 0) slots = dag.overlap_policy === 'latest' ? [] : [...slots, live];
      for (const slotMs of slots) {
        const outcome = await this.enqueueCatchup(dag, slotMs);
        if (outcome === 'queued') queued++;
        if (outcome !== 'failed') this.noteSlot(dag.name, slotMs);
      }
    }
    if (queued > 0) this.d.logger.info('Replayed missed slots through the queue', { count: queued });
  }

  /** Queues one missed slot as a catch-up run with the slot's own run ID (a live run of it wins). */
  async enqueueCatchup(dag: DagSpec, slotMs: number): Promise<DispatchOutcome> {
    const runId = slotRunId(this.d.slotNamespace, dag.name, slotMs);
    if (!this.d.canDispatch()) return 'fenced';
    const status = this.catchupStatus(dag, runId, slotMs);
    try {
      const created = await this.d.runs.createRun(status);
      if (!created.created) return await this.adoptStranded(dag, runId, slotMs);
      await this.putInQueue(dag, runId, dag.queue, status.created_at);
    } catch (err) {
      this.d.logger.error('Could not queue a catch-up run', {
        dag: dag.name,
        run_id: runId,
        error: (err as Error).message,
      });
      return 'failed';
    }
    this.d.logger.info('Queued a catch-up run for a missed slot', {
      dag: dag.name,
      run_id: runId,
      slot: status.schedule_time,
    });
    return 'queued';
  }

  /**
   * A slot whose run record exists but is still `queued` with no queue item was planned by an instance that
   * died before starting it: it gets a queue item so it runs (the run's claim keeps it to one execution).
   */
  private async adoptStranded(dag: DagSpec, runId: string, slotMs: number): Promise<DispatchOutcome> {
    const r = await this.d.runs.readStatus(runId);
    if (r.kind === 'missing') return this.completeHalfCreated(dag, runId, slotMs);
    if (r.kind !== 'ok' || r.status.status !== 'queued' || r.status.worker_id !== null) return 'exists';
    // Ours, and already launched; unless the launch failed, and then the queue's consumer starts it.
    if (r.status.dispatched_by === this.d.instanceId && !this.unlaunched.has(runId)) return 'exists';
    if (await this.d.queue.find(runId)) return 'exists';
    if (!this.d.canDispatch()) return 'fenced';
    // Its creator may have died between the status and the run list's entries: list it, or the run would
    // execute without ever showing in the console.
    await this.d.runs.ensureIndexed(r.status);
    await this.putInQueue(dag, runId, r.status.queue, r.status.created_at);
    if (this.unlaunched.delete(runId)) {
      this.d.logger.info('Queued a slot whose run process could not be started', {
        dag: dag.name,
        run_id: runId,
        slot: r.status.schedule_time,
      });
      return 'queued';
    }
    this.d.logger.info('Adopted a slot the failed instance planned but did not start', {
      dag: dag.name,
      run_id: runId,
      slot: r.status.schedule_time,
    });
    return 'queued';
  }

  /** The run directory of the slot exists without a status: its creator died in between. Finish and queue it. */
  private async completeHalfCreated(dag: DagSpec, runId: string, slotMs: number): Promise<DispatchOutcome> {
    if (!this.d.canDispatch()) return 'fenced';
    const status = this.catchupStatus(dag, runId, slotMs);
    if (!(await this.d.runs.completeRun(status))) return 'exists';
    await this.putInQueue(dag, runId, dag.queue, status.created_at);
    this.d.logger.info('Completed the run record of a slot whose creator died midway, and queued it', {
      dag: dag.name,
      run_id: runId,
      slot: status.schedule_time,
    });
    return 'queued';
  }

  /** The first status of a catch-up run of `slotMs`, created by this instance. */
  private catchupStatus(dag: DagSpec, runId: string, slotMs: number) {
    return newRunStatus({
      dag,
      runId,
      status: 'queued',
      triggerType: 'catchup',
      scheduleTime: isoUtc(slotMs),
      params: defaultParamList(dag.params),
      nowIso: isoUtc(this.d.clock.nowMs()),
      dispatchedBy: this.d.instanceId,
    });
  }

  /** Marks a queued run active and gives it a queue item, so the queue consumer starts it. */
  private async putInQueue(dag: DagSpec, runId: string, queue: string, enqueuedAt: string) {
    await this.d.runs.markActive({ run_id: runId, dag_name: dag.name, queue });
    await this.d.queue.enqueue({ queue, run_id: runId, dag_name: dag.name, enqueued_at: enqueuedAt });
  }

  /**
   * A slot that failed is retried next tick; any other outcome has handled it. A one-off slot stays pending
   * (and so due) while it failed, waits for its busy DAG, or this instance may not dispatch.
   */
  private settleSlot(p: DueSlot, outcome: DispatchOutcome) {
    if (p.oneOff) {
      if (outcome === 'failed' || outcome === 'busy' || outcome === 'fenced') return;
      this.pendingOneOffs = withoutOneOff(this.pendingOneOffs, p.dag, p.slotMs);
      this.pendingOneOffsDirty = true;
      this.noteSlot(p.dag, p.slotMs);
    } else if (outcome === 'failed') this.retry.push(p);
    else this.noteSlot(p.dag, p.slotMs);
  }

  /**
   * Whether the state already has this slot handled. The first tick plans the whole current minute again, to
   * run a slot a predecessor left; one it skipped (suspended, busy) or ran stays done.
   */
  private handled(p: PlannedSlot): boolean {
    const last = this.state?.dags[p.dag]?.last_slot_ms;
    return last !== undefined && p.slotMs <= last;
  }

  private noteSlot(dag: string, slotMs: number) {
    if (!this.state) return;
    const prev = this.state.dags[dag]?.last_slot_ms ?? 0;
    if (slotMs > prev) this.state.dags[dag] = { last_slot_ms: slotMs };
  }

  /**
   * Whether any of these runs, marked active, is still queued or running. A run writes its final status
   * before it removes its active marker, so a marker can outlive its run by a moment (longer on a busy
   * host): a slot that comes due then must not be skipped for a run that has ended. A run whose status
   * cannot be read counts as active, as its marker says.
   */
  private async anyStillActive(runIds: string[]): Promise<boolean> {
    for (const id of runIds) {
      const r = await this.d.runs.readStatus(id).catch(() => null);
      if (r === null || r.kind !== 'ok') return true;
      if (!TERMINAL_RUN_STATES.includes(r.status.status)) return true;
    }
    return false;
  }

  /** Run IDs of each DAG's queued or running runs; a failed read throws, and the tick creates nothing. */
  private async activeRunsByDag(): Promise<ActiveRuns> {
    const byDag = new Map<string, Set<string>>();
    for (const a of await this.d.runs.listActive()) {
      const ids = byDag.get(a.dag_name);
      if (ids) ids.add(a.run_id);
      else byDag.set(a.dag_name, new Set([a.run_id]));
    }
    return byDag;
  }
}

function markBusy(activeRuns: ActiveRuns, dag: string, runId: string) {
  activeRuns.set(dag, new Set([...(activeRuns.get(dag) ?? []), runId]));
}

/**
 * Keeps the newest due slot of each DAG: when a tick comes late (or is the first one of a seconds schedule),
 * older slots of the same DAG are skipped rather than run back to back, as a cron daemon would.
 */
function newestPerDag(planned: PlannedSlot[], logger: Logger): PlannedSlot[] {
  const newest = new Map<string, PlannedSlot>();
  for (const p of planned) {
    const prev = newest.get(p.dag);
    if (prev && prev.slotMs < p.slotMs)
      logger.info('Skipped a slot: a newer slot of the DAG is due in the same tick', {
        dag: p.dag,
        slot: isoUtc(prev.slotMs),
      });
    if (!prev || prev.slotMs < p.slotMs) newest.set(p.dag, p);
  }
  return [...newest.values()].sort((a, b) => a.slotMs - b.slotMs);
}

/**
 * The slot the first tick will run live for this DAG (its newest slot in the current minute), so that the
 * replay stops just before it; null when the DAG has no slot in the current minute.
 */
function firstLiveSlot(dag: DagSpec, minuteStartMs: number, nowMs: number): number | null {
  let newest: number | null = null;
  for (const s of dag.schedule) {
    if (s.at_ms !== undefined) continue; // one-off slots are not replayed (planOneOffs keeps them due)
    const slots = dueSlots(s, minuteStartMs - 1, nowMs);
    const last = slots[slots.length - 1];
    if (last !== undefined && (newest === null || last > newest)) newest = last;
  }
  return newest;
}
