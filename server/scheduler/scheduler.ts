// The scheduler service: the tick loop, the queue consumer and the zombie reaper, wired around the stores.
// (Failover between several instances is added on top of `canDispatch`.) Queued runs of DAGs that go to
// workers are handed to the dispatcher the composition root gives it (server/cli/composeScheduler.ts); runs
// no worker took are ended here too while no coordinator is alive (holdExpiry.ts), on the reaper's beat.

import { isDistributed, nextAttemptDispatch } from '../core/dispatcherApi';
import type { Config } from '../config/types';
import type { DispatcherApi } from '../core/dispatcherApi';
import type { Clock, Logger, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import type { DispatchStore } from '../store/dispatchTypes';
import { withRunEvents } from '../store/runEvents';
import type { DagSpecCache } from '../store/dagSpecCache';
import { FileSuspendFlags } from '../store/fileSuspendFlags';
import type { SuspendFlags } from '../store/suspendFlags';
import type { EventLog, QueueStore, RunStore } from '../store/types';
import type { SlotChange } from '../store/controlPlane';
import type { RunHint } from '../store/runHint';
import { finalStatusBudgetMs } from '../runner/finalStatusBudget';
import { CronLoop } from './cronLoop';
import { DagCatalogCache } from './dagCatalogCache';
import { DagRetries } from './dagRetries';
import { HistoryRetention } from './historyRetention';
import type { HoldExpiry } from './holdExpiry';
import type { Launcher } from './launcher';
import { QueueProcessor } from './queueProcessor';
import { RecentLaunches } from './recentLaunches';
import { SchedulerStateFile, type SchedulerStateStore } from './schedulerState';
import { StopRestartSchedules } from './stopRestart';
import { ZombieReaper } from './zombieReaper';

export interface SchedulerDeps {
  config: Config;
  /** This scheduler instance, recorded on the runs it creates. */
  instanceId?: string;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The plain run store: the scheduler adds the run-events decorator itself (do not pass a decorated one). */
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
  launch: Launcher;
  canDispatch?: () => boolean;
  /**
   * Hand-over of queued runs to the workers, built over the scheduler's own run store (`runs` with its
   * run-events decorator) and fence; without it, queued runs of DAGs for the workers stay queued.
   */
  distributed?: SchedulerDistributedFactory;
  /** Where the DAGs the scheduler parses are kept for its run processes (see DagCatalogCache). */
  dagSpecCache?: DagSpecCache;
  /** The suspend flags; by default the files under `paths.suspend_flags_dir`. */
  suspended?: Pick<SuspendFlags, 'names'>;
  /** Asks a run to stop, for `schedule: {stop, restart}`; without it such slots are logged and skipped. */
  stopRun?: (runId: string) => Promise<void>;
  /** Where the tick state is kept; by default the file under the data directory. */
  stateStore?: SchedulerStateStore;
  /**
   * What names this installation's slots in their run IDs; by default the data directory. Every scheduler
   * of one installation must use the same (on a database: its installation ID), or a slot could run twice.
   */
  slotNamespace?: string;
  /** Runs' changes are announced to it (runsChanged): see QueueProcessorDeps.runWakeups. */
  runWakeups?: boolean;
  /** Whether this host's run ends and queue items are announced now: see QueueProcessorDeps.slotWakeups. */
  slotWakeups?: () => boolean;
}

/** Builds the distributed side over the run store the scheduler writes through and its `canDispatch`. */
export type SchedulerDistributedFactory = (
  runs: RunStore,
  canDispatch: () => boolean,
) => SchedulerDistributed;

/** What the queue and the reaper need of the distributed side. */
export interface SchedulerDistributed {
  dispatcher: DispatcherApi;
  tasks: Pick<DispatchStore, 'findByRun'>;
  /** Ends runs no worker took while no coordinator is alive; swept right after the zombie reaper. */
  holdExpiry?: Pick<HoldExpiry, 'sweep'>;
}

/** Delay of the first history retention sweep after the scheduler starts (at most the interval). */
const RETENTION_FIRST_SWEEP_MS = 30_000;

export class Scheduler {
  private readonly cron: CronLoop;
  private readonly queueProcessor: QueueProcessor;
  private readonly reaper: ZombieReaper;
  private readonly holdExpiry: Pick<HoldExpiry, 'sweep'> | null;
  private readonly retention: HistoryRetention;
  private readonly stopRestart: StopRestartSchedules;
  /** The zombie reaper, then the hold expiry, every `zombie_check_interval`. */
  private readonly reaperLoop: TimerLoop;
  private readonly retentionLoop: TimerLoop;
  /** DAG-level retry_policy: failed runs' next attempts, on the reaper's beat or sooner when one falls due. */
  private readonly retryLoop: TimerLoop;

  /** Run processes started for DAGs with signal_handling.enable_propagation, by run ID. */
  private readonly propagating = new Map<string, number>();

  constructor(private readonly d: SchedulerDeps) {
    const canDispatch = d.canDispatch ?? (() => true);
    const recent = new RecentLaunches(d.clock, d.config.run.heartbeat_stale_threshold_ms);
    const launch: Launcher = async (req) => {
      recent.begin(req.runId);
      try {
        const started = await d.launch(req);
        if (req.propagateSignals && started.pid !== undefined) this.propagating.set(req.runId, started.pid);
        return started;
      } finally {
        recent.end(req.runId);
      }
    };
    launch.prepare = d.launch.prepare;
    launch.close = d.launch.close;
    launch.burstSize = d.launch.burstSize;
    const catalog = new DagCatalogCache(d.config.paths.dags_dir, d.logger, d.dagSpecCache);
    const logger = d.logger;
    const suspended =
      d.suspended ??
      new FileSuspendFlags(d.config.paths.suspend_flags_dir, (r) =>
        logger.warn('Skipped a corrupt file', { ...r }),
      );
    // Every status the loops write (queued catch-ups, queue hand-overs, reaped runs) emits `dag.run.*`.
    const runs = withRunEvents(d.runs, d.events, { logger });
    const distributed = d.distributed?.(runs, canDispatch) ?? null;
    this.holdExpiry = distributed?.holdExpiry ?? null;
    this.cron = new CronLoop({
      slotNamespace: d.slotNamespace ?? d.config.paths.data_dir,
      instanceId: d.instanceId ?? 'local',
      clock: d.clock,
      timers: d.timers,
      logger,
      runs,
      queue: d.queue,
      catalog,
      suspended,
      stateFile: d.stateStore ?? new SchedulerStateFile(d.config.paths.data_dir, logger),
      launch,
      isDistributed: (dag) => isDistributed(dag, d.config.default_execution_mode),
      queuesEnabled: d.config.queues.enabled,
      canDispatch,
    });
    this.queueProcessor = new QueueProcessor({
      clock: d.clock,
      timers: d.timers,
      logger,
      runs,
      queue: d.queue,
      catalog,
      suspended,
      queues: d.config.queues.config,
      launch,
      canDispatch,
      executionMode: d.config.default_execution_mode,
      dispatcher: distributed?.dispatcher,
      tasks: distributed?.tasks,
      runWakeups: d.runWakeups,
      slotWakeups: d.slotWakeups,
    });
    this.reaper = new ZombieReaper({
      clock: d.clock,
      logger,
      runs,
      queue: d.queue,
      heartbeatStaleMs: d.config.run.heartbeat_stale_threshold_ms,
      finalStatusBudgetMs: finalStatusBudgetMs(d.config),
      slotRestartWindowMs: d.config.scheduler.failover_recovery_window_ms,
      removeAbandonedCreations: d.runs.removeAbandonedCreations?.bind(d.runs),
      canDispatch,
      tasks: distributed?.tasks,
      slotAdoptionDone: () => this.cron.slotAdoptionDone(),
      requeued: (runId) => this.queueProcessor.offerAgain(runId),
      // A slot's record is created before its process is started (the tick creates all of them first).
      launching: (runId) => recent.has(runId) || this.cron.isLaunchPending(runId),
    });
    // Deleting goes straight to the store: a removed run announces no state change.
    this.retention = new HistoryRetention({ runs: d.runs, catalog, clock: d.clock, logger, canDispatch });
    this.stopRestart = new StopRestartSchedules({
      catalog,
      runs,
      clock: d.clock,
      timers: d.timers,
      logger,
      canDispatch,
      stopRun:
        d.stopRun ?? (async () => Promise.reject(new Error('stopping runs is not wired in this process'))),
      startSlot: (dag, slotMs) => this.cron.dispatchSlot(dag, slotMs, new Map()),
    });
    const { zombie_check_interval_ms: reaperMs, history_retention_interval_ms: retentionMs } =
      d.config.scheduler;
    this.reaperLoop = new TimerLoop({
      timers: d.timers,
      pass: async () => {
        await this.reaper
          .sweep()
          .catch((err: Error) => this.d.logger.error('Zombie sweep failed', { error: err.message }));
        await this.holdExpiry
          ?.sweep()
          .catch((err: Error) => this.d.logger.error('Hold expiry sweep failed', { error: err.message }));
        return reaperMs;
      },
      onError: () => reaperMs,
    });
    const retries = new DagRetries({
      runs,
      dags: () => catalog.load(),
      suspended: () => suspended.names(),
      clock: d.clock,
      logger,
      windowMs: d.config.scheduler.retry_failure_window_ms,
      canDispatch,
      retry: async (dag, previous) => {
        if (isDistributed(dag, d.config.default_execution_mode)) {
          if (!distributed) throw new Error('its DAG runs on workers and no coordinator is configured');
          const r = await distributed.dispatcher.dispatch(nextAttemptDispatch(dag, previous, 'retry', true));
          if (r.outcome === 'refused') throw new Error(r.error);
          return;
        }
        const attempt = previous.attempt + 1;
        const started = await launch({
          operation: 'retry',
          dagName: dag.name,
          dagFile: dag.file,
          runId: previous.run_id,
          triggerType: 'retry',
          scheduleTime: previous.schedule_time,
          processLog: `${d.runs.logDir(dag.name, previous.run_id, attempt)}/process.log`,
          propagateSignals: dag.signal_handling.enable_propagation,
          stillAllowed: canDispatch,
        });
        if (started.fenced) throw new Error('this scheduler no longer holds the lock');
      },
    });
    this.retryLoop = new TimerLoop({
      timers: d.timers,
      pass: async () => {
        const next = await retries.scan();
        return next === null ? reaperMs : Math.max(50, Math.min(reaperMs, next));
      },
      onError: (err: unknown) => {
        this.d.logger.error('Retry scan failed', { error: (err as Error).message });
        return reaperMs;
      },
    });
    this.retentionLoop = new TimerLoop({
      timers: d.timers,
      pass: async () => {
        await this.retention.sweep();
        return retentionMs;
      },
      onError: (err) => {
        this.d.logger.error('History retention sweep failed', { error: (err as Error).message });
        return retentionMs;
      },
    });
  }

  /** Starts planning and consuming; `recoveryWindowMs` > 0 after a takeover from a failed instance. */
  async start(opts: { recoveryWindowMs?: number } = {}): Promise<void> {
    this.d.launch.prepare?.();
    await this.cron.start(opts);
    this.queueProcessor.start();
    this.stopRestart.start();
    this.reaperLoop.start(0);
    this.retryLoop.start(0);
    // The first sweep waits a little: a scheduler that just took over has slots and zombies to see to first.
    this.retentionLoop.start(
      Math.min(RETENTION_FIRST_SWEEP_MS, this.d.config.scheduler.history_retention_interval_ms),
    );
    this.d.logger.info('Scheduler started', {
      dags_dir: this.d.config.paths.dags_dir,
      data_dir: this.d.config.paths.data_dir,
    });
  }

  /**
   * Stops planning and consuming. Runs already started keep going in their own processes, except those of
   * DAGs with signal_handling.enable_propagation, which receive `signal` (if one is given).
   */
  /** A queue item was stored elsewhere: the queue consumer looks now instead of at its next poll. */
  wakeQueue(): void {
    this.queueProcessor.wake();
  }

  /**
   * A run (null: maybe any run) changed elsewhere: the queue consumer's watch of its start reads it now, or
   * takes the state the hint names.
   */
  runsChanged(hint: RunHint | null = null): void {
    this.queueProcessor.runsChanged(hint?.runId ?? null, hint ?? undefined);
  }

  /**
   * This host saw an active run's marker come or go, or a queue item stored, where nothing else announces
   * it (files): the queue consumer may look sooner than its resting poll.
   */
  slotChanged(change: SlotChange): void {
    this.queueProcessor.slotChanged(change);
  }

  async stop(signal?: NodeJS.Signals): Promise<void> {
    this.d.launch.close?.();
    if (signal) this.forward(signal);
    // A sweep in progress is not waited for: it only ends runs that are over anyway.
    void this.reaperLoop.stop();
    void this.retentionLoop.stop();
    void this.retryLoop.stop();
    await Promise.all([this.cron.stop(), this.queueProcessor.stop(), this.stopRestart.stop()]);
    this.d.logger.info('Scheduler stopped');
  }

  /** Synchronously halts every loop (no I/O); used when the lock is lost and the process is about to exit. */
  halt(): void {
    this.d.launch.close?.();
    void this.reaperLoop.stop();
    void this.retentionLoop.stop();
    void this.retryLoop.stop();
    void this.cron.stop();
    void this.queueProcessor.stop();
    void this.stopRestart.stop();
  }

  private forward(signal: NodeJS.Signals) {
    for (const [runId, pid] of this.propagating) {
      try {
        // The run process leads its own process group; it handles the signal by stopping its steps.
        process.kill(pid, signal);
        this.d.logger.info('Forwarded the signal to a run (signal_handling.enable_propagation)', {
          run_id: runId,
          pid,
          signal,
        });
      } catch {
        this.propagating.delete(runId); // already finished
      }
    }
  }
}
