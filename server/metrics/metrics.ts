// The web server's Prometheus metrics (one prom-client registry), computed at scrape time from the shared
// data directory, so every `dagu server` reports the same numbers.

import { Gauge, Registry } from 'prom-client';
import type { Config } from '../config/types';
import { InstanceRegistry, isLive } from '../store/instanceRegistry';

export interface Metrics {
  registry: Registry;
}

export function createMetrics(config: Config): Metrics {
  const registry = new Registry();
  const instances = new InstanceRegistry(config.paths.data_dir);
  const { lock_stale_threshold_ms: T, lock_retry_interval_ms: R } = config.scheduler;
  new Gauge({
    name: 'dagu_scheduler_instances',
    help: 'Scheduler instances sharing this data directory, by status (active or standby)',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      const now = Date.now();
      // An instance refreshes its record every R; one silent for longer than the takeover bound is gone.
      const live = (await instances.list()).filter((r) => isLive(r, now, T + 2 * R));
      this.reset();
      this.set({ status: 'active' }, live.filter((r) => r.role === 'active').length);
      this.set({ status: 'standby' }, live.filter((r) => r.role === 'standby').length);
    },
  });
  return { registry };
}
