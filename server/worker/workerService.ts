// `dagu worker`: registers with the coordinator through its heartbeats, long-polls for tasks while it has
// free slots, runs each task it gets, stops the runs the coordinator cancels, and drains on shutdown, then
// tells the coordinator it is leaving so its record leaves the worker list.

import { hostname } from 'node:os';
import type { Config } from '../config/types';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import { SECOND } from '../core/units';
import { errorText } from '../runner/statusReporter';
import type { DispatchTask } from '../store/dispatchTypes';
import { CoordinatorError, CoordinatorUnreachableError, type CoordinatorApi } from './coordinatorClient';
import { retryBackoffMs, sleep } from './retryBackoff';
import type { TaskContext, TaskOutcome } from './taskExecutor';

/** Runs one claimed task to its end (taskExecutor's executeTask, or a fake in tests). */
export type ExecuteTaskFn = (task: DispatchTask, ctx: TaskContext) => Promise<TaskOutcome>;

export interface WorkerServiceDeps {
  config: Config;
  client: Pick<CoordinatorApi, 'url' | 'heartbeat' | 'leave' | 'poll'>;
  clock: Clock;
  timers: Timers;
  /** Carries `component: 'worker'`. */
  logger: Logger;
  executeTask: ExecuteTaskFn;
  /** Defaults: this host and process. */
  host?: string;
  pid?: number;
  random?: () => number;
}

/** Life-cycle of the service, as the logs and tests name it. */
export type WorkerState = 'idle' | 'running' | 'stopping' | 'stopped';

/** How long one poll may be held open by the coordinator. */
export const POLL_WAIT_MS = 20 * SECOND;
const RETRY_BASE_MS = SECOND;
const RETRY_MAX_MS = 15 * SECOND;
/** An empty poll answered faster than this means the coordinator does not hold polls: pace them. */
const MIN_EMPTY_POLL_MS = 250;
/** Runs get the kill grace plus this to report their end on shutdown. */
const DRAIN_EXTRA_MS = 5 * SECOND;
/** The last heartbeat and the leave together hold up a stopping worker at most this long. */
export const LEAVE_TIMEOUT_MS = 2 * SECOND;

interface RunningTask {
  task: DispatchTask;
  controller: AbortController;
  /** Acked: the coordinator knows the run as this worker's, so heartbeats list it. */
  accepted: boolean;
  done: Promise<void>;
}

export class WorkerService {
  readonly id: string;
  private readonly timers: Timers;
  private readonly host: string;
  private readonly pid: number;
  private readonly tasks = new Map<string, RunningTask>();
  private readonly stopSignal = new AbortController();
  private stateNow: WorkerState = 'idle';
  private registered = false;
  private heartbeatFailures = 0;
  private heartbeatTimer: TimerHandle | null = null;
  private heartbeatInFlight: Promise<void> | null = null;
  private heartbeatsStopped = false;
  private pollAbort: AbortController | null = null;
  private pollLoop: Promise<void> | null = null;
  private wakers: Array<() => void> = [];
  private stopping: Promise<void> | null = null;

  constructor(private readonly deps: WorkerServiceDeps) {
    this.timers = deps.timers;
    this.host = deps.host ?? hostname();
    this.pid = deps.pid ?? process.pid;
    this.id = deps.config.worker.id ?? `${this.host}-${this.pid}`;
  }

  get state(): WorkerState {
    return this.stateNow;
  }

  /** Runs this worker executes now, acked or not. */
  get activeRuns(): number {
    return this.tasks.size;
  }

  /** Starts heartbeating; polling starts once the first heartbeat registered the worker. */
  start(): void {
    if (this.stateNow !== 'idle') return;
    this.stateNow = 'running';
    this.heartbeatInFlight = this.beat();
  }

