// Consumes the queues: starts queued runs FIFO within each queue's concurrency, as detached run processes,
// and removes a queue item only once its run has visibly started (its status left `queued`). Runs of DAGs
// that go to workers are handed to the dispatcher instead; their item goes once a task owns the run.

import { renamedDag } from '../core/dag/dagName';
import { isoUtc } from '../core/runStatus';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import { TERMINAL_RUN_STATES, type DagSpec, type RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import { parseSlotRunId } from '../core/slotRunId';
import type { QueueConfig } from '../config/types';
import type { SuspendFlags } from '../store/suspendFlags';
import type { QueueItem, QueueStore, RunStore } from '../store/types';
import { isDistributed, type DispatcherApi, newRunDispatch } from '../core/dispatcherApi';
import type { SlotChange } from '../store/controlPlane';
import type { DispatchStore } from '../store/dispatchTypes';
import type { DagSource } from './dagCatalogCache';
import type { Launcher } from './launcher';

const BUSY_POLL_MS = 100;
const IDLE_POLL_MS = 1 * SECOND;
/**
 * While runs wait, the next poll comes at least this many times a pass's own duration later (and at most
 * IDLE_POLL_MS): a pass over a backlog of thousands of runs costs tens of milliseconds, and polling it at
 * BUSY_POLL_MS took the scheduler a third of a core. The end of a run, announced, still wakes a pass at once.
 */
const POLL_PER_PASS_COST = 5;
/** The reason a queued scheduler-made run of a suspended DAG ends with: Dagu's words. */
export const SUSPENDED_DROP_REASON = 'dag schedule suspended before dispatch';

/** Runs the scheduler made (slots and their replays): a suspended DAG's queued ones are dropped, as in Dagu. */
const SCHEDULER_TRIGGERS: ReadonlySet<string> = new Set(['scheduler', 'catchup']);

/** How long a launched run may take to leave `queued` before its item is offered again. */
const START_TIMEOUT_MS = 30 * SECOND;
/** How often a launched run's status is read until it has left `queued`, and the least time between reads. */
export const START_POLL_MS = 50;
/**
 * The same where run changes are woken up (runsChanged): the status is read as each change is announced,
 * and this poll only stands in for an announcement that got lost.
 */
export const START_POLL_WOKEN_MS = 1 * SECOND;
/**
 * How soon a run the dispatcher refused is offered to it again. Each refusal rewrites the run's conditions,
 * so retrying at the busy-poll rate would rewrite (and emit an event for) every waiting run ten times a second.
 */
export const REFUSED_RETRY_MS = 1 * SECOND;

export interface QueueProcessorDeps {
  clock: Clock;
  timers: Timers;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  catalog: DagSource;
  /** The suspend flags, read once per pass that has a scheduler-made run to start. */
  suspended: Pick<SuspendFlags, 'names'>;
  queues: QueueConfig[];
  launch: Launcher;
  canDispatch: () => boolean;
  /** `default_execution_mode`: with `distributed`, every DAG goes to the workers (default `local`). */
  executionMode?: 'local' | 'distributed';
  /**
   * Hands runs of DAGs that go to workers to the coordinator's dispatch store. Without one, such runs stay
   * queued (a warning is logged once per run).
   */
  dispatcher?: DispatcherApi;
  /** The dispatch store, to tell a run that already has a task (its item outlived the hand-over). */
  tasks?: Pick<DispatchStore, 'findByRun'>;
  /**
   * Runs' changes are announced to this processor (runsChanged, from the backend's wake-ups): a launched
   * run's start is then read when a change of it comes, and polled for only every START_POLL_WOKEN_MS.
   */
  runWakeups?: boolean;
  /**
   * Whether the end of a run and a queue item stored, made on this host, are announced now (runsChanged,
   * wake), where nothing announces every change (files). Then, as with runWakeups, a queue whose slots are
   * all taken is not polled between those announcements and IDLE_POLL_MS. A launched run's start is still
   * polled: its status change is not announced.
   */
  slotWakeups?: () => boolean;
}

interface InFlight {
  queue: string;
  sinceMono: number;
}

export class QueueProcessor {
  private readonly loop: TimerLoop;
  private readonly inFlight = new Map<string, InFlight>();
  /** Runs the dispatcher refused: when it last did (monotonic) and why, so each reason is logged once. */
  private readonly refused = new Map<string, { atMono: number; reason: string }>();
  /** Runs of distributed DAGs left queued for want of a dispatcher, already warned about. */
  private readonly undispatchable = new Set<string>();
  /** The last launch error of each queued run, so a failing launch is logged once, not at every pass. */
  private readonly launchErrors = new Map<string, string>();
  /**
   * Why each queued run that cannot be started waits (an unreadable status, a DAG that is gone), so that
   * it is logged once rather than at every pass, and again only when the reason changes.
   */
  private readonly stuck = new Map<string, string>();
  /** Queued runs whose DAG was not in the catalog at their last read: the DAG's name and file. */
  private readonly lackingDag = new Map<string, Pick<RunStatus, 'dag_name' | 'dag_file'>>();
  /** This pass's read of the suspend flags (an Error when it failed), made when first needed. */
  private suspendedNow: Promise<Set<string> | Error> | null = null;
  /** Whether a failed read of the flags was logged since the last read that worked. */
  private suspendReadFailing = false;
  /**
   * Queued runs read as made by another trigger than catch-up (which a queued run keeps): a full queue's
   * head among them is not read at every pass, since only a catch-up is ever dropped from a full queue.
   */
  private readonly notCatchup = new Set<string>();
  /** Counts runsChanged calls about every run, so a watch tells whether one came since its last read. */
  private changes = 0;
  /** Runs whose process is being launched: their changes are counted already. */
  private readonly launching = new Set<string>();
  /**
   * The last state each watched run's hints named, with its attempt (from the write that sent the hint): a
   * watch that sees its launched attempt has left `queued` there needs no read.
   */
  private readonly hinted = new Map<string, { attempt: number; state: string }>();
  /** Counts runsChanged calls about each watched run. */
  private readonly runChanges = new Map<string, number>();
  /** The watches waiting for a change (or their poll), by run, each ended early by runsChanged. */
  private readonly changeWaiters = new Map<string, Set<() => void>>();
  /** The queues that had runs waiting at the last pass: the end of a run of theirs frees a slot for one. */
  private waitingQueues = new Set<string>();
  /** The queue of each active run the last pass saw. */
  private queueOfActive = new Map<string, string>();
  /** A pass is under way. */
  private passing = false;
  /** A change this host saw (slotChanged) came during the pass under way. */
  private slotChangeDuringPass = false;
  /** The last pass found nothing to start soon: the next one is IDLE_POLL_MS away unless a change comes. */
  private resting = false;
  /** When the next pass may come at the earliest, at the busy poll's pace (monotonic ms). */
  private earliestNextMono = 0;
  /** A wake for a change this host saw, held back until earliestNextMono. */
  private slotWakeTimer: TimerHandle | null = null;

  constructor(private readonly d: QueueProcessorDeps) {
    this.loop = new TimerLoop({
      timers: d.timers,
      pass: async () => {
        const started = d.clock.monoMs();
        this.passing = true;
        this.slotChangeDuringPass = false;
        let soon: boolean;
        try {
          soon = await this.pass();
        } finally {
          this.passing = false;
        }
        const cost = d.clock.monoMs() - started;
        const busyDelay = Math.min(IDLE_POLL_MS, Math.max(BUSY_POLL_MS, POLL_PER_PASS_COST * cost));
        this.earliestNextMono = d.clock.monoMs() + busyDelay;
        // A change seen during this pass may have come after the pass looked: the next one is due.
        this.resting = !soon && !this.slotChangeDuringPass;
        return this.resting ? IDLE_POLL_MS : busyDelay;
      },
      onError: (err) => {
        this.d.logger.error('Queue pass failed; retrying', { error: (err as Error).message });
        return IDLE_POLL_MS;
      },
    });
  }

  start(): void {
    this.loop.start(0);
  }

  async stop(): Promise<void> {
    if (this.slotWakeTimer) this.d.timers.clearTimeout(this.slotWakeTimer);
    this.slotWakeTimer = null;
    await this.loop.stop();
    // The watches end at once rather than at their next poll.
    for (const set of [...this.changeWaiters.values()]) for (const wake of [...set]) wake();
  }

  /** Looks at the queues now rather than at the next poll: an item was stored (a wake-up from another host). */
  wake(): void {
    this.loop.wake();
  }

  /**
   * The state of run `runId` changed, or (null) maybe of any run (a wake-up from the backend): the starts
   * being watched of those runs are read now rather than at their next poll, though never sooner than
   * START_POLL_MS after their last read. A change of any other run may be its end, which frees a slot of
   * its queue: while runs wait in that queue (or the run's queue is not known yet), a pass looks at the
   * queues now rather than at the next poll, unless the hint says the run is running.
   */
  runsChanged(runId: string | null = null, hint?: { attempt?: number; state?: string }): void {
    if (runId === null) {
      this.changes++;
      for (const set of [...this.changeWaiters.values()]) for (const wake of [...set]) wake();
      if (this.waitingQueues.size > 0) this.loop.wake();
      return;
    }
    if (!this.inFlight.has(runId) && !this.launching.has(runId)) {
      const queue = this.queueOfActive.get(runId);
      // A known active run that says it is running has not freed its slot: no pass is due for it.
      if (queue !== undefined && hint?.state === 'running') return;
      if (this.mayFreeWaitedSlot(runId)) this.loop.wake();
      return;
    }
    this.runChanges.set(runId, (this.runChanges.get(runId) ?? 0) + 1);
    if (hint?.attempt !== undefined && hint.state !== undefined)
      this.hinted.set(runId, { attempt: hint.attempt, state: hint.state });
    for (const wake of [...(this.changeWaiters.get(runId) ?? [])]) wake();
  }

  /** How many changes of run `runId` (or of every run) were announced so far. */
  private changesOf(runId: string): number {
    return this.changes + (this.runChanges.get(runId) ?? 0);
  }

  /**
   * This host saw an active run's marker come or go (`runId`, null when it could not tell which), or a
   * queue item stored, where nothing else announces it (files with change notifications, slotWakeups).
   * When the last pass found nothing to start before a slot frees, and so rests until IDLE_POLL_MS, a pass
   * comes at the busy poll's pace instead; while the queues are polled anyway, nothing changes. So a change
   * never makes passes come more often than the busy poll would: a stream of changes (thousands of items
   * stored while every slot is taken) costs no more than polling did.
   */
  slotChanged(change: SlotChange): void {
    // A run's marker matters only when it may free a slot someone waits for: the runs started by hand on a
    // busy host come and go all the time, and no queue waits for them.
    if (change.kind === 'run' && !this.mayFreeWaitedSlot(change.runId)) return;
    if (this.passing) {
      this.slotChangeDuringPass = true;
      return;
    }
    if (!this.resting || this.slotWakeTimer) return;
    const wait = this.earliestNextMono - this.d.clock.monoMs();
    this.d.logger.debug('Queue consumer: a change on this host wakes it', {
      change: change.kind,
      ...(change.kind === 'run' && change.runId !== null ? { run_id: change.runId } : {}),
      in_ms: Math.max(0, wait),
    });
    if (wait <= 0) {
      this.loop.wake();
      return;
    }
    this.slotWakeTimer = this.d.timers.setTimeout(() => {
      this.slotWakeTimer = null;
      this.loop.wake();
    }, wait);
  }

  /** Whether run `runId` (null: some run) may have held a slot of a queue where runs waited at the last pass. */
  private mayFreeWaitedSlot(runId: string | null): boolean {
    const queue = runId === null ? undefined : this.queueOfActive.get(runId);
    return queue === undefined ? this.waitingQueues.size > 0 : this.waitingQueues.has(queue);
  }

  /**
   * Offers a run again now instead of after the start timeout: the process started for it cannot start it
   * (the dead-run check gave back the claim that kept it from doing so), or the run lane it was promised to
   * never took it.
   */
  offerAgain(runId: string): void {
    if (this.inFlight.delete(runId)) this.loop.wake();
  }

  /**
   * One pass over every non-empty queue. Returns true when the next pass should come soon: runs wait in a
   * queue. Where runs' changes are announced (runWakeups), only when a pass soon may start one: a run waits
   * in a queue with a free slot, or a run started is not running yet. Runs that wait for a slot of a full
   * queue need no poll there: the end of a run of that queue wakes a pass (runsChanged), and a pass still
   * comes every IDLE_POLL_MS in case a wake-up was missed or a limit was raised. The same on files while
   * this host's changes are announced (slotWakeups); a run's end on another host is then seen at that pass.
   * Else a waiting queue is polled.
   */
  async pass(): Promise<boolean> {
    if (!this.d.canDispatch()) return false;
    this.suspendedNow = null;
    const byQueue = await this.d.queue.listAll();
    if (byQueue.size === 0 && this.inFlight.size === 0) {
      this.waitingQueues.clear();
      return false;
    }
    const dags = new Map((await this.d.catalog.load()).map((g) => [g.name, g]));
    const active = await this.d.runs.listActive();
    let waiting = this.inFlight.size > 0;
    let startable = waiting;
    const queuedIds = new Set([...byQueue.values()].flat().map((i) => i.run_id));
    this.forgetGone(queuedIds);
    this.queueOfActive = new Map(active.map((a) => [a.run_id, a.queue]));
    this.waitingQueues = new Set([...byQueue].filter(([, items]) => items.length > 0).map(([name]) => name));
    // Active runs that are not queue items are running (or starting), by queue; that includes runs handed
    // to the workers, waiting for one (a task owns them) or running on one. Grouped once: with a queue per
    // DAG, filtering every active run for each queue grew with queues × runs.
    const runningByQueue = new Map<string, Set<string>>();
    for (const a of active) {
      if (queuedIds.has(a.run_id)) continue;
      const ids = runningByQueue.get(a.queue);
      if (ids) ids.add(a.run_id);
      else runningByQueue.set(a.queue, new Set([a.run_id]));
    }
    for (const [name, items] of byQueue) {
      if (items.length === 0) continue;
      waiting = true;
      const runningIds = runningByQueue.get(name) ?? new Set<string>();
      let inFlightHere = 0;
      for (const [id, f] of this.inFlight) if (f.queue === name && !runningIds.has(id)) inFlightHere++;
      let free = this.limitOf(name, dags) - runningIds.size - inFlightHere;
      // Runs of this queue not started yet: while more wait than may start, a run lane pays off.
      let waitingHere = items.filter((i) => !this.inFlight.has(i.run_id)).length;
      for (const item of items) {
        if (this.inFlight.has(item.run_id)) continue;
        if (free <= 0) {
          // A full queue still drops a head catch-up that overlap_policy `skip` says not to run: its DAG
          // is running right now, which is often why the queue is full.
          // Only a catch-up is dropped so: a run read before as another trigger waits without a read, and so
          // does one whose ID is not a slot's (a catch-up is always a slot run), such as a `dagu enqueue` run.
          if (this.notCatchup.has(item.run_id) || parseSlotRunId(item.run_id) === null) break;
          if (await this.startItem(item, dags, active, queuedIds, { onlySkip: true })) continue;
          break;
        }
        startable = true;
        if (await this.startItem(item, dags, active, queuedIds, { backlog: waitingHere > free })) free--;
        waitingHere--;
      }
    }
    return this.d.runWakeups || this.d.slotWakeups?.() ? startable : waiting;
  }

  /**
   * Whether the DAG runs something other than a replay, which is what overlap_policy `skip` guards against.
   * Replays of one outage wait for each other in the queue instead: skipping one because the previous
   * replay had not finished yet would make the outcome depend on how fast the host is.
   */
  private async busyOutsideReplay(
    dagName: string,
    runId: string,
    active: Array<{ run_id: string; dag_name: string }>,
    queuedIds: Set<string>,
  ): Promise<boolean> {
    for (const a of active) {
      if (a.dag_name !== dagName || a.run_id === runId || queuedIds.has(a.run_id)) continue;
      const r = await this.d.runs.readStatus(a.run_id);
      if (r.kind === 'missing') continue;
      // An unreadable run might be a live one: fail closed, as the live slot guard does.
      if (r.kind === 'corrupt') return true;
      if (r.status.trigger_type === 'catchup') continue;
      if (r.status.status === 'running' || r.status.status === 'queued') return true;
    }
    return false;
  }

  private limitOf(queue: string, dags: Map<string, DagSpec>): number {
    const configured = this.d.queues.find((q) => q.name === queue);
    if (configured) return configured.max_concurrency;
    const dag = dags.get(queue);
    return dag ? Math.max(1, dag.max_active_runs) : 1;
  }

  /**
   * Starts one item's run; returns true when it took a slot of the queue, or found its run holding one
   * already. With `onlySkip` it only drops a catch-up that overlap_policy `skip` rules out, and returns true
   * when it did (or when the run had started: either way the next item is looked at). `backlog`: more of the
   * queue's runs wait than may start now (the launcher may then start a run lane).
   */
  private async startItem(
    item: QueueItem,
    dags: Map<string, DagSpec>,
    active: Array<{ run_id: string; dag_name: string }>,
    queuedIds: Set<string>,
    opts: { onlySkip?: boolean; backlog?: boolean } = {},
  ): Promise<boolean> {
    const log = this.d.logger.child({ dag: item.dag_name, run_id: item.run_id, queue: item.queue });
    // Its DAG was gone at the last pass and still is: nothing to read. A backlog of a DAG whose file was
    // removed (or broken by an edit) would otherwise cost a status read per run at every pass.
    const lacking = this.lackingDag.get(item.run_id);
    if (lacking && !dagOf(dags, lacking)) return false;
    const r = await this.d.runs.readStatus(item.run_id);
    if (r.kind === 'missing') {
      log.warn('Queue item points to a run that does not exist; removing the item');
      await this.d.queue.dequeue(item.queue, item.run_id);
      return false;
    }
    if (r.kind === 'corrupt') {
      if (this.firstReport(item.run_id, `corrupt:${r.path}:${r.error}`)) {
        log.error('Queued run has an unreadable status file; leaving it queued', {
          path: r.path,
          error: r.error,
        });
      }
      return false;
    }
    const status = r.status;
    if (status.status === 'queued' && status.trigger_type !== 'catchup') this.notCatchup.add(status.run_id);
    if (status.status !== 'queued') {
      await this.d.queue.dequeue(item.queue, item.run_id);
      // Its item outlived the start (a scheduler stopped in between, or this pass listed the queue just
      // before the start's watch removed it): a run still going holds a slot of its queue, which the pass
      // did not count among the running ones since it took the run for a queued one.
      return !TERMINAL_RUN_STATES.includes(status.status);
    }
    const dag = dagOf(dags, status);
    if (!dag) {
      this.lackingDag.set(item.run_id, { dag_name: status.dag_name, dag_file: status.dag_file });
      if (this.firstReport(item.run_id, `no dag:${status.dag_name}:${status.dag_file ?? ''}`))
        log.error('Queued run of a DAG that no longer exists or is invalid; leaving it queued');
      return false;
    }
    this.stuck.delete(item.run_id);
    this.lackingDag.delete(item.run_id);
    if (SCHEDULER_TRIGGERS.has(status.trigger_type)) {
      const suspended = await this.suspendedDags();
      if (suspended === null) return false; // cannot tell: the run waits, it neither starts nor ends
      if (suspended.has(dag.name)) {
        if (!this.d.canDispatch()) return false;
        await this.abortQueued(status, SUSPENDED_DROP_REASON);
        log.info('Dropped a queued scheduler-made run of a suspended DAG', { reason: SUSPENDED_DROP_REASON });
        await this.d.queue.dequeue(item.queue, item.run_id);
        return false;
      }
    }
    if (status.trigger_type === 'catchup' && dag.overlap_policy === 'skip') {
      if (await this.busyOutsideReplay(dag.name, status.run_id, active, queuedIds)) {
        if (!this.d.canDispatch()) return false;
        const reason = 'skipped: the DAG was still running (overlap_policy: skip)';
        await this.abortQueued(status, reason);
        log.info('Dropped a queued catch-up run', { reason });
        await this.d.queue.dequeue(item.queue, item.run_id);
        return opts.onlySkip === true;
      }
    }
    if (opts.onlySkip || !this.d.canDispatch()) return false;
    if (isDistributed(dag, this.d.executionMode ?? 'local')) return this.dispatchItem(item, dag, status, log);
    let started;
    // Changes of the run count from here: its process may announce its start before the launch returns.
    this.launching.add(status.run_id);
    const seen = this.changesOf(status.run_id);
    try {
      started = await this.d.launch({
        dagName: dag.name,
        dagFile: dag.file,
        renamed: Boolean(status.dag_file),
        runId: status.run_id,
        triggerType: status.trigger_type,
        scheduleTime: status.schedule_time,
        processLog: `${this.d.runs.logDir(dag.name, status.run_id, status.attempt)}/process.log`,
        propagateSignals: dag.signal_handling.enable_propagation,
        stillAllowed: this.d.canDispatch,
        queue: { backlog: opts.backlog === true, notStarted: () => this.offerAgain(status.run_id) },
      });
    } catch (err) {
      // The item stays: a later pass offers the run again.
      const message = (err as Error).message;
      if (this.launchErrors.get(status.run_id) !== message)
        log.error('Could not start the run process of a queued run; it stays queued', { error: message });
      this.launchErrors.set(status.run_id, message);
      this.runChanges.delete(status.run_id);
      this.hinted.delete(status.run_id);
      return false;
    } finally {
      this.launching.delete(status.run_id);
    }
    if (started.fenced) {
      this.runChanges.delete(status.run_id);
      this.hinted.delete(status.run_id);
      return false;
    }
    const pid = started.pid;
    log.info('Started a queued run', { pid, trigger_type: status.trigger_type });
    this.inFlight.set(status.run_id, { queue: item.queue, sinceMono: this.d.clock.monoMs() });
    void this.watchStart(item, seen, status.attempt).catch((err: Error) =>
      log.error('Watching a run start failed', { error: err.message }),
    );
    return true;
  }

  /**
   * Hands a queued run to the workers. `dispatched`: a task owns the run now (it stays `queued` until a
   * worker starts it) and the item goes. `refused`: the dispatcher wrote the waiting conditions on the run;
   * the item stays and the run is offered again after REFUSED_RETRY_MS.
   */
  private async dispatchItem(
    item: QueueItem,
    dag: DagSpec,
    status: RunStatus,
    log: Logger,
  ): Promise<boolean> {
    const dispatcher = this.d.dispatcher;
    if (!dispatcher) {
      if (!this.undispatchable.has(status.run_id)) {
        this.undispatchable.add(status.run_id);
        log.warn(
          'Queued run of a DAG that runs on workers, but this scheduler has no dispatcher; leaving it queued',
        );
      }
      return false;
    }
    const last = this.refused.get(status.run_id);
    if (last && this.d.clock.monoMs() - last.atMono < REFUSED_RETRY_MS) return false;
    // Handed over already (the item's removal failed, or another pass raced us): never a second task.
    if (status.worker_id !== null || (this.d.tasks && (await this.d.tasks.findByRun(status.run_id)))) {
      await this.d.queue.dequeue(item.queue, item.run_id);
      return true;
    }
    const remember = (reason: string) => {
      this.refused.set(status.run_id, { atMono: this.d.clock.monoMs(), reason });
      return last?.reason !== reason;
    };
    // The fence again, right before the hand-over: the lookups above may have taken a while.
    if (!this.d.canDispatch()) return false;
    let result;
    try {
      result = await dispatcher.dispatch(
        newRunDispatch(dag, status.run_id, {
          triggerType: status.trigger_type,
          params: status.params,
          scheduleTime: status.schedule_time,
          fromQueue: true,
        }),
      );
    } catch (err) {
      // The item stays and a later pass tries again.
      const message = (err as Error).message;
      if (remember(`error: ${message}`)) {
        log.error('Could not hand a queued run to the workers; it stays queued', { error: message });
      }
      return false;
    }
    if (result.outcome === 'refused') {
      if (remember(result.error)) {
        log.info('No worker can take a queued run yet; it stays queued', {
          reason: result.reason,
          error: result.error,
        });
      }
      return false;
    }
    this.refused.delete(status.run_id);
    await this.d.queue.dequeue(item.queue, item.run_id);
    log.info('Handed a queued run to the workers', {
      outcome: result.outcome,
      trigger_type: status.trigger_type,
    });
    return true;
  }

  /** Whether `reason` is new for the queued run `runId` (and so to be logged); remembers it. */
  private firstReport(runId: string, reason: string): boolean {
    if (this.stuck.get(runId) === reason) return false;
    this.stuck.set(runId, reason);
    return true;
  }

  /** Drops what is remembered about runs no longer in any queue. */
  private forgetGone(queuedIds: Set<string>) {
    for (const id of this.refused.keys()) if (!queuedIds.has(id)) this.refused.delete(id);
    for (const id of this.undispatchable) if (!queuedIds.has(id)) this.undispatchable.delete(id);
    for (const id of this.launchErrors.keys()) if (!queuedIds.has(id)) this.launchErrors.delete(id);
    for (const id of this.stuck.keys()) if (!queuedIds.has(id)) this.stuck.delete(id);
    for (const id of this.lackingDag.keys()) if (!queuedIds.has(id)) this.lackingDag.delete(id);
    for (const id of this.notCatchup) if (!queuedIds.has(id)) this.notCatchup.delete(id);
  }

  /** Dequeues the item once the run has left `queued`; gives the slot back if it never does. */
  private async watchStart(item: QueueItem, changesBefore: number, attempt: number): Promise<void> {
    const mine = this.inFlight.get(item.run_id)!;
    const started = mine.sinceMono;
    // Until the run is offered again (offerAgain), when a newer launch has its own watch.
    let seen = changesBefore;
    while (!this.loop.stopped && this.inFlight.get(item.run_id) === mine) {
      await this.untilStartRead(item.run_id, seen);
      seen = this.changesOf(item.run_id);
      // The state a hint named for the attempt launched, once it is not `queued` (a hint is sent at the
      // commit of the write, so that state was written); else the run is read.
      const hint = this.hinted.get(item.run_id);
      let state: string | null = hint?.attempt === attempt && hint.state !== 'queued' ? hint.state : null;
      if (state === null) {
        const r = await this.d.runs.readStatus(item.run_id);
        if (r.kind === 'ok') state = r.status.status;
      }
      if (state !== null && state !== 'queued') {
        await this.d.queue.dequeue(item.queue, item.run_id);
        // Ended already (a short run, whose changes came together): its slot is free for the next item.
        if (state !== 'running' && this.waitingQueues.has(item.queue)) this.loop.wake();
        else this.queueOfActive.set(item.run_id, item.queue);
        break;
      }
      if (this.d.clock.monoMs() - started > START_TIMEOUT_MS) {
        this.d.logger.warn('A queued run did not start in time; it stays queued and will be offered again', {
          run_id: item.run_id,
        });
        break;
      }
    }
    if (this.inFlight.get(item.run_id) === mine) this.inFlight.delete(item.run_id);
    if (!this.inFlight.has(item.run_id)) {
      this.runChanges.delete(item.run_id);
      this.hinted.delete(item.run_id);
    }
  }

  /**
   * Waits until launched run `runId`'s status is to be read again: START_POLL_MS, and where runs' changes
   * are announced, until one of it is (if none came since `seen`) or START_POLL_WOKEN_MS has passed.
   */
  private async untilStartRead(runId: string, seen: number): Promise<void> {
    await new Promise<void>((res) => this.d.timers.setTimeout(res, START_POLL_MS));
    if (!this.d.runWakeups || this.changesOf(runId) !== seen) return;
    await new Promise<void>((resolve) => {
      let set = this.changeWaiters.get(runId);
      if (!set) this.changeWaiters.set(runId, (set = new Set()));
      const waiting = set;
      const done = () => {
        waiting.delete(done);
        if (waiting.size === 0 && this.changeWaiters.get(runId) === waiting) this.changeWaiters.delete(runId);
        this.d.timers.clearTimeout(timer);
        resolve();
      };
      const timer = this.d.timers.setTimeout(done, START_POLL_WOKEN_MS - START_POLL_MS);
      waiting.add(done);
    });
  }

  /** The suspended DAGs as this pass read them; null (logged once) when the flags cannot be read. */
  private async suspendedDags(): Promise<Set<string> | null> {
    this.suspendedNow ??= this.d.suspended.names().catch((err: Error) => err);
    const r = await this.suspendedNow;
    if (!(r instanceof Error)) {
      this.suspendReadFailing = false;
      return r;
    }
    if (!this.suspendReadFailing)
      this.d.logger.error('Could not read the suspend flags; scheduled runs stay queued', {
        error: r.message,
      });
    this.suspendReadFailing = true;
    return null;
  }

  /** Ends a queued run `aborted` with `reason`; the caller logs why. */
  private async abortQueued(status: RunStatus, reason: string) {
    const now = isoUtc(this.d.clock.nowMs());
    await this.d.runs.writeStatus({
      ...status,
      status: 'aborted',
      finished_at: now,
      error: reason,
      conditions: [],
    });
    await this.d.runs.unmarkActive(status.run_id);
  }
}

/**
 * The DAG of a run queued under another name (`dagu enqueue -N`): the catalog's DAG whose file (or name)
 * the record keeps, under the run's name.
 */
function renamedDagOf(dags: Map<string, DagSpec>, dagFile: string, name: string): DagSpec | undefined {
  const own = [...dags.values()].find((g) => g.file === dagFile) ?? dags.get(dagFile);
  return own ? renamedDag(own, name) : undefined;
}

/** The catalog's DAG of a queued run: by its name, or its file for a run queued under another name. */
function dagOf(
  dags: Map<string, DagSpec>,
  run: Pick<RunStatus, 'dag_name' | 'dag_file'>,
): DagSpec | undefined {
  return run.dag_file ? renamedDagOf(dags, run.dag_file, run.dag_name) : dags.get(run.dag_name);
}
