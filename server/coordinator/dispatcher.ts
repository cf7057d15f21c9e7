// Hands runs to the workers through the dispatch store: records the run (`queued`) before its task, holds a
// dispatch no healthy worker matches (seed 002), refuses where holding is off, and cancels runs no worker has.

import {
  decideDispatch,
  formatSelector,
  refusalError,
  waitingConditions,
  type DispatchDecision,
  type Labels,
} from '../core/distributed';
import type { Config } from '../config/types';
import { coordinatorAvailability } from '../core/coordinatorPresence';
import type { Clock, Logger } from '../core/ports';
import { isoUtc, newRunStatus, nextAutoRetryCount } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type RunCondition, type RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import type {
  CancelRequests,
  CoordinatorRecord,
  CoordinatorRegistry,
  DispatchStore,
  DispatchTask,
  NewDispatchTask,
  WorkerRecord,
  WorkerRegistry,
} from '../store/dispatchTypes';
import type { EventLog, RunStore } from '../store/types';
import type { CancelOutcome, DispatcherApi, DispatchParams, DispatchResult } from '../core/dispatcherApi';
import { endedStatus } from '../core/endedStatus';
import { DispatchConflictError, DispatchFailedError, RunUnreadableError } from './errors';
import { isHoldTaker } from '../store/expireHold';
import { errorCode } from '../store/fsutil';
import { RunLocks } from './runLocks';
import { mayBeTheEventsFault } from '../store/runEvents';

/** The error of a run cancelled while it waited for a worker. */
export const CANCELLED_BEFORE_WORKER = 'cancelled before a worker took it';

/**
 * The queue re-dispatches a waiting run every pass; its conditions are rewritten only when they change or
 * their `checked_at` is older than this, so a waiting run does not cost a status write (and an event) a pass.
 */
export const CONDITIONS_REFRESH_MS = 5 * SECOND;

export interface DispatcherDeps {
  runs: RunStore;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  clock: Clock;
  logger: Logger;
  /** `coordinator.worker_wait_timeout`: how long a dispatch no worker matches is held; 0 refuses. */
  waitMs: number;
  /** `coordinator.worker_stale_threshold`: older heartbeats make a worker unhealthy. */
  staleMs: number;
  /** Told after a task is stored, so long polls waiting in this process look at once. */
  onEnqueued?: (task: DispatchTask) => void;
  /**
   * Where `run:dispatched` goes once a task is stored. The run's `dag.run.queued` comes with its record,
   * before the task exists: a console that read the queue between the two showed the run neither held nor
   * dispatched, and learned of the task only at its next slow poll. Absent: no event.
   */
  events?: Pick<EventLog, 'append'>;
  /** Shared with the other parts of this coordinator that write runs. */
  locks?: RunLocks;
  /**
   * The coordinators' liveness records: with none alive, a direct dispatch is refused and the queue's run is
   * held. Absent in a coordinator's own dispatcher, which is a live coordinator by being there.
   */
  coordinators?: Pick<CoordinatorRegistry, 'list'>;
}

/** The dispatcher over a control plane's stores, as the API's services and the run commands make it. */
export function storeDispatcher(
  config: Config,
  stores: {
    runs: RunStore;
    tasks: DispatchStore;
    workers: WorkerRegistry;
    cancels: CancelRequests;
    coordinators: CoordinatorRegistry;
    events: EventLog;
  },
  logger: Logger,
  clock: Clock,
): Dispatcher {
  return new Dispatcher({
    runs: stores.runs,
    tasks: stores.tasks,
    workers: stores.workers,
    cancels: stores.cancels,
    coordinators: stores.coordinators,
    events: stores.events,
    clock,
    logger,
    waitMs: config.coordinator.worker_wait_timeout_ms,
    staleMs: config.coordinator.worker_stale_threshold_ms,
  });
}

/** The event a dispatch appends once its task is stored (held for a worker, or waiting to be claimed). */
export const DISPATCHED_EVENT = 'run:dispatched';

