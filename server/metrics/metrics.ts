// The web server's Prometheus metrics (one prom-client registry), computed at scrape time from the shared
// data directory, so every `dagu server` reports the same numbers.

import { Gauge, Registry } from 'prom-client';
import type { Config } from '../config/types';
import type { Clock, Logger } from '../core/ports';
import type { DispatchStore, WorkerRegistry } from '../store/dispatchTypes';
import type { EventFeed } from '../store/eventFeed';
import { isLive, type InstanceStore } from '../store/instanceRegistry';
import type { SuspendFlags } from '../store/suspendFlags';
import type { QueueStore, RunStore } from '../store/types';
import { registerDistributedMetrics } from './distributedMetrics';
import { registerRunMetrics } from './runMetrics';
import { RunTotals } from './runTotals';
import { registerRunTotalsMetrics } from './runTotalsMetrics';
import { ScheduleIntervals } from './scheduleIntervals';

export interface Metrics {
  registry: Registry;
}

/** Stores and clock the metrics read: the web server's (server/api/services.ts). */
export interface MetricsSources {
  clock: Clock;
  workers: Pick<WorkerRegistry, 'list'>;
  tasks: Pick<DispatchStore, 'pendingSummaries'>;
  queue: Pick<QueueStore, 'queues' | 'list'>;
  runs: Pick<RunStore, 'listActive'>;
  instances: Pick<InstanceStore, 'list'>;
  /** Suspended DAGs have no expected interval. */
  suspendFlags: Pick<SuspendFlags, 'names'>;
  /** A new reader of the event log, used when the backend is not the data directory's files. */
  eventFeed?: () => EventFeed;
  logger: Logger;
}

export function createMetrics(config: Config, sources: MetricsSources): Metrics {
  const registry = new Registry();
  const { clock, instances, tasks } = sources;
  const { lock_stale_threshold_ms: T, lock_retry_interval_ms: R } = config.scheduler;
  new Gauge({
    name: 'dagu_scheduler_instances',
    help: 'Scheduler instances sharing this data directory, by status (active or standby)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const now = clock.nowMs();
      // An instance refreshes its record every R; one silent for longer than the takeover bound is gone.
      const live = (await instances.list()).filter((r) => isLive(r, now, T + 2 * R));
      this.reset();
      this.set({ status: 'active' }, live.filter((r) => r.role === 'active').length);
      this.set({ status: 'standby' }, live.filter((r) => r.role === 'standby').length);
    },
  });
  registerDistributedMetrics(registry, {
    workers: sources.workers,
    tasks,
    clock,
    staleMs: config.coordinator.worker_stale_threshold_ms,
  });
  registerRunMetrics(registry, {
    queue: sources.queue,
    runs: sources.runs,
    tasks,
    configuredQueues: config.queues.config.map((q) => q.name),
  });
  registerRunTotalsMetrics(registry, {
    totals: new RunTotals({
      dataDir: config.paths.data_dir,
      clock,
      logger: sources.logger,
      feed: config.storage.backend === 'file' ? undefined : sources.eventFeed,
    }),
    schedules: new ScheduleIntervals(config.paths.dags_dir, sources.suspendFlags, clock),
  });
  return { registry };
}