  /**
   * Stops polling, aborts the running runs (they report `aborted`), waits for them up to the kill grace plus
   * 5 s, then sends a last heartbeat listing no runs and tells the coordinator it is leaving (both best
   * effort, within LEAVE_TIMEOUT_MS).
   */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private async drain(): Promise<void> {
    const log = this.deps.logger;
    this.stateNow = 'stopping';
    this.stopSignal.abort();
    this.pollAbort?.abort();
    this.wake();
    const running = [...this.tasks.values()];
    if (running.length > 0) log.info('Stopping the runs of this worker', { count: running.length });
    for (const t of running) t.controller.abort('SIGTERM');
    // Heartbeats go on meanwhile: a worker that went silent would have its runs failed under it.
    const waitMs = this.deps.config.run.kill_grace_ms + DRAIN_EXTRA_MS;
    const gaveUp = await Promise.race([
      Promise.allSettled(running.map((t) => t.done)).then(() => false),
      sleep(this.timers, waitMs).then(() => true),
    ]);
    if (gaveUp) log.warn('Runs did not end in time; stopping anyway', { running: this.runningList() });

    this.heartbeatsStopped = true;
    if (this.heartbeatTimer) this.timers.clearTimeout(this.heartbeatTimer);
    await this.pollLoop;
    const over = new AbortController();
    const answered = await Promise.race([
      this.farewell(over.signal).then(() => true),
      sleep(this.timers, LEAVE_TIMEOUT_MS, over.signal).then(() => false),
    ]);
    over.abort(); // ends the wait, or tells the farewell still under way that nobody listens any more
    if (!answered) {
      log.warn('The coordinator did not answer the leave in time; stopping anyway', {
        worker_id: this.id,
        timeout: `${LEAVE_TIMEOUT_MS / SECOND}s`,
      });
    }
    this.stateNow = 'stopped';
    log.info('Worker stopped', { worker_id: this.id });
  }

  /**
   * The last heartbeat (listing no runs), then the leave: the coordinator removes this worker's record
   * unless runs are still its own. A coordinator that cannot be reached is not asked twice; once `over`
   * aborted (the stop went on without it) nothing more is sent or logged. Never rejects.
   */
  private async farewell(over: AbortSignal): Promise<void> {
    const log = this.deps.logger;
    const client = this.deps.client;
    // Inside the deadline: a heartbeat in flight to a coordinator that does not answer waits its full timeout.
    await this.heartbeatInFlight;
    if (over.aborted) return;
    try {
      try {
        await client.heartbeat({ ...this.heartbeatBody(), running: [] }, LEAVE_TIMEOUT_MS);
      } catch (err) {
        if (over.aborted) return;
        log.warn('Last heartbeat failed', { error: errorText(err) });
        if (err instanceof CoordinatorUnreachableError) return;
      }
      if (over.aborted) return;
      const reply = await client.leave({ worker_id: this.id }, LEAVE_TIMEOUT_MS);
      if (!reply.removed && reply.run_ids.length > 0)
        log.info('The coordinator keeps this worker listed until its runs are settled', {
          worker_id: this.id,
          run_ids: reply.run_ids,
        });
    } catch (err) {
      if (over.aborted) return;
      log.warn('Could not tell the coordinator this worker is leaving', { error: errorText(err) });
    }
  }

  private heartbeatBody() {
    const w = this.deps.config.worker;
    return {
      worker_id: this.id,
      labels: w.labels,
      max_active_runs: w.max_active_runs,
      running: this.runningList(),
      host: this.host,
      pid: this.pid,
    };
  }

  private runningList(): Array<{ run_id: string; attempt: number }> {
    return [...this.tasks.values()]
      .filter((t) => t.accepted)
      .map((t) => ({ run_id: t.task.run_id, attempt: t.task.attempt }));
  }

