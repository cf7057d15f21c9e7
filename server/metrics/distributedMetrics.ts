// Metrics for a controller that starts workers on demand: workers by health, and per selector the held
// dispatches (runs waiting for a matching worker) and how long the oldest has waited. Computed at scrape
// time from the worker registry and the dispatch store.

import { Gauge, type Registry } from 'prom-client';
import { formatSelector, workerHealth } from '../core/distributed';
import type { Clock } from '../core/ports';
import type { DispatchStore, PendingSummary, WorkerRecord, WorkerRegistry } from '../store/dispatchTypes';

export interface DistributedMetricsDeps {
  workers: Pick<WorkerRegistry, 'list'>;
  tasks: Pick<DispatchStore, 'pendingSummaries'>;
  clock: Clock;
  /** `coordinator.worker_stale_threshold`: a worker heard from longer ago is unhealthy. */
  staleMs: number;
}

/** Registers `dagu_workers`, `dagu_held_dispatches` and `dagu_held_dispatch_oldest_age_seconds`. */
export function registerDistributedMetrics(registry: Registry, d: DistributedMetricsDeps): void {
  // Both held-dispatch gauges are collected in the same scrape: one listing (of the index) serves them.
  let pending: Promise<PendingSummary[]> | null = null;
  const heldTasks = () => {
    pending ??= d.tasks.pendingSummaries().finally(() => {
      pending = null;
    });
    return pending.then((tasks) => tasks.filter((t) => t.hold_until_ms !== null));
  };
  const bySelector = (tasks: PendingSummary[]) => {
    const groups = new Map<string, PendingSummary[]>();
    for (const t of tasks) {
      const key = formatSelector(t.worker_selector);
      groups.set(key, [...(groups.get(key) ?? []), t]);
    }
    return groups;
  };

  new Gauge({
    name: 'dagu_workers',
    help: 'Workers registered with the coordinator, by status (healthy: heard from within the stale threshold)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const now = d.clock.nowMs();
      const records: WorkerRecord[] = await d.workers.list();
      const healthy = records.filter((w) => workerHealth(w, now, d.staleMs) === 'healthy').length;
      this.reset();
      this.set({ status: 'healthy' }, healthy);
      this.set({ status: 'unhealthy' }, records.length - healthy);
    },
  });

  new Gauge({
    name: 'dagu_held_dispatches',
    help: 'Runs held for a worker that matches their selector (pending held dispatch tasks), by selector',
    labelNames: ['selector'],
    registers: [registry],
    async collect() {
      const groups = bySelector(await heldTasks());
      this.reset();
      for (const [selector, tasks] of groups) this.set({ selector }, tasks.length);
    },
  });

  new Gauge({
    name: 'dagu_held_dispatch_oldest_age_seconds',
    help: 'Seconds the oldest held dispatch of each selector has waited for a matching worker',
    labelNames: ['selector'],
    registers: [registry],
    async collect() {
      const now = d.clock.nowMs();
      const groups = bySelector(await heldTasks());
      this.reset();
      for (const [selector, tasks] of groups) {
        const oldest = Math.min(...tasks.map((t) => t.enqueued_at_ms));
        this.set({ selector }, Math.max(0, now - oldest) / 1000);
      }
    },
  });
}
