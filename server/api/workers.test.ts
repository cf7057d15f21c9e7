import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testRunStatus } from '../testing/testRunStatus';
import { T0, testServices, type TestServices } from './testServices';
import { listWorkers } from './workers';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

const SECOND = 1000;

async function register(
  worker_id: string,
  heardAgoMs: number,
  labels: Record<string, string>,
  running: Array<{ run_id: string; attempt: number }> = [],
) {
  await svc.workers.put({
    worker_id,
    labels,
    max_active_runs: 4,
    running,
    host: `${worker_id}.example`,
    pid: 4242,
    registered_at_ms: T0 - 3600 * SECOND,
    last_heartbeat_ms: T0 - heardAgoMs,
  });
}

describe('listWorkers', () => {
  it('lists workers healthy first, with labels, capacity, health and heartbeat times', async () => {
    const stale = svc.config.coordinator.worker_stale_threshold_ms;
    await register('w-a', stale + SECOND, { zone: 'a' });
    await register('w-b', 2 * SECOND, { zone: 'b', gpu: 'true' });

    const listing = await listWorkers(svc);

    expect(listing.stale_threshold_ms).toBe(stale);
    expect(listing.workers).toEqual([
      {
        worker_id: 'w-b',
        labels: { zone: 'b', gpu: 'true' },
        max_active_runs: 4,
        host: 'w-b.example',
        state: 'healthy',
        health: 'healthy',
        registered_at: '2026-11-30T00:14:30Z',
        last_heartbeat_at: '2026-11-30T01:14:28Z',
        heartbeat_age_ms: 2 * SECOND,
        running: [],
      },
      expect.objectContaining({
        worker_id: 'w-a',
        state: 'lost',
        health: 'unhealthy',
        heartbeat_age_ms: stale + SECOND,
      }),
    ]);
  });

  it('shows the runs each worker reported, with their DAG and state where this server can read them', async () => {
    await svc.runs.createRun(
      testRunStatus({ run_id: 'r1', dag_name: 'etl', status: 'running', worker_id: 'w-b' }),
    );
    await register('w-b', 0, { zone: 'b' }, [
      { run_id: 'r1', attempt: 1 },
      { run_id: 'gone', attempt: 2 },
    ]);

    const [worker] = (await listWorkers(svc)).workers;

    expect(worker.running).toEqual([
      { run_id: 'r1', attempt: 1, dag_name: 'etl', status: 'running' },
      { run_id: 'gone', attempt: 2, dag_name: null, status: null },
    ]);
  });

  it('calls a worker late past half the stale threshold and lost past the threshold, late ones still healthy to the dispatcher', async () => {
    const stale = svc.config.coordinator.worker_stale_threshold_ms;
    await register('w-edge-healthy', stale / 2, {});
    await register('w-late', stale / 2 + 1, {});
    await register('w-edge-late', stale, {});
    await register('w-lost', stale + 1, {});

    const listing = await listWorkers(svc);

    expect(listing.workers.map((w) => [w.worker_id, w.state, w.health])).toEqual([
      ['w-edge-healthy', 'healthy', 'healthy'],
      ['w-edge-late', 'late', 'healthy'],
      ['w-late', 'late', 'healthy'],
      ['w-lost', 'lost', 'unhealthy'],
    ]);
  });

  it('answers an empty list when no worker ever registered', async () => {
    expect((await listWorkers(svc)).workers).toEqual([]);
  });
});
