// Queue depth per queue and the active runs by status, computed at scrape time from directory listings (the
// queues, the dispatch tasks and the active-run markers), never from the run history.

import { Gauge, type Registry } from 'prom-client';
import {
  countWaiting,
  waitingSnapshot,
  type WaitingSnapshot,
  type WaitingSources,
} from '../store/waitingSnapshot';

export interface RunMetricsDeps extends WaitingSources {
  /** Queues of `queues.config`: reported (as 0) even while empty, so their series do not come and go. */
  configuredQueues: string[];
}

/** Registers `dagu_queue_depth{queue}` and `dagu_runs{status}`. */
export function registerRunMetrics(registry: Registry, d: RunMetricsDeps): void {
  // Both gauges are collected in the same scrape: one snapshot serves them.
  let pending: Promise<WaitingSnapshot> | null = null;
  const snapshot = () => {
    pending ??= waitingSnapshot(d).finally(() => {
      pending = null;
    });
    return pending;
  };

  new Gauge({
    name: 'dagu_queue_depth',
    help: 'Runs waiting in each local queue (queue items, not yet started by the active scheduler)',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      const counts = countWaiting(await snapshot());
      this.reset();
      for (const name of d.configuredQueues) this.set({ queue: name }, 0);
      for (const [name, n] of counts.queuedByQueue) this.set({ queue: name }, n);
    },
  });

  new Gauge({
    name: 'dagu_runs',
    help:
      'Active runs by status: queued (in a local queue or waiting for a worker) and running. Finished runs ' +
      'are not counted: that would mean reading every run of the history at each scrape',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const counts = countWaiting(await snapshot());
      this.reset();
      this.set({ status: 'queued' }, counts.queued + counts.held + counts.dispatched);
      this.set({ status: 'running' }, counts.running);
    },
  });
}