/** The data of a task's `run:dispatched` event. */
function dispatchedEventData(
  task: Pick<NewDispatchTask, 'run_id' | 'dag_name' | 'attempt' | 'hold_until_ms'>,
): Record<string, unknown> {
  return {
    run_id: task.run_id,
    dag: task.dag_name,
    attempt: task.attempt,
    held: task.hold_until_ms !== null,
    ...(task.hold_until_ms !== null ? { hold_until: isoUtc(task.hold_until_ms) } : {}),
  };
}

export class Dispatcher implements DispatcherApi {
  private readonly locks: RunLocks;
  /**
   * The worker and coordinator lists each dispatch decides on, read once for the dispatches that ask while
   * a read is under way: what they get was read during their call, as a read of their own would be.
   */
  private readonly workerList: SharedRead<WorkerRecord[]>;
  private readonly coordinatorList: SharedRead<CoordinatorRecord[]> | null;

  constructor(private readonly d: DispatcherDeps) {
    this.locks = d.locks ?? new RunLocks();
    this.workerList = new SharedRead(() => d.workers.list());
    const coordinators = d.coordinators;
    this.coordinatorList = coordinators ? new SharedRead(() => coordinators.list()) : null;
  }

  /**
   * Dispatches, holds or refuses. Throws DispatchConflictError when the run is not in the expected state
   * and DispatchFailedError when the task could not be stored.
   */
  dispatch(p: DispatchParams): Promise<DispatchResult> {
    return this.locks.with(p.runId, async () => {
      // A new run (no earlier attempt) is looked for only when it cannot be recorded (below): creating its
      // record is the check that it does not exist yet, so the common case costs no reads.
      if (!p.fromQueue && !p.previous) return this.dispatchDirect(p);
      const already = await this.alreadyDispatched(p);
      if (already) return already;
      return p.fromQueue ? this.dispatchFromQueue(p) : this.dispatchDirect(p);
    });
  }

  /** Cancels a run waiting for a worker (aborted at once) or on one (the worker is told). */
  cancel(runId: string): Promise<CancelOutcome> {
    return this.locks.with(runId, async () => {
      const r = await this.d.runs.readStatus(runId);
      if (r.kind === 'missing') return { kind: 'not_found' };
      if (r.kind === 'corrupt') throw new RunUnreadableError(runId, r.path, r.error);
      const s = r.status;
      if (TERMINAL_RUN_STATES.includes(s.status)) return { kind: 'not_active', status: s };
      const task = await this.d.tasks.findByRun(runId);
      // Deleting the pending task is the step that wins against a worker claiming it at the same moment.
      if (
        task &&
        task.claim === null &&
        task.attempt === s.attempt &&
        (await this.d.tasks.delete(task.task_id))
      ) {
        const aborted = await this.abortWaiting(s);
        return { kind: 'aborted', status: aborted };
      }
      // A hold whose wait ran out, taken this moment by the process that fails it: no worker to tell.
      if (s.worker_id === null && isHoldTaker(task?.claim?.worker_id))
        return { kind: 'not_active', status: s };
      const onWorker = s.worker_id !== null || (task !== null && task.attempt === s.attempt);
      if (!onWorker) return { kind: 'not_active', status: s };
      await this.d.cancels.request(runId, this.d.clock.nowMs());
      this.d.logger.info('Asked a worker to cancel a run', {
        dag: s.dag_name,
        run_id: runId,
        worker_id: s.worker_id ?? task?.claim?.worker_id ?? null,
      });
      return { kind: 'requested', status: s };
    });
  }

  /** A second dispatch of a run whose task exists, or that a worker already took, changes nothing. */
  private async alreadyDispatched(p: DispatchParams): Promise<DispatchResult | null> {
    const task = await this.d.tasks.findByRun(p.runId);
    const r = await this.d.runs.readStatus(p.runId);
    if (r.kind !== 'ok') return null;
    const s = r.status;
    const expectedAttempt = p.fromQueue ? s.attempt : p.previous ? p.previous.attempt + 1 : 1;
    if (s.attempt !== expectedAttempt || TERMINAL_RUN_STATES.includes(s.status)) return null;
    if (task && task.attempt === s.attempt) {
      return {
        outcome: task.hold_until_ms !== null && task.claim === null ? 'held' : 'dispatched',
        status: s,
      };
    }
    return s.worker_id !== null ? { outcome: 'dispatched', status: s } : null;
  }

