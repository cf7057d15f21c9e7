// One `dagu scheduler` instance: competes for the lock, serves /health in every role, publishes itself in the
// instance registry, records role changes as events, and runs the scheduling loops only while active.

import type { Config } from '../config/types';
import { formatDuration } from '../core/duration';
import type { LockStorage } from '../core/lease/types';
import type { Clock, Logger, Timers, TimerHandle } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import { forgetDeadPredecessors, type InstanceRecord, type InstanceStore } from '../store/instanceRegistry';
import type { SlotWakeups, Wakeups } from '../store/controlPlane';
import { parseRunHint } from '../store/runHint';
import type { DagSpecCache } from '../store/dagSpecCache';
import type { EventLog, QueueStore, RunStore } from '../store/types';
import type { HealthServer } from './healthServer';
import type { Launcher } from './launcher';
import { LeaseKeeper, type RoleChange } from './leaseKeeper';
import { Scheduler, type SchedulerDeps, type SchedulerDistributedFactory } from './scheduler';

export interface SchedulerServiceDeps {
  config: Config;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
  launch: Launcher;
  lock: LockStorage;
  registry: InstanceStore;
  identity: { instance_id: string; host: string; pid: number };
  newToken: () => string;
  /** Hand-over of queued runs to the workers (see SchedulerDeps.distributed); none: they stay queued. */
  distributed?: SchedulerDistributedFactory;
  /** Called once when the instance stops being active by losing the lock; the process must exit non-zero. */
  onLost: (reason: string) => void;
  /** Whether a process of this host is still running; lets a restarted instance drop its dead predecessor's record. */
  isProcessAlive?: (pid: number) => boolean;
  /** Where the DAGs the scheduler parses are kept for its run processes (see DagCatalogCache). */
  dagSpecCache?: DagSpecCache;
  /** Asks a run to stop (`schedule: {stop, restart}`). */
  stopRun?: (runId: string) => Promise<void>;
  /** The suspend flags (default: the files under `paths.suspend_flags_dir`). */
  suspended?: SchedulerDeps['suspended'];
  /** Where the tick state is kept (default: the file under the data directory). */
  stateStore?: SchedulerDeps['stateStore'];
  /** What names this installation's slots in their run IDs (default: the data directory). */
  slotNamespace?: string;
  /** Wake-ups from other hosts (a database's NOTIFY); without them the queue is polled alone. */
  wakeups?: Wakeups | null;
  /** Where there are no wake-ups (files): this host's changes of the active runs and the queues. */
  slotWakeups?: SlotWakeups | null;
}

/** Event types of role changes, read by the console's failover history. */
export const ROLE_EVENTS = {
  acquired: 'scheduler.lock.acquired',
  released: 'scheduler.lock.released',
  lost: 'scheduler.lock.lost',
} as const;

