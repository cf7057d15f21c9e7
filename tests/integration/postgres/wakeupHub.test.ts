// The wake-ups a process gets on PostgreSQL (PgWakeupHub): a queue item, a dispatch task, an event or a DAG
// stored by another process's store wakes the subscribers of its topic, from the writing statement's commit; a
// write that stores nothing (a task ID taken) wakes nobody; and after the listener's (re)connection every
// subscriber is called once, since notifications sent meanwhile are lost. A process listens only on the
// channels of the topics it subscribed to.

import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../../../server/core/clock';
import type { WakeupTopic } from '../../../server/store/controlPlane';
import { PgDagDefinitions } from '../../../server/store/postgres/pgDagDefinitions';
import { PgDispatchStore } from '../../../server/store/postgres/pgDispatchStore';
import { PgEventLog } from '../../../server/store/postgres/pgEventLog';
import { PgQueueStore } from '../../../server/store/postgres/pgQueueStore';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import { PgWakeupHub } from '../../../server/store/postgres/pgWakeupHub';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'wakehub';
const pg = usePostgres({ schema: SCHEMA });
let hub: PgWakeupHub | null = null;
afterEach(async () => {
  await hub?.close();
  hub = null;
});

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A hub on the test cluster (closed after each test). */
function newHub(): PgWakeupHub {
  return new PgWakeupHub({
    connection: { connectionString: pg().cluster.url },
    timers: systemTimers,
    logger: new RecordingLogger(),
  });
}

function subscribed() {
  hub = newHub();
  const calls: Record<WakeupTopic, number> = { queue: 0, dispatch: 0, events: 0, dags: 0, runs: 0 };
  const runs: Array<string | null> = [];
  for (const topic of ['queue', 'dispatch', 'events', 'dags', 'runs'] as const)
    hub.subscribe(topic, (about) => {
      calls[topic]++;
      if (topic === 'runs') runs.push(about);
    });
  return Object.assign(calls, { told: runs });
}

describe('wake-ups from the stores', () => {
  it('each store write wakes its own topic; the first connection calls every subscriber once', async () => {
    const calls = subscribed();
    await until(
      () =>
        calls.queue === 1 &&
        calls.dispatch === 1 &&
        calls.events === 1 &&
        calls.dags === 1 &&
        calls.runs === 1,
    );
    // The first connection says nothing in particular: subscribers look at everything.
    expect(calls.told).toEqual([null]);

    await new PgQueueStore(pg().pool, SCHEMA).enqueue({
      queue: 'etl',
      run_id: 'run-1',
      dag_name: 'etl',
      enqueued_at: new Date().toISOString(),
    });
    await until(() => calls.queue === 2);
    expect(calls).toMatchObject({ queue: 2, dispatch: 1, events: 1, dags: 1, runs: 1 });

    await new PgEventLog(pg().pool, SCHEMA, systemClock).append('dag.run.queued', { run_id: 'run-1' });
    await until(() => calls.events === 2);

    const tasks = new PgDispatchStore(pg().pool, SCHEMA);
    const task = {
      run_id: 'run-2',
      dag_name: 'etl',
      attempt: 1,
      operation: 'start' as const,
      trigger_type: 'manual' as const,
      worker_selector: { zone: 'b' },
      dag: { name: 'etl' } as never,
      params: [],
      schedule_time: null,
      previous: null,
      parent: null,
      enqueued_at_ms: Date.now(),
      hold_until_ms: null,
      wait_ms: null,
    };
    await tasks.enqueue(task);
    await until(() => calls.dispatch === 2);
    expect(calls).toMatchObject({ queue: 2, dispatch: 2, events: 2, dags: 1, runs: 1 });

    await new PgDagDefinitions(pg().pool, SCHEMA).put('etl', 'steps:\n  - name: a\n    run: echo a\n');
    await until(() => calls.dags === 2);
    expect(calls).toMatchObject({ queue: 2, dispatch: 2, events: 2, dags: 2, runs: 1 });

    // A run's state change names the run, the attempt and the state it entered; a write that keeps its state
    // says nothing.
    const runs = new PgRunStore(pg().pool, SCHEMA, '/logs');
    await runs.createRun(testRunStatus({ run_id: 'run-4', status: 'queued' }));
    await runs.writeStatus(testRunStatus({ run_id: 'run-4', status: 'queued' }));
    await runs.writeStatus(testRunStatus({ run_id: 'run-4', status: 'running' }));
    await runs.writeStatus(testRunStatus({ run_id: 'run-4', status: 'running' }));
    await runs.writeStatus(testRunStatus({ run_id: 'run-4', status: 'succeeded' }));
    await until(() => calls.runs === 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(calls.told).toEqual([null, 'run-4 1 running', 'run-4 1 succeeded']);
  });

  it('an unsubscribed function is not called again', async () => {
    hub = newHub();
    let a = 0;
    let b = 0;
    const stopA = hub.subscribe('queue', () => a++);
    hub.subscribe('queue', () => b++);
    await until(() => a === 1 && b === 1);
    stopA();
    await new PgQueueStore(pg().pool, SCHEMA).enqueue({
      queue: 'etl',
      run_id: 'run-3',
      dag_name: 'etl',
      enqueued_at: new Date().toISOString(),
    });
    await until(() => b === 2);
    expect(a).toBe(1);
  });

  it('listens only on the channels of the topics subscribed to; a topic subscribed later is resynced once', async () => {
    hub = newHub();
    let queue = 0;
    let events = 0;
    hub.subscribe('queue', () => queue++);
    await until(() => queue === 1);
    // A status write, an event, a task: none of them wakes a process that only waits for its queue.
    expect(await hub.listening()).toEqual(['dagu_queue']);

    hub.subscribe('events', () => events++);
    // Called once LISTEN is in place: what was sent before is lost, so the subscriber looks for itself.
    await until(() => events === 1);
    expect(await hub.listening()).toEqual(['dagu_events', 'dagu_queue']);
    await new PgEventLog(pg().pool, SCHEMA, systemClock).append('dag.run.queued', { run_id: 'run-5' });
    await until(() => events === 2);
    expect(queue).toBe(1);
  });
});
