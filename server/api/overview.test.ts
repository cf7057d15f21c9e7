import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isoUtc } from '../core/runStatus';
import { testTask } from '../store/dispatchStore.contract';
import type { InstanceRecord } from '../store/instanceRegistry';
import { getOverview } from './overview';
import { enqueueDag } from './queue';
import { T0, testServices, type TestServices } from './testServices';

const SECOND = 1000;

let svc: TestServices;
beforeEach(() => {
  // T = 30s, R = 5s: the takeover bound is 40s.
  svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hello\n');
});
afterEach(() => svc.cleanup());

async function instance(
  id: string,
  role: InstanceRecord['role'],
  updatedAgoMs: number,
  extra: Partial<InstanceRecord> = {},
) {
  await svc.instances.publish({
    version: 1,
    id,
    host: `${id}.host`,
    pid: 100,
    role,
    since: isoUtc(T0 - 600 * SECOND),
    port: 8090,
    lock_holder: 'sched-a',
    last_renewal_seen: isoUtc(T0 - 3 * SECOND),
    updated_at: isoUtc(T0 - updatedAgoMs),
    ...extra,
  });
}

describe('getOverview', () => {
  it('shows each instance with its role, ages and the active one; a silent one as lost', async () => {
    await instance('sched-a', 'active', 2 * SECOND);
    await instance('sched-b', 'standby', 41 * SECOND);
    await instance('sched-c', 'standby', 40 * SECOND, { last_renewal_seen: null, port: 0 });

    const o = await getOverview(svc);

    expect(o.active_instance).toBe('sched-a');
    expect(o.instances.map((i) => [i.id, i.role])).toEqual([
      ['sched-a', 'active'],
      ['sched-c', 'standby'],
      ['sched-b', 'lost'],
    ]);
    expect(o.instances[0]).toEqual({
      id: 'sched-a',
      host: 'sched-a.host',
      pid: 100,
      role: 'active',
      since: isoUtc(T0 - 600 * SECOND),
      port: 8090,
      lock_holder: 'sched-a',
      last_renewal_seen: isoUtc(T0 - 3 * SECOND),
      last_renewal_age_ms: 3 * SECOND,
      updated_at: isoUtc(T0 - 2 * SECOND),
      updated_age_ms: 2 * SECOND,
    });
    expect(o.instances[1]).toMatchObject({ last_renewal_age_ms: null, port: 0 });
    expect(o.generated_at).toBe(isoUtc(T0));
  });

  it('names no active instance when the one that said so has gone silent', async () => {
    await instance('sched-a', 'active', 41 * SECOND);
    await instance('sched-b', 'standby', 1 * SECOND);
    const o = await getOverview(svc);
    expect(o.active_instance).toBeNull();
    expect(o.instances.find((i) => i.id === 'sched-a')?.role).toBe('lost');
  });

  it('prefers the instance that became active last while two records say active, and shows the other lost', async () => {
    await instance('sched-a', 'active', 1 * SECOND, { since: isoUtc(T0 - 600 * SECOND) });
    await instance('sched-b', 'active', 1 * SECOND, { since: isoUtc(T0 - 5 * SECOND) });
    const o = await getOverview(svc);
    expect(o.active_instance).toBe('sched-b');
    // Right after a takeover the dead holder's record is still fresh; it no longer holds the lock.
    expect(o.instances.map((i) => [i.id, i.role])).toEqual([
      ['sched-b', 'active'],
      ['sched-a', 'lost'],
    ]);
  });

  it('shows the failover settings in force as Go durations', async () => {
    const fast = testServices((c) => ({
      ...c,
      scheduler: { ...c.scheduler, lock_stale_threshold_ms: 3000, lock_retry_interval_ms: 500 },
    }));
    try {
      expect((await getOverview(fast)).settings).toEqual({
        lock_stale_threshold: '3s',
        lock_stale_threshold_ms: 3000,
        lock_retry_interval: '500ms',
        lock_retry_interval_ms: 500,
        renewal_interval: '750ms',
        renewal_interval_ms: 750,
        takeover_bound: '4s',
        takeover_bound_ms: 4000,
        failover_recovery_window: '2m0s',
        failover_recovery_window_ms: 120_000,
      });
    } finally {
      fast.cleanup();
    }
    // I is at most 7s: with T = 30s it is 7s, not T/4.
    expect((await getOverview(svc)).settings).toMatchObject({
      renewal_interval: '7s',
      takeover_bound: '40s',
    });
  });

  it('lists failovers from the event log, newest first, and picks up new ones on the next call', async () => {
    await svc.events.append('scheduler.lock.acquired', {
      instance: 'sched-a',
      host: 'a',
      pid: 1,
      how: 'fresh',
      epoch: 1,
      previous_instance: null,
      previous_host: null,
      gap_ms: null,
      observed_gap_ms: null,
    });
    for (let i = 0; i < 50; i++) await svc.events.append('dag.run.queued', { run_id: `r${i}` });
    expect((await getOverview(svc)).failovers.map((f) => f.cause)).toEqual(['initial']);

    svc.clock.advance(SECOND);
    await svc.events.append('scheduler.lock.lost', { instance: 'sched-a', host: 'a', pid: 1, reason: 'x' });
    svc.clock.advance(SECOND);
    await svc.events.append('scheduler.lock.acquired', {
      instance: 'sched-b',
      host: 'b',
      pid: 2,
      how: 'stale',
      epoch: 2,
      previous_instance: 'sched-a',
      previous_host: 'a',
      gap_ms: 3412,
      observed_gap_ms: 3301,
    });

    const failovers = (await getOverview(svc)).failovers;
    expect(failovers.map((f) => [f.from_instance, f.to_instance, f.cause, f.gap_ms])).toEqual([
      ['sched-a', 'sched-b', 'lock_lost', 3412],
      [null, 'sched-a', 'initial', null],
    ]);
  });

  it('counts running, queued and held runs and workers by state', async () => {
    await enqueueDag(svc, 'hello', []);
    await enqueueDag(svc, 'hello', []);
    await svc.runs.markActive({ run_id: 'running-1', dag_name: 'hello', queue: 'hello' });
    await svc.runs.markActive({ run_id: 'held-1', dag_name: 'remote', queue: 'remote' });
    await svc.tasks.enqueue(
      testTask({ run_id: 'held-1', enqueued_at_ms: T0, hold_until_ms: T0 + 60 * SECOND }),
    );
    await svc.tasks.enqueue(testTask({ run_id: 'disp-1', enqueued_at_ms: T0 }));
    const stale = svc.config.coordinator.worker_stale_threshold_ms;
    for (const [id, ago] of [
      ['w1', 0],
      ['w2', stale / 2 + 1],
      ['w3', stale + 1],
      ['w4', stale + 1],
    ] as const) {
      await svc.workers.put({
        worker_id: id,
        labels: {},
        max_active_runs: 1,
        running: [],
        host: 'h',
        pid: 1,
        registered_at_ms: T0,
        last_heartbeat_ms: T0 - ago,
      });
    }

    expect((await getOverview(svc)).counts).toEqual({
      running: 1,
      queued: 2,
      held: 1,
      workers: { healthy: 1, late: 1, lost: 2 },
      suspended_dags: 0,
    });
  });

  it('reports the protection and whether the server is open beyond loopback', async () => {
    expect((await getOverview(svc)).security).toEqual({
      auth: 'none',
      exposed_without_auth: false,
      listen: '127.0.0.1:8080',
    });
    svc.listen = { host: '0.0.0.0', port: 9000 };
    expect((await getOverview(svc)).security).toEqual({
      auth: 'none',
      exposed_without_auth: true,
      listen: '0.0.0.0:9000',
    });
  });
});
