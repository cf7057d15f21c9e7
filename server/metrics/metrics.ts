// The web server's Prometheus metrics (one prom-client registry), computed at scrape time from the shared
// data directory, so every `dagu server` reports the same numbers.

import { Gauge, Registry } from 'prom-client';
import type { Config } from '../config/types';
import { systemClock } from '../core/clock';
import type { Clock } from '../core/ports';
import type { DispatchStore, WorkerRegistry } from '../store/dispatchTypes';
import { FileDispatchStore } from '../store/fileDispatchStore';
import { FileQueueStore } from '../store/fileQueueStore';
import { FileRunStore } from '../store/fileRunStore';
import { FileWorkerRegistry } from '../store/fileWorkerRegistry';
import { InstanceRegistry, isLive } from '../store/instanceRegistry';
import type { QueueStore, RunStore } from '../store/types';
import { registerDistributedMetrics } from './distributedMetrics';
import { registerRunMetrics } from './runMetrics';

export interface Metrics {
  registry: Registry;
}

/** Stores and clock the metrics read; by default the files under the configured data directory. */
export interface MetricsSources {
  clock?: Clock;
  workers?: Pick<WorkerRegistry, 'list'>;
  tasks?: Pick<DispatchStore, 'pendingSummaries'>;
  queue?: Pick<QueueStore, 'queues' | 'list'>;
  runs?: Pick<RunStore, 'listActive'>;
  instances?: Pick<InstanceRegistry, 'list'>;
}

export function createMetrics(config: Config, sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  const clock = sources.clock ?? systemClock;
  const dataDir = config.paths.data_dir;
  const instances = sources.instances ?? new InstanceRegistry(dataDir);
  const tasks = sources.tasks ?? new FileDispatchStore({ dataDir });
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
    workers: sources.workers ?? new FileWorkerRegistry({ dataDir }),
    tasks,
    clock,
    staleMs: config.coordinator.worker_stale_threshold_ms,
  });
  registerRunMetrics(registry, {
    queue: sources.queue ?? new FileQueueStore({ dataDir }),
    runs: sources.runs ?? new FileRunStore({ dataDir, logDir: config.paths.log_dir }),
    tasks,
    configuredQueues: config.queues.config.map((q) => q.name),
  });
  return { registry };
}