  private async decide(selector: Labels, fromQueue: boolean): Promise<DispatchDecision> {
    const [coordinators, workers] = await Promise.all([
      this.coordinatorList?.get() ?? null,
      this.workerList.get(),
    ]);
    const nowMs = this.d.clock.nowMs();
    return decideDispatch({
      selector,
      workers,
      nowMs,
      staleMs: this.d.staleMs,
      waitMs: this.d.waitMs,
      fromQueue,
      durableStore: this.d.tasks.durable,
      coordinatorAvailable: coordinators === null || coordinatorAvailability(coordinators, nowMs).available,
    });
  }

  private async dispatchDirect(p: DispatchParams): Promise<DispatchResult> {
    const decision = await this.decide(p.selector, false);
    if (decision.kind === 'refuse') {
      // A resent dispatch of a new run that went through is answered as before, whatever the workers now.
      const already = p.previous ? null : await this.alreadyDispatched(p);
      if (already) return already;
      // Nothing is recorded: the caller prints the refusal and no run is left behind.
      return {
        outcome: 'refused',
        reason: decision.reason,
        error: refusalError(decision.reason, p.selector),
        status: null,
      };
    }
    const nowMs = this.d.clock.nowMs();
    const nowIso = isoUtc(nowMs);
    const status: RunStatus = {
      ...newRunStatus({
        dag: p.dag,
        runId: p.runId,
        attempt: p.previous ? p.previous.attempt + 1 : 1,
        status: 'queued',
        triggerType: p.triggerType,
        scheduleTime: p.scheduleTime,
        params: p.params,
        nowIso,
        // A sub-DAG names its call step from the first record on, on every attempt.
        parent: p.parent ?? p.previous?.parent,
      }),
      worker_selector: p.selector,
      conditions: decision.kind === 'hold' ? waitingConditions(decision.reason, p.selector, nowIso) : [],
    };
    const autoRetries = p.previous ? nextAutoRetryCount(p.previous, p.autoRetry === true) : undefined;
    if (autoRetries !== undefined) status.auto_retry_count = autoRetries;
    // A retry or resume keeps the run's labels (runner/retryRun.ts does the same on this host).
    if (p.previous?.labels) status.labels = [...p.previous.labels];
    const already = await this.createRecord(p, status);
    if (already) return already;
    // The store marked the new queued run (or attempt) active as it created it.
    const hold = decision.kind === 'hold' ? { until: decision.holdUntilMs, waitMs: this.d.waitMs } : null;
    await this.enqueue(p, status, hold, { failRun: true });
    if (decision.kind === 'hold') return this.held(status, p.selector, decision);
    return { outcome: 'dispatched', status };
  }

  private held(
    status: RunStatus,
    selector: Labels,
    decision: Extract<DispatchDecision, { kind: 'hold' }>,
  ): DispatchResult {
    this.d.logger.info('Held a run until a matching worker arrives', {
      dag: status.dag_name,
      run_id: status.run_id,
      selector: formatSelector(selector),
      hold_until: isoUtc(decision.holdUntilMs),
      reason: decision.reason,
    });
    return { outcome: 'held', status };
  }

  /**
   * The run record comes first: a task always names a run that exists. A new run whose ID is taken by the
   * same run already dispatched answers that dispatch (returned); taken otherwise, DispatchConflictError.
   */
  private async createRecord(p: DispatchParams, status: RunStatus): Promise<DispatchResult | null> {
    if (p.previous) {
      if (!TERMINAL_RUN_STATES.includes(p.previous.status)) {
        throw new DispatchConflictError(
          p.runId,
          'not_terminal',
          `attempt ${p.previous.attempt} of run ${p.runId} is ${p.previous.status}; only an ended run can be retried`,
          p.previous,
        );
      }
      await this.d.runs.createAttempt(status);
      return null;
    }
    const created = await this.d.runs.createRun(status);
    if (!created.created) {
      const already = await this.alreadyDispatched(p);
      if (already) return already;
      const r = await this.d.runs.readStatus(p.runId);
      throw new DispatchConflictError(
        p.runId,
        'exists',
        `run ${p.runId} already exists`,
        r.kind === 'ok' ? r.status : null,
      );
    }
    return null;
  }

