import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { T0, testServices, type TestServices } from '../api/testServices';
import { isoUtc } from '../core/runStatus';
import { testTask } from '../store/dispatchStore.contract';
import { createMetrics } from './metrics';
import { registerRunMetrics } from './runMetrics';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

async function scrape(configuredQueues: string[] = []) {
  const registry = new Registry();
  registerRunMetrics(registry, { queue: svc.queue, tasks: svc.tasks, runs: svc.runs, configuredQueues });
  return (await registry.metrics()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

async function queued(queue: string, runId: string) {
  await svc.runs.markActive({ run_id: runId, dag_name: queue, queue });
  await svc.queue.enqueue({ queue, run_id: runId, dag_name: queue, enqueued_at: isoUtc(T0) });
}

describe('run metrics', () => {
  it('reports the depth of each queue, configured empty queues as 0', async () => {
    await queued('batch', 'b1');
    await queued('batch', 'b2');
    await queued('etl', 'e1');

    expect((await scrape(['idle'])).filter((l) => l.startsWith('dagu_queue_depth'))).toEqual([
      'dagu_queue_depth{queue="idle"} 0',
      'dagu_queue_depth{queue="batch"} 2',
      'dagu_queue_depth{queue="etl"} 1',
    ]);
  });

  it('counts active runs as queued (in a queue or waiting for a worker) or running', async () => {
    await queued('batch', 'b1');
    await svc.runs.markActive({ run_id: 'held', dag_name: 'remote', queue: 'remote' });
    await svc.tasks.enqueue(testTask({ run_id: 'held', enqueued_at_ms: T0, hold_until_ms: T0 + 60_000 }));
    await svc.runs.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    await svc.runs.markActive({ run_id: 'r2', dag_name: 'etl', queue: 'etl' });

    expect((await scrape()).filter((l) => l.startsWith('dagu_runs'))).toEqual([
      'dagu_runs{status="queued"} 2',
      'dagu_runs{status="running"} 2',
    ]);
  });

  it('reports zeros on an empty data directory', async () => {
    expect(await scrape()).toEqual(['dagu_runs{status="queued"} 0', 'dagu_runs{status="running"} 0']);
  });

  it('is part of the one registry the web server serves, beside the scheduler and worker metrics', async () => {
    await queued('batch', 'b1');
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
    for (const name of [
      'dagu_scheduler_instances',
      'dagu_workers',
      'dagu_held_dispatches',
      'dagu_queue_depth',
      'dagu_runs',
    ]) {
      expect(text).toContain(`# TYPE ${name} gauge`);
    }
    expect(text).toContain('dagu_queue_depth{queue="batch"} 1');
  });
});