export class SchedulerService {
  private readonly keeper: LeaseKeeper;
  private readonly scheduler: Scheduler;
  private health: HealthServer | null = null;
  private registryTimer: TimerHandle | null = null;
  private publishing = false;
  private sinceMs: number;
  private stopped = false;
  private schedulerStarted: Promise<void> | null = null;
  private readonly eventWrites = new Set<Promise<void>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly d: SchedulerServiceDeps) {
    this.sinceMs = d.clock.nowMs();
    this.keeper = new LeaseKeeper({
      storage: d.lock,
      clock: d.clock,
      timers: d.timers,
      logger: d.logger,
      staleThresholdMs: d.config.scheduler.lock_stale_threshold_ms,
      retryIntervalMs: d.config.scheduler.lock_retry_interval_ms,
      identity: d.identity,
      newToken: d.newToken,
      dataDir: d.config.paths.data_dir,
      onRoleChange: (c) => this.onRoleChange(c),
    });
    this.scheduler = new Scheduler({
      config: d.config,
      instanceId: d.identity.instance_id,
      clock: d.clock,
      timers: d.timers,
      logger: d.logger,
      runs: d.runs,
      queue: d.queue,
      events: d.events,
      launch: d.launch,
      canDispatch: () => this.keeper.canDispatch(),
      distributed: d.distributed,
      dagSpecCache: d.dagSpecCache,
      stopRun: d.stopRun,
      suspended: d.suspended,
      stateStore: d.stateStore,
      slotNamespace: d.slotNamespace,
      // The backend's wake-ups announce each change of a run's state, naming the run.
      runWakeups: Boolean(d.wakeups),
      slotWakeups: d.slotWakeups ? () => d.slotWakeups!.live() : undefined,
    });
  }

  role() {
    return this.keeper.role();
  }

  /** The lock this instance holds while it may dispatch (token and epoch), for fenced writes; else null. */
  holding(): { holder: string; epoch: number } | null {
    return this.keeper.holding();
  }

  healthPort(): number | null {
    return this.health?.port ?? null;
  }

  /** Serves /health, then makes the first attempt at the lock (a storage error there rejects). */
  async start(): Promise<void> {
    const port = this.d.config.scheduler.port;
    if (port !== 0) {
      // Loaded only when served: node:http is about 0.6 MB of a scheduler's memory.
      const { startHealthServer } = await import('./healthServer');
      this.health = await startHealthServer({
        host: this.d.config.host,
        port,
        role: () => this.keeper.role(),
        logger: this.d.logger,
      });
    }
    try {
      await this.keeper.start();
    } catch (err) {
      await this.health?.close();
      throw err;
    }
    void this.publish();
    void this.forgetPredecessors();
    this.armRegistry();
    // Only the active instance's queue consumer runs passes; a standby's loop is not started, so a wake-up
    // there does nothing.
    const wakeups = this.d.wakeups;
    if (wakeups) {
      const off = [
        wakeups.subscribe('queue', () => this.scheduler.wakeQueue()),
        wakeups.subscribe('runs', (about) =>
          this.scheduler.runsChanged(about === null ? null : parseRunHint(about)),
        ),
      ];
      this.unsubscribe = () => off.forEach((f) => f());
    } else if (this.d.slotWakeups) {
      this.unsubscribe = this.d.slotWakeups.subscribe((change) => this.scheduler.slotChanged(change));
    }
  }

  private async forgetPredecessors(): Promise<void> {
    if (!this.d.isProcessAlive) return;
    const { instance_id: id, host, pid } = this.d.identity;
    try {
      const gone = await forgetDeadPredecessors(this.d.registry, { id, host, pid }, this.d.isProcessAlive);
      if (gone.length > 0) {
        this.d.logger.info('Removed the records of earlier instances on this host that are gone', {
          instances: gone,
        });
      }
    } catch (err) {
      this.d.logger.warn('Could not tidy the instance registry', { error: (err as Error).message });
    }
  }

  private armRegistry() {
    if (this.stopped) return;
    this.registryTimer = this.d.timers.setTimeout(() => {
      void this.publish().finally(() => this.armRegistry());
    }, this.d.config.scheduler.lock_retry_interval_ms);
  }

  /** Rewrites this instance's registry record; skipped while a previous write is still pending (stall). */
  private async publish(): Promise<void> {
    if (this.publishing || this.stopped) return;
    this.publishing = true;
    try {
      const seen = this.keeper.lastSeen().record;
      const record: InstanceRecord = {
        version: 1,
        id: this.d.identity.instance_id,
        host: this.d.identity.host,
        pid: this.d.identity.pid,
        role: this.keeper.role(),
        since: isoUtc(this.sinceMs),
        port: this.health?.port ?? 0,
        lock_holder: seen && !seen.released ? seen.instance_id : null,
        last_renewal_seen: seen ? seen.renewed_at : null,
        updated_at: isoUtc(this.d.clock.nowMs()),
      };
      await this.d.registry.publish(record);
      if (record.role === 'active') {
        const stale = Math.max(3 * this.d.config.scheduler.lock_stale_threshold_ms, 60_000);
        await this.d.registry.prune(this.d.clock.nowMs(), stale);
      }
    } catch (err) {
      this.d.logger.warn('Could not publish the instance record', { error: (err as Error).message });
    } finally {
      this.publishing = false;
    }
  }

  private onRoleChange(c: RoleChange) {
    this.sinceMs = this.d.clock.nowMs();
    const base = {
      instance: this.d.identity.instance_id,
      host: this.d.identity.host,
      pid: this.d.identity.pid,
    };
    if (c.kind === 'acquired') {
      this.appendEvent(ROLE_EVENTS.acquired, {
        ...base,
        how: c.how,
        epoch: c.record.epoch,
        previous_instance: c.previous?.instance_id ?? null,
        previous_host: c.previous?.host ?? null,
        gap_ms: c.gap_ms,
        observed_gap_ms: c.observed_gap_ms,
      });
      const recoveryWindowMs = c.how === 'stale' ? this.d.config.scheduler.failover_recovery_window_ms : 0;
      this.schedulerStarted = this.scheduler.start({ recoveryWindowMs }).catch((err: Error) => {
        // Holding the lock without scheduling would block every standby: give it up by exiting.
        this.scheduler.halt();
        this.d.logger.error(
          `Stopped being the active scheduler: could not start scheduling (${err.message}); exiting`,
          {
            reason: err.message,
          },
        );
        this.d.onLost(`could not start scheduling: ${err.message}`);
      });
      void this.publish();
    } else if (c.kind === 'lost') {
      // No file call may stand between losing the lock and stopping: loops halt synchronously.
      this.scheduler.halt();
      this.d.logger.error(`Stopped being the active scheduler: ${c.reason}; exiting`, { reason: c.reason });
      this.appendEvent(ROLE_EVENTS.lost, { ...base, reason: c.reason });
      this.d.onLost(c.reason);
    } else {
      this.appendEvent(ROLE_EVENTS.released, { ...base, epoch: c.record.epoch });
    }
  }

  private appendEvent(type: string, data: Record<string, unknown>) {
    const write = this.d.events
      .append(type, data)
      .then(() => undefined)
      .catch((err: Error) => {
        this.d.logger.warn('Could not record a role change event', { type, error: err.message });
      })
      .finally(() => this.eventWrites.delete(write));
    this.eventWrites.add(write);
  }

  /** Waits (at most `timeoutMs`, storage may hang) for role-change events still being written. */
  async flushEvents(timeoutMs: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.eventWrites]), timeout]);
    clearTimeout(timer);
  }

  /** Clean stop: loops stop, propagating runs get `signal`, the lock is released, the record removed. */
  async stop(signal?: NodeJS.Signals): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.registryTimer) this.d.timers.clearTimeout(this.registryTimer);
    await this.schedulerStarted;
    await this.scheduler.stop(signal);
    await this.keeper.stop();
    await this.d.registry.remove(this.d.identity.instance_id).catch(() => undefined);
    await this.health?.close();
  }
}

/** A one-line description of the failover settings in force, for the start-up log. */
export function describeTiming(config: Config, renewalMs: number): Record<string, string> {
  const T = config.scheduler.lock_stale_threshold_ms;
  const R = config.scheduler.lock_retry_interval_ms;
  return {
    lock_stale_threshold: formatDuration(T),
    lock_retry_interval: formatDuration(R),
    renewal_interval: formatDuration(renewalMs),
    takeover_bound: formatDuration(T + 2 * R),
  };
}