  /**
   * The scheduler's queue hands over a queued run: dispatched, left queued with the waiting conditions, or
   * (no coordinator alive) held like a direct dispatch, so it ends at its wait rather than waiting for ever.
   */
  private async dispatchFromQueue(p: DispatchParams): Promise<DispatchResult> {
    const s = await this.queuedRun(p);
    const decision = await this.decide(p.selector, true);
    if (decision.kind === 'refuse') {
      const nowIso = isoUtc(this.d.clock.nowMs());
      const conditions = waitingConditions(decision.reason, p.selector, nowIso);
      let status = s;
      if (this.conditionsStale(s.conditions, conditions)) {
        status = { ...s, conditions, worker_selector: p.selector };
        await this.d.runs.writeStatus(status, s);
      }
      return {
        outcome: 'refused',
        reason: decision.reason,
        error: refusalError(decision.reason, p.selector),
        status,
      };
    }
    const nowIso = isoUtc(this.d.clock.nowMs());
    const status: RunStatus = {
      ...s,
      conditions: decision.kind === 'hold' ? waitingConditions(decision.reason, p.selector, nowIso) : [],
      worker_selector: p.selector,
    };
    await this.d.runs.writeStatus(status, s);
    const hold = decision.kind === 'hold' ? { until: decision.holdUntilMs, waitMs: this.d.waitMs } : null;
    // The queue still holds the run: a task that could not be stored is tried again on its next pass.
    await this.enqueue(p, status, hold, { failRun: false });
    if (decision.kind === 'hold') return this.held(status, p.selector, decision);
    return { outcome: 'dispatched', status };
  }

  private async queuedRun(p: DispatchParams): Promise<RunStatus> {
    const r = await this.d.runs.readStatus(p.runId);
    if (r.kind === 'missing')
      throw new DispatchConflictError(p.runId, 'missing', `run ${p.runId} does not exist`);
    if (r.kind === 'corrupt') {
      throw new DispatchConflictError(
        p.runId,
        'unreadable',
        `the status of run ${p.runId} cannot be read: ${r.error}`,
      );
    }
    const s = r.status;
    if (s.status !== 'queued') {
      throw new DispatchConflictError(
        p.runId,
        'not_queued',
        `run ${p.runId} is no longer queued (${s.status})`,
        s,
      );
    }
    if (p.previous && p.previous.attempt !== s.attempt) {
      throw new DispatchConflictError(
        p.runId,
        'superseded',
        `attempt ${p.previous.attempt} of run ${p.runId} was superseded by attempt ${s.attempt}`,
        s,
      );
    }
    return s;
  }

  /** Whether the waiting conditions differ from `next` in substance, or were last checked long enough ago. */
  private conditionsStale(current: RunCondition[], next: RunCondition[]): boolean {
    if (current.length !== next.length) return true;
    for (let i = 0; i < next.length; i++) {
      const a = current[i];
      const b = next[i];
      if (a.type !== b.type || a.status !== b.status || a.reason !== b.reason || a.message !== b.message)
        return true;
      const checkedMs = Date.parse(a.checked_at);
      if (!Number.isFinite(checkedMs) || Date.parse(b.checked_at) - checkedMs >= CONDITIONS_REFRESH_MS)
        return true;
    }
    return false;
  }

  private async enqueue(
    p: DispatchParams,
    status: RunStatus,
    hold: { until: number; waitMs: number } | null,
    opts: { failRun: boolean },
  ): Promise<DispatchTask> {
    let task: DispatchTask;
    let announced: boolean;
    try {
      const fresh: NewDispatchTask = {
        run_id: status.run_id,
        dag_name: status.dag_name,
        attempt: status.attempt,
        operation: p.operation,
        trigger_type: p.triggerType,
        worker_selector: p.selector,
        dag: p.dag,
        params: p.params,
        schedule_time: p.scheduleTime,
        previous: p.previous,
        parent: p.parent,
        ...(p.stepRetry ? { step_retry: p.stepRetry } : {}),
        enqueued_at_ms: this.d.clock.nowMs(),
        hold_until_ms: hold?.until ?? null,
        wait_ms: hold?.waitMs ?? null,
      };
      const stored = await this.enqueueWithEvent(fresh);
      task = stored ?? (await this.d.tasks.enqueue(fresh));
      announced = stored !== null;
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      const error = `failed to hand off the run to a worker: ${why}`;
      const unrecorded = opts.failRun ? await this.failHandOff(status, error) : null;
      throw new DispatchFailedError(
        status.run_id,
        err,
        unrecorded === null ? error : `${error}; run ${status.run_id} ${unrecorded}`,
      );
    }
    this.d.onEnqueued?.(task);
    if (!announced) await this.announce(task);
    return task;
  }

