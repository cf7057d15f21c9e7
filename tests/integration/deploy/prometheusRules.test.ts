// The Prometheus rules as CI checks them: the operator guide's scheduler alerts as written, and every rule
// naming only metrics and labels the server registers.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { systemClock } from '../../../server/core/clock';
import { createMetrics } from '../../../server/metrics/metrics';
import { InstanceRegistry } from '../../../server/store/instanceRegistry';
import { MemoryDispatchStore } from '../../../server/store/memoryDispatchStore';
import { MemoryQueueStore } from '../../../server/store/memoryQueueStore';
import { MemoryRunStore } from '../../../server/store/memoryRunStore';
import { MemorySuspendFlags } from '../../../server/store/memorySuspendFlags';
import { silentLogger } from '../../../server/core/ports';
import { MemoryWorkerRegistry } from '../../../server/store/memoryWorkerRegistry';
import { ROOT } from '../harness';
import { configFrom } from './daguEnv';

const PROMETHEUS = path.join(ROOT, 'deploy', 'prometheus');

/** One alerting rule of a rules file. */
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** Every rule of a file under deploy/prometheus, across its groups. */
function rulesOf(file: string): Rule[] {
  const doc = parse(readFileSync(path.join(PROMETHEUS, file), 'utf8')) as {
    groups: Array<{ rules: Rule[] }>;
  };
  return doc.groups.flatMap((g) => g.rules);
}

describe('the Prometheus rules', () => {
  const files = readdirSync(PROMETHEUS).filter((f) => f.endsWith('.yaml'));

  it("keep the operator guide's two scheduler alerts as written", () => {
    const rules = rulesOf('alerts.yaml');
    expect(rules.map((r) => [r.alert, r.expr, r.for])).toEqual([
      ['DaguNoActiveScheduler', 'dagu_scheduler_instances{status="active"} != 1', '2m'],
      ['DaguNoStandbyScheduler', 'dagu_scheduler_instances{status="standby"} < 1', '10m'],
    ]);
  });

  it('name only metrics and labels the server registers, and every rule says how bad and what to do', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'dagu-metrics-'));
    try {
      const config = configFrom({ DAGU_HOME: home });
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
      expect(files.length).toBeGreaterThanOrEqual(3);
      for (const file of files) {
        for (const rule of rulesOf(file)) {
          const where = `${file}: ${rule.alert}`;
          expect(rule.labels?.severity, where).toMatch(/^(critical|warning)$/);
          expect(rule.annotations?.summary, where).toBeTruthy();
          expect(rule.annotations?.description, where).toBeTruthy();
          // Brackets balance: a cheap stand-in for promtool, which this machine does not have.
          for (const [open, close] of ['()', '{}'])
            expect(rule.expr.split(open).length, where).toBe(rule.expr.split(close).length);
          const names = [...rule.expr.matchAll(/\b(dagu_[a-z_]+)\b/g)].map((m) => m[1]);
          expect(names.length, where).toBeGreaterThan(0);
          const labels = new Set<string>();
          for (const name of names) {
            // A histogram's series are its name with _bucket, _sum and _count.
            const metric =
              registry.getSingleMetric(name) ??
              registry.getSingleMetric(name.replace(/_(bucket|sum|count)$/, ''));
            expect(metric, `${where}: ${name}`).toBeDefined();
            // prom-client keeps a metric's label names on the instance; its type declarations do not show them.
            for (const l of (metric as unknown as { labelNames: string[] }).labelNames) labels.add(l);
            if ((metric as unknown as { type: string }).type === 'histogram') labels.add('le');
          }
          const used = [
            ...[...rule.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
              [...m[1].matchAll(/(\w+)\s*[=!~]/g)].map((x) => x[1]),
            ),
            ...[...rule.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) =>
              m[1].split(',').map((x) => x.trim()),
            ),
          ];
          for (const l of used) expect(labels, `${where}: label ${l}`).toContain(l);
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
