import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { manualClock, testServices } from '../api/testServices';
import { testTask } from '../store/dispatchStore.contract';
import type { WorkerRecord } from '../store/dispatchTypes';
import { MemoryDispatchStore } from '../store/memoryDispatchStore';
import { MemoryWorkerRegistry } from '../store/memoryWorkerRegistry';
import { registerDistributedMetrics } from './distributedMetrics';
import { createMetrics } from './metrics';

const T0 = Date.parse('2026-11-30T01:15:30Z');
const SECOND = 1000;
const STALE_MS = 10 * SECOND;

function worker(
  worker_id: string,
  lastHeartbeatMs: number,
  labels: Record<string, string> = {},
): WorkerRecord {
  return {
    worker_id,
    labels,
    max_active_runs: 4,
    running: [],
    host: 'host-1',
    pid: 100,
    registered_at_ms: T0 - 60 * SECOND,
    last_heartbeat_ms: lastHeartbeatMs,
  };
}

function harness() {
  const clock = manualClock(T0);
  const workers = new MemoryWorkerRegistry();
  const tasks = new MemoryDispatchStore();
  const registry = new Registry();
  registerDistributedMetrics(registry, { workers, tasks, clock, staleMs: STALE_MS });
  /** The exposition lines of the three gauges (no HELP/TYPE lines). */
  const scrape = async () =>
    (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  return { clock, workers, tasks, scrape };
}

describe('distributed metrics', () => {
  it('counts workers by health, heard from within the stale threshold or not', async () => {
    const h = harness();
    await h.workers.put(worker('w-a', T0));
    await h.workers.put(worker('w-b', T0 - STALE_MS));
    await h.workers.put(worker('w-c', T0 - STALE_MS - 1));

    expect(await h.scrape()).toEqual([
      'dagu_workers{status="healthy"} 2',
      'dagu_workers{status="unhealthy"} 1',
    ]);
  });

  it('reports zero of each status when no worker ever registered', async () => {
    const h = harness();
    expect(await h.scrape()).toEqual([
      'dagu_workers{status="healthy"} 0',
      'dagu_workers{status="unhealthy"} 0',
    ]);
  });

  it('counts pending held dispatches per selector with the age of the oldest, leaving out the rest', async () => {
    const h = harness();
    const held = (run_id: string, enqueued_at_ms: number, worker_selector: Record<string, string>) =>
      h.tasks.enqueue(
        testTask({
          run_id,
          enqueued_at_ms,
          worker_selector,
          hold_until_ms: enqueued_at_ms + 120 * SECOND,
          wait_ms: 120 * SECOND,
        }),
      );
    await held('r1', T0 - 90 * SECOND, { zone: 'b' });
    await held('r2', T0 - 30 * SECOND, { zone: 'b' });
    await held('r3', T0 - 5 * SECOND, { zone: 'a', gpu: 'true' });
    // Not held: a task for which a matching worker existed.
    await h.tasks.enqueue(
      testTask({ run_id: 'r4', enqueued_at_ms: T0 - 200 * SECOND, worker_selector: { zone: 'b' } }),
    );
    // Claimed by a worker that just arrived: no longer waiting.
    await held('r5', T0 - 60 * SECOND, { zone: 'c' });
    await h.tasks.claimNext({ worker_id: 'w-c', labels: { zone: 'c' } }, T0);

    const lines = (await h.scrape()).filter((l) => l.startsWith('dagu_held'));
    expect(lines.sort()).toEqual(
      [
        'dagu_held_dispatches{selector="{zone: b}"} 2',
        'dagu_held_dispatches{selector="{gpu: true, zone: a}"} 1',
        'dagu_held_dispatch_oldest_age_seconds{selector="{zone: b}"} 90',
        'dagu_held_dispatch_oldest_age_seconds{selector="{gpu: true, zone: a}"} 5',
      ].sort(),
    );
  });

  it('drops the series of a selector once its held dispatches are gone, and ages the rest with the clock', async () => {
    const h = harness();
    const a = await h.tasks.enqueue(
      testTask({
        run_id: 'r1',
        enqueued_at_ms: T0,
        worker_selector: { zone: 'a' },
        hold_until_ms: T0 + 1,
        wait_ms: 1,
      }),
    );
    await h.tasks.enqueue(
      testTask({
        run_id: 'r2',
        enqueued_at_ms: T0,
        worker_selector: { zone: 'b' },
        hold_until_ms: T0 + 1,
        wait_ms: 1,
      }),
    );
    expect((await h.scrape()).filter((l) => l.includes('zone: a'))).toHaveLength(2);

    await h.tasks.delete(a.task_id);
    h.clock.advance(12.5 * SECOND);
    const lines = (await h.scrape()).filter((l) => l.startsWith('dagu_held'));
    expect(lines).toEqual([
      'dagu_held_dispatches{selector="{zone: b}"} 1',
      'dagu_held_dispatch_oldest_age_seconds{selector="{zone: b}"} 12.5',
    ]);
  });

  it('reads the dispatch store index once per scrape for both held-dispatch gauges, and no task file', async () => {
    const h = harness();
    let listings = 0;
    const summaries = h.tasks.pendingSummaries.bind(h.tasks);
    h.tasks.pendingSummaries = () => {
      listings++;
      return summaries();
    };
    h.tasks.listPending = () => Promise.reject(new Error('a scrape must not read every task'));
    await h.scrape();
    expect(listings).toBe(1);
  });
});

describe('the web server’s /metrics registry', () => {
  it('serves the distributed metrics beside the scheduler instances', async () => {
    const svc = testServices();
    try {
      await svc.workers.put(worker('w-a', svc.clock.nowMs(), { zone: 'a' }));
      const { registry } = createMetrics(svc.config, {
        clock: svc.clock,
        workers: svc.workers,
        tasks: svc.tasks,
        queue: svc.queue,
        runs: svc.runs,
        instances: svc.instances,
        suspendFlags: svc.suspendFlags,
        logger: svc.logger,
      });
      const text = await registry.metrics();
      expect(text).toContain('dagu_scheduler_instances{status="active"} 0');
      expect(text).toContain('dagu_workers{status="healthy"} 1');
      expect(text).toContain('# TYPE dagu_held_dispatches gauge');
      expect(text).toContain('# TYPE dagu_held_dispatch_oldest_age_seconds gauge');
    } finally {
      svc.cleanup();
    }
  });
});