  /**
   * Stores the task with its `run:dispatched` event in the same write, where the dispatch store appends to
   * this very event log; null when it cannot, or when the combined write failed in a way the event's part
   * may have caused (a table of the event log dropped or changed by hand): the caller then stores the task
   * and announces it apart, so that a fault of the event never fails the dispatch.
   */
  private async enqueueWithEvent(fresh: NewDispatchTask): Promise<DispatchTask | null> {
    if (this.d.events === undefined || this.d.tasks.eventsInEnqueue !== this.d.events) return null;
    try {
      return await this.d.tasks.enqueue(fresh, {
        event: { type: DISPATCHED_EVENT, data: dispatchedEventData(fresh) },
      });
    } catch (err) {
      if (!mayBeTheEventsFault(err)) throw err;
      this.d.logger.warn('Could not store a dispatch task with its event; storing them apart', {
        run_id: fresh.run_id,
        error: err instanceof Error ? err.message : String(err),
      });
      return null;
    }
  }

  /** Appends `run:dispatched` for a stored task; a failure is logged, never thrown (the task is stored). */
  private async announce(task: DispatchTask): Promise<void> {
    if (!this.d.events) return;
    try {
      await this.d.events.append(DISPATCHED_EVENT, dispatchedEventData(task));
    } catch (err) {
      this.d.logger.warn('Could not record an event; the operation itself was done', {
        type: DISPATCHED_EVENT,
        run_id: task.run_id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Ends the run failed with `error`. Null once that is recorded; else what becomes of the run, for its
   * caller: told that the hand-off failed, it must not find the run running later, nor start it twice.
   */
  private async failHandOff(status: RunStatus, error: string): Promise<string | null> {
    let outcome: string | null = null;
    try {
      await this.d.runs.writeStatus(endedStatus(status, 'failed', error, isoUtc(this.d.clock.nowMs())));
      // A marker left on the failed run is cleared by the dead-run check.
      await this.d.runs.unmarkActive(status.run_id).catch(() => undefined);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      // The run stays queued with no task or queue item. The empty note (it needs no data block) tells the
      // active scheduler's dead-run check that it ended, so that it fails the run rather than queue it
      // again; without it, the dead-run check puts the run back in its queue, and it runs after all.
      const noted = await this.d.runs
        .recordUnwrittenFinalStatus(status.run_id, status.attempt, {
          state: 'failed',
          error_code: errorCode(err) ?? 'UNKNOWN',
        })
        .then(
          () => true,
          () => false,
        );
      this.d.logger.error('Failed to record a failed hand-off', { run_id: status.run_id, error: why, noted });
      outcome = noted
        ? `could not be marked failed either (${why}); the active scheduler marks it failed`
        : `could not be marked failed either (${why}), so it stays queued and the active scheduler queues it again`;
    }
    this.d.logger.error('Failed to hand off a run to a worker', { run_id: status.run_id, error });
    return outcome;
  }

  private async abortWaiting(s: RunStatus): Promise<RunStatus> {
    const aborted = endedStatus(s, 'aborted', CANCELLED_BEFORE_WORKER, isoUtc(this.d.clock.nowMs()));
    await this.d.runs.writeStatus(aborted);
    await this.d.runs.unmarkActive(s.run_id);
    await this.d.cancels.clear(s.run_id);
    this.d.logger.info('Cancelled a run that was waiting for a worker', {
      dag: s.dag_name,
      run_id: s.run_id,
    });
    return aborted;
  }
}

/** A read that callers arriving while it is under way share instead of each making their own. */
class SharedRead<T> {
  private pending: Promise<T> | null = null;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    this.pending ??= this.read().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }
}
