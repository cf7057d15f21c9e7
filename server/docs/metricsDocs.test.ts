// docs/metrics.md has a row for every metric the server registers, written with the metric's labels.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { systemClock } from '../core/clock';
import { createMetrics } from '../metrics/metrics';
import { InstanceRegistry } from '../store/instanceRegistry';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { MemoryRunStore } from '../store/memoryRunStore';
import { MemorySuspendFlags } from '../store/memorySuspendFlags';
import { silentLogger } from '../core/ports';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = 'docs/metrics.md';
const page = readFileSync(path.join(ROOT, PAGE), 'utf8');
const home = mkdtempSync(path.join(tmpdir(), 'dagu-metrics-docs-'));

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** The metrics as the server registers them (nothing is scraped, so no file is read). */
function registeredMetrics(): Array<{ name: string; labels: string[] }> {
  const env = { DAGU_HOME: home } as unknown as NodeJS.ProcessEnv;
  const config = loadConfig({ env });
  const { registry } = createMetrics(config, {
    clock: systemClock,
    workers: new MemoryWorkerRegistry(),
    tasks: new MemoryDispatchStore(),
    queue: new MemoryQueueStore(),
    runs: new MemoryRunStore(),
    instances: new InstanceRegistry(config.paths.data_dir),
    suspendFlags: new MemorySuspendFlags(),
    logger: silentLogger,
  });
  return registry.getMetricsAsArray().map((m) => ({
    name: m.name,
    // Every prom-client metric keeps its label names; the registry's listing type leaves them out.
    labels: [...((m as { labelNames?: readonly string[] }).labelNames ?? [])],
  }));
}

/** `dagu_runs{status}` for a metric with labels, `dagu_x` without. */
function rowKey(m: { name: string; labels: string[] }): string {
  return m.labels.length > 0 ? `${m.name}{${m.labels.join(', ')}}` : m.name;
}

describe('the metrics page', () => {
  const metrics = registeredMetrics();

  it('finds the metrics the server registers', () => {
    expect(metrics.map((m) => m.name)).toContain('dagu_scheduler_instances');
  });

  it('has a table row for every registered metric, with its labels', () => {
    const missing = metrics.map(rowKey).filter((key) => !page.includes(`\n| \`${key}\` |`));
    expect(missing, `metrics without a row in ${PAGE}`).toEqual([]);
  });

  it('documents no metric the server does not register', () => {
    const names = new Set(metrics.map((m) => m.name));
    const documented = [...page.matchAll(/^\| `(dagu_[a-z_]+)/gm)].map((m) => m[1]);
    expect(documented.filter((n) => !names.has(n))).toEqual([]);
  });
});