  private async beat(): Promise<void> {
    const log = this.deps.logger;
    let delayMs = this.deps.config.worker.heartbeat_interval_ms;
    try {
      const reply = await this.deps.client.heartbeat(this.heartbeatBody());
      if (!this.registered) {
        this.registered = true;
        const w = this.deps.config.worker;
        log.info('Registered with the coordinator', {
          worker_id: this.id,
          labels: w.labels,
          max_active_runs: w.max_active_runs,
          url: this.deps.client.url,
        });
        this.pollLoop = this.poll();
      } else if (this.heartbeatFailures > 0) {
        log.info('Coordinator reachable again', { worker_id: this.id });
      }
      this.heartbeatFailures = 0;
      for (const runId of reply.cancel) this.cancelRun(runId);
    } catch (err) {
      this.heartbeatFailures += 1;
      // Backing off is for a coordinator that does not answer. One that answers with an error is up but
      // could not take the heartbeat (its store is down): it remembers heartbeats it heard and could not
      // record, and the heartbeat is what keeps this worker's runs alive, so keep the usual pace; backing
      // off past its stale threshold made the worker look silent once the store was back.
      if (!(err instanceof CoordinatorError))
        delayMs = retryBackoffMs(this.heartbeatFailures, RETRY_BASE_MS, RETRY_MAX_MS, this.deps.random);
      if (this.heartbeatFailures === 1) {
        const fields = { worker_id: this.id, url: this.deps.client.url, error: errorText(err) };
        if (err instanceof CoordinatorUnreachableError) log.warn('Coordinator unreachable; retrying', fields);
        else log.error('Coordinator refused the heartbeat; retrying', fields);
      }
    }
    if (this.heartbeatsStopped) return;
    this.heartbeatTimer = this.timers.setTimeout(() => {
      this.heartbeatInFlight = this.beat();
    }, delayMs);
  }

  private cancelRun(runId: string): void {
    const t = this.tasks.get(runId);
    if (!t || t.controller.signal.aborted) return;
    this.deps.logger.info('Stopping a run the coordinator cancelled', { run_id: runId });
    t.controller.abort('SIGTERM');
  }

  /** One long poll at a time, and only while a slot is free. */
  private async poll(): Promise<void> {
    const log = this.deps.logger;
    const w = this.deps.config.worker;
    let failures = 0;
    while (!this.stopSignal.signal.aborted) {
      if (this.tasks.size >= w.max_active_runs) {
        await this.slotFreed();
        continue;
      }
      this.pollAbort = new AbortController();
      const startedMs = this.deps.clock.monoMs();
      let task: DispatchTask | null;
      try {
        task = await this.deps.client.poll(
          { worker_id: this.id, labels: w.labels, wait_ms: POLL_WAIT_MS },
          this.pollAbort.signal,
        );
        failures = 0;
      } catch (err) {
        if (this.stopSignal.signal.aborted) break;
        failures += 1;
        // The heartbeat loop reports an unreachable coordinator; other refusals are the poll's own.
        if (failures === 1 && !(err instanceof CoordinatorUnreachableError))
          log.warn('Polling for tasks failed; retrying', { error: errorText(err) });
        await sleep(
          this.timers,
          retryBackoffMs(failures, RETRY_BASE_MS, RETRY_MAX_MS, this.deps.random),
          this.stopSignal.signal,
        );
        continue;
      }
      if (task === null) {
        if (this.deps.clock.monoMs() - startedMs < MIN_EMPTY_POLL_MS)
          await sleep(this.timers, MIN_EMPTY_POLL_MS, this.stopSignal.signal);
        continue;
      }
      if (this.stopSignal.signal.aborted) {
        // Not acked: the claim goes back to pending after the reservation TTL and another worker takes it.
        log.info('Left a task claimed during shutdown to another worker', { run_id: task.run_id });
        break;
      }
      this.startTask(task);
    }
  }

  private startTask(task: DispatchTask): void {
    const log = this.deps.logger;
    if (this.tasks.has(task.run_id)) {
      log.warn('Got a task for a run this worker already runs; ignoring it', { run_id: task.run_id });
      return;
    }
    const controller = new AbortController();
    const entry: RunningTask = { task, controller, accepted: false, done: Promise.resolve() };
    this.tasks.set(task.run_id, entry);
    entry.done = this.deps
      .executeTask(task, {
        workerId: this.id,
        signal: controller.signal,
        onAccepted: () => {
          entry.accepted = true;
        },
      })
      .then(
        (outcome) => {
          if (outcome.kind === 'finished')
            log.info('Task finished', {
              run_id: task.run_id,
              state: outcome.status.status,
              delivery: outcome.delivery,
            });
        },
        (err) => log.error('Task failed on this worker', { run_id: task.run_id, error: errorText(err) }),
      )
      .finally(() => {
        this.tasks.delete(task.run_id);
        this.wake();
      });
  }

  private slotFreed(): Promise<void> {
    return new Promise((resolve) => this.wakers.push(resolve));
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  }
}
