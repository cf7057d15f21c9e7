// The store contracts (runs, queues, event log, dispatch tasks, workers, coordinators, cancel requests,
// suspend flags, state entries) on a real PostgreSQL (a throwaway cluster started here), plus what the database form adds:
// a reader tailing the event log never skips an event while many clients append at once, and a run's end
// takes it off the active list in the same write.

import type { Pool } from 'pg';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { describeEventLogContract, ManualClock } from '../../../server/store/eventLog.contract';
import { describeQueueStoreContract } from '../../../server/store/queueStore.contract';
import { describeRunStoreContract } from '../../../server/store/runStore.contract';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { describeDispatchStoreContract, testTask } from '../../../server/store/dispatchStore.contract';
import { PgDispatchStore } from '../../../server/store/postgres/pgDispatchStore';
import { describeCancelRequestsContract } from '../../../server/store/cancelRequests.contract';
import { describeCoordinatorRegistryContract } from '../../../server/store/coordinatorRegistry.contract';
import { describeStateStoreContract } from '../../../server/store/stateStore.contract';
import { PgStateStore } from '../../../server/store/postgres/pgStateStore';
import { describeArtifactStoreContract } from '../../../server/store/artifactStore.contract';
import { PgArtifactStore } from '../../../server/store/postgres/pgArtifactStore';
import { describeSuspendFlagsContract } from '../../../server/store/suspendFlags.contract';
import { describeWorkerRegistryContract } from '../../../server/store/workerRegistry.contract';
import {
  PgCancelRequests,
  PgCoordinatorRegistry,
  PgSuspendFlags,
  PgWorkerRegistry,
} from '../../../server/store/postgres/pgSmallStores';
import { PgEventLog } from '../../../server/store/postgres/pgEventLog';
import { PgQueueStore } from '../../../server/store/postgres/pgQueueStore';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import { withRunEvents } from '../../../server/store/runEvents';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_stores_test';
const pg = usePostgres({ schema: SCHEMA, poolSize: 16 });
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

describeQueueStoreContract('PgQueueStore', async () => {
  await pool.query(`truncate ${SCHEMA}.queue_items`);
  return { store: new PgQueueStore(pool, SCHEMA) };
});

describeEventLogContract('PgEventLog', async (clock) => {
  await pool.query(`truncate ${SCHEMA}.events`);
  await pool.query(`update ${SCHEMA}.event_clock set last_ms = 0, counter = 0`);
  return { store: new PgEventLog(pool, SCHEMA, clock) };
});

describeRunStoreContract('PgRunStore', async () => {
  await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
  return { store: new PgRunStore(pool, SCHEMA, '/logs') };
});

describeDispatchStoreContract(
  'PgDispatchStore',
  async () => {
    await pool.query(`truncate ${SCHEMA}.dispatch_tasks`);
    return { store: new PgDispatchStore(pool, SCHEMA) };
  },
  { durable: true, baseMs: () => Date.UTC(2026, 2, 1, 10) },
);

describeWorkerRegistryContract('PgWorkerRegistry', async () => {
  await pool.query(`truncate ${SCHEMA}.workers`);
  return { store: new PgWorkerRegistry(pool, SCHEMA) };
});

describeCoordinatorRegistryContract('PgCoordinatorRegistry', async () => {
  await pool.query(`truncate ${SCHEMA}.coordinators`);
  return { store: new PgCoordinatorRegistry(pool, SCHEMA) };
});

describeCancelRequestsContract('PgCancelRequests', async () => {
  await pool.query(`truncate ${SCHEMA}.cancel_requests`);
  return { store: new PgCancelRequests(pool, SCHEMA) };
});

describeSuspendFlagsContract('PgSuspendFlags', async () => {
  await pool.query(`truncate ${SCHEMA}.suspend_flags`);
  return { store: new PgSuspendFlags(pool, SCHEMA) };
});

describeStateStoreContract('PgStateStore', async () => {
  await pool.query(`truncate ${SCHEMA}.state_entries`);
  return { store: new PgStateStore(pool, SCHEMA) };
});

describeArtifactStoreContract('PgArtifactStore', async () => {
  await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
  // An artifact row hangs on its run: the two runs the contract writes to.
  for (const id of ['run-a', 'run-b'])
    await pool.query(
      `insert into ${SCHEMA}.runs (run_id, dag_name, list_key, created_ms, latest_attempt, status, summary)
       values ($1, 'd', $1, 0, 1, 'succeeded', '{}')`,
      [id],
    );
  return { store: new PgArtifactStore(pool, SCHEMA) };
});

describe('PgArtifactStore and run deletion', () => {
  it("removes a run's artifacts with the run row", async () => {
    await pool.query(`truncate ${SCHEMA}.runs cascade`);
    await pool.query(
      `insert into ${SCHEMA}.runs (run_id, dag_name, list_key, created_ms, latest_attempt, status, summary)
       values ('run-x', 'd', 'k', 0, 1, 'succeeded', '{}')`,
    );
    const store = new PgArtifactStore(pool, SCHEMA);
    await store.put('run-x', 'a.txt', new TextEncoder().encode('a'));
    await pool.query(`delete from ${SCHEMA}.runs where run_id = 'run-x'`);
    expect(await store.list('run-x')).toEqual([]);
  });
});

describe('PgEventLog across connections', () => {
  it('never lets a tailing reader skip an event, while many clients with skewed clocks append', async () => {
    await pool.query(`truncate ${SCHEMA}.events`);
    // Eight writers whose clocks disagree by up to 7 s, as hosts may.
    const logs = Array.from(
      { length: 8 },
      (_, i) => new PgEventLog(pool, SCHEMA, new ManualClock(Date.UTC(2026, 2, 1, 10) - i * 1000)),
    );
    const total = 400;
    // A reader tails the log by afterId the whole time, as the console's live feed does.
    const seen: string[] = [];
    const tail = (async () => {
      let after: string | undefined;
      const until = Date.now() + 60_000;
      while (seen.length < total && Date.now() < until) {
        const page = await logs[0].list({ afterId: after, limit: 25 });
        seen.push(...page.map((e) => e.id));
        if (page.length > 0) after = page[page.length - 1].id;
      }
    })();
    const appended = await Promise.all(
      Array.from({ length: total }, (_, n) => logs[n % logs.length].append('race', { n })),
    );
    await tail;
    const ids = appended.map((e) => e.id);
    expect(new Set(ids).size).toBe(total);
    expect(seen).toEqual([...ids].sort());
  });
});

describe('PgRunStore, what the database form adds', () => {
  it("takes a run off the active list in the same write as its latest attempt's end, not an older attempt's", async () => {
    await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    const active = async () => (await store.listActive()).map((a) => a.run_id);
    await store.createRun(testRunStatus({ run_id: 'ends', status: 'running' }));
    await store.createRun(testRunStatus({ run_id: 'retried', status: 'running' }));
    await store.createAttempt(testRunStatus({ run_id: 'retried', attempt: 2, status: 'queued' }));
    await store.writeStatus(testRunStatus({ run_id: 'ends', status: 'running' }));
    expect(await active()).toEqual(['ends', 'retried']);

    // No separate unmark follows: a writer whose unmark statement fails leaves no finished run marked.
    await store.writeStatus(testRunStatus({ run_id: 'ends', status: 'succeeded' }));
    await store.writeStatus(testRunStatus({ run_id: 'retried', attempt: 1, status: 'failed' }));
    expect(await active()).toEqual(['retried']);
    await store.writeStatus(testRunStatus({ run_id: 'retried', attempt: 2, status: 'failed' }));
    expect(await active()).toEqual([]);
  });

  it("reads a run's latest status and whether a cancel request waits for it in one statement", async () => {
    await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
    await pool.query(`truncate ${SCHEMA}.cancel_requests`);
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    const cancels = new PgCancelRequests(pool, SCHEMA);
    await store.createRun(testRunStatus({ run_id: 'rc', status: 'running' }));
    await store.createAttempt(testRunStatus({ run_id: 'rc', attempt: 2, status: 'queued' }));

    expect(await store.readStatusAndCancel('rc')).toMatchObject({
      read: { kind: 'ok', status: { attempt: 2, status: 'queued' } },
      cancelRequested: false,
    });
    await cancels.request('rc', Date.now());
    await cancels.request('other', Date.now());
    expect((await store.readStatusAndCancel('rc')).cancelRequested).toBe(true);
    expect(await store.readStatusAndCancel('nope')).toEqual({
      read: { kind: 'missing' },
      cancelRequested: false,
    });
  });

  it('writes the heartbeats of several attempts in one statement, passing over one that is not there', async () => {
    await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    await store.createRun(testRunStatus({ run_id: 'hb1', status: 'running' }));
    await store.createRun(testRunStatus({ run_id: 'hb2', status: 'running' }));
    await store.createAttempt(testRunStatus({ run_id: 'hb2', attempt: 2, status: 'running' }));

    await store.writeHeartbeats(
      [
        { run_id: 'hb1', attempt: 1 },
        { run_id: 'hb2', attempt: 2 },
        { run_id: 'ghost', attempt: 1 },
      ],
      1_700_000_000_000,
    );

    expect(await store.readHeartbeat('hb1', 1)).toBe(1_700_000_000_000);
    expect(await store.readHeartbeat('hb2', 2)).toBe(1_700_000_000_000);
    expect(await store.readHeartbeat('hb2', 1)).toBeNull();
    await expect(store.writeHeartbeats([{ run_id: '../x', attempt: 1 }], 1)).rejects.toThrow();
  });

  it("clears the run's cancel request in the same write as its latest attempt's end", async () => {
    await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    const cancels = new PgCancelRequests(pool, SCHEMA);
    expect(store.clearsCancelsOnEnd).toBe(true);
    await store.createRun(testRunStatus({ run_id: 'c1', status: 'running' }));
    await store.createRun(testRunStatus({ run_id: 'c2', status: 'running' }));
    await cancels.request('c1', 1);
    await cancels.request('c2', 1);
    // A write that does not end the run keeps the request: the worker has yet to be told.
    await store.writeStatus(testRunStatus({ run_id: 'c1', status: 'running' }));
    expect(await cancels.has('c1')).toBe(true);
    await store.writeStatus(testRunStatus({ run_id: 'c1', status: 'aborted' }));
    expect(await cancels.has('c1')).toBe(false);
    expect(await cancels.has('c2')).toBe(true);
  });

  it('writes a heartbeat given with a status in the same statement', async () => {
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    await store.createRun(testRunStatus({ run_id: 'hb', status: 'queued' }));
    await store.writeStatus(testRunStatus({ run_id: 'hb', status: 'running' }), undefined, {
      heartbeatMs: 1_700_000_000_123,
    });
    expect(await store.readHeartbeat('hb', 1)).toBe(1_700_000_000_123);
    await store.writeStatus(testRunStatus({ run_id: 'hb', status: 'running' }));
    expect(await store.readHeartbeat('hb', 1)).toBe(1_700_000_000_123);
  });

  it("reads the latest attempt's claim with its status, so the dead-run check needs no second read", async () => {
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    expect(await store.readStatusAndClaim('no-such-run')).toEqual({ read: { kind: 'missing' }, claim: null });
    await store.createRun(testRunStatus({ run_id: 'cl', status: 'queued' }));
    expect(await store.readStatusAndClaim('cl')).toEqual({ read: await store.readStatus('cl'), claim: null });
    await store.claimAttempt('cl', 1, 'host-a:1');
    expect((await store.readStatusAndClaim('cl')).claim).toBe('host-a:1');
    await store.createAttempt(testRunStatus({ run_id: 'cl', attempt: 2, status: 'queued' }));
    // The latest attempt's: attempt 2 is not claimed yet.
    expect(await store.readStatusAndClaim('cl')).toEqual({ read: await store.readStatus('cl'), claim: null });
    await store.claimAttempt('cl', 2, 'host-b:2');
    expect((await store.readStatusAndClaim('cl')).claim).toBe('host-b:2');
  });

  it('reads many runs with their claims in one statement, each as a read of its own would', async () => {
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    await store.createRun(testRunStatus({ run_id: 'many-1', status: 'queued' }));
    await store.createRun(testRunStatus({ run_id: 'many-2', status: 'running' }));
    await store.claimAttempt('many-2', 1, 'host-a:1');
    await store.createAttempt(testRunStatus({ run_id: 'many-2', attempt: 2, status: 'queued' }));
    await store.claimAttempt('many-2', 2, 'host-b:2');
    const spy = vi.spyOn(pool, 'query');
    const got = await store.readStatusesAndClaims(['many-1', 'many-2', 'no-such-run']);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    expect([...got.keys()].sort()).toEqual(['many-1', 'many-2', 'no-such-run']);
    for (const id of ['many-1', 'many-2', 'no-such-run'])
      expect(got.get(id)).toEqual(await store.readStatusAndClaim(id));
    expect(got.get('many-2')!.claim).toBe('host-b:2');
    expect(await store.readStatusesAndClaims([])).toEqual(new Map());
    await expect(store.readStatusesAndClaims(['ok', '../etc'])).rejects.toThrow();
  });

  it('reads and claims a queued run in one step: one claimant of many, only while it is queued', async () => {
    await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
    const store = new PgRunStore(pool, SCHEMA, '/logs');
    expect(await store.claimQueued('nothing', 'a')).toEqual({ kind: 'missing' });

    const queued = testRunStatus({ run_id: 'q', status: 'queued' });
    await store.createRun(queued);
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((o) => store.claimQueued('q', o)));
    expect(answers.filter((r) => r.kind === 'ok' && r.claimed)).toHaveLength(1);
    for (const r of answers) expect(r).toMatchObject({ kind: 'ok', status: queued });
    const winner = ['a', 'b', 'c', 'd', 'e'][answers.findIndex((r) => r.kind === 'ok' && r.claimed)];
    expect(await store.readClaim('q', 1)).toBe(winner);

    // Not queued: read, never claimed.
    await store.createRun(testRunStatus({ run_id: 'r', status: 'running' }));
    expect(await store.claimQueued('r', 'a')).toMatchObject({
      kind: 'ok',
      claimed: false,
      status: { status: 'running' },
    });
    expect(await store.readClaim('r', 1)).toBeNull();

    // The latest attempt is the one claimed.
    await store.createRun(testRunStatus({ run_id: 'again', status: 'failed' }));
    await store.createAttempt(testRunStatus({ run_id: 'again', attempt: 2, status: 'queued' }));
    expect(await store.claimQueued('again', 'a')).toMatchObject({
      kind: 'ok',
      claimed: true,
      status: { attempt: 2 },
    });
    expect([await store.readClaim('again', 1), await store.readClaim('again', 2)]).toEqual([null, 'a']);
  });
});

describe('run events written with the status, on PostgreSQL', () => {
  async function setUp() {
    await pool.query(
      `truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs, ${SCHEMA}.events cascade`,
    );
    const events = new PgEventLog(pool, SCHEMA, new ManualClock());
    const store = new PgRunStore(pool, SCHEMA, '/logs', undefined, events);
    const logger = new RecordingLogger();
    const appends = vi.spyOn(events, 'append');
    const runs = withRunEvents(store, events, { logger });
    const types = async () =>
      (await events.list({ limit: 100 })).map((e) => `${e.type} ${(e.data as { run_id: string }).run_id}`);
    return { events, store, runs, logger, appends, types };
  }

  it("appends a run's creation, start and end in the writes themselves, not as statements of their own", async () => {
    const { runs, appends, types } = await setUp();
    await runs.createRun(testRunStatus({ run_id: 'ev1', status: 'queued' }));
    expect(appends).not.toHaveBeenCalled();
    expect(await runs.claimAttempt('ev1', 1, 'me')).toBe(true);
    expect(await runs.beginClaimedAttempt(testRunStatus({ run_id: 'ev1', status: 'running' }), 'me')).toBe(
      true,
    );
    await runs.writeStatus(testRunStatus({ run_id: 'ev1', status: 'running' })); // no change of state: no event
    await runs.writeStatus(testRunStatus({ run_id: 'ev1', status: 'succeeded' }));
    expect(appends).not.toHaveBeenCalled();
    expect(await types()).toEqual(['dag.run.queued ev1', 'dag.run.running ev1', 'dag.run.succeeded ev1']);
  });

  it('appends no creation event for a run ID that is taken', async () => {
    const { runs, types } = await setUp();
    expect(await runs.createRun(testRunStatus({ run_id: 'ev6', status: 'queued' }))).toEqual({
      created: true,
    });
    expect(await runs.createRun(testRunStatus({ run_id: 'ev6', status: 'running' }))).toEqual({
      created: false,
      reason: 'exists',
    });
    expect(await types()).toEqual(['dag.run.queued ev6']);
  });

  it('still creates the run when the event log refuses its event (its table renamed by hand)', async () => {
    const { runs, logger, types } = await setUp();
    await pool.query(`alter table ${SCHEMA}.events rename to events_away`);
    let created;
    try {
      created = await runs.createRun(testRunStatus({ run_id: 'ev7', status: 'queued' }));
    } finally {
      await pool.query(`alter table ${SCHEMA}.events_away rename to events`);
    }
    expect(created).toEqual({ created: true });
    const read = await runs.readStatus('ev7');
    expect(read.kind === 'ok' && read.status.status).toBe('queued');
    expect(logger.find('Could not write a run status with its event; writing them apart')).toHaveLength(1);
    expect(logger.find('Could not append a run event')).toHaveLength(1);
    expect(await types()).toEqual([]);
  });

  it('appends nothing when the status is not written: a start whose claim was given back', async () => {
    const { runs, store, types } = await setUp();
    await runs.createRun(testRunStatus({ run_id: 'ev2', status: 'queued' }));
    await store.claimAttempt('ev2', 1, 'me');
    expect(await store.releaseClaim('ev2', 1, 'me')).toBe(true);
    expect(await runs.beginClaimedAttempt(testRunStatus({ run_id: 'ev2', status: 'running' }), 'me')).toBe(
      false,
    );
    expect(await types()).toEqual(['dag.run.queued ev2']);
    // Nor for a run that is not there, which fails as before.
    await expect(runs.writeStatus(testRunStatus({ run_id: 'ghost', status: 'running' }))).rejects.toThrow();
    expect(await types()).toEqual(['dag.run.queued ev2']);
  });

  it("appends apart to an event log other than the store's own", async () => {
    const { store, types } = await setUp();
    const other = new PgEventLog(pool, SCHEMA, new ManualClock());
    const appends = vi.spyOn(other, 'append');
    const runs = withRunEvents(store, other);
    await runs.createRun(testRunStatus({ run_id: 'ev3', status: 'running' }));
    await runs.writeStatus(testRunStatus({ run_id: 'ev3', status: 'failed' }));
    expect(appends).toHaveBeenCalledTimes(2);
    expect(await types()).toEqual(['dag.run.running ev3', 'dag.run.failed ev3']);
  });

  it('appends one event for two writes of the same state made at once (a report retried while in flight)', async () => {
    const { runs, types } = await setUp();
    await runs.createRun(testRunStatus({ run_id: 'ev5', status: 'running' }));
    const ended = testRunStatus({ run_id: 'ev5', status: 'succeeded' });
    await Promise.all([runs.writeStatus(ended), runs.writeStatus(ended)]);
    expect(await types()).toEqual(['dag.run.running ev5', 'dag.run.succeeded ev5']);
  });

  it('still writes the status when the event log refuses the event (its table renamed by hand)', async () => {
    const { runs, logger } = await setUp();
    await runs.createRun(testRunStatus({ run_id: 'ev4', status: 'running' }));
    await pool.query(`alter table ${SCHEMA}.events rename to events_away`);
    try {
      await runs.writeStatus(testRunStatus({ run_id: 'ev4', status: 'succeeded' }));
    } finally {
      await pool.query(`alter table ${SCHEMA}.events_away rename to events`);
    }
    const read = await runs.readStatus('ev4');
    expect(read.kind === 'ok' && read.status.status).toBe('succeeded');
    expect(logger.find('Could not write a run status with its event; writing them apart')).toHaveLength(1);
    expect(logger.find('Could not append a run event')).toHaveLength(1);
  });
});

describe('dispatch events written with the task, on PostgreSQL', () => {
  it('appends the event in the enqueue statement, once per stored task, and none without one', async () => {
    await pool.query(`truncate ${SCHEMA}.dispatch_tasks, ${SCHEMA}.events`);
    const events = new PgEventLog(pool, SCHEMA, new ManualClock());
    const store = new PgDispatchStore(pool, SCHEMA, events);
    const appends = vi.spyOn(events, 'append');
    const event = { type: 'run:dispatched', data: { run_id: 'd1', held: false } };
    const at = Date.UTC(2026, 2, 1, 10);
    // The second enqueue of the same run and millisecond takes the next free ID: two tasks, two events.
    await store.enqueue(testTask({ run_id: 'd1', enqueued_at_ms: at }), { event });
    await store.enqueue(testTask({ run_id: 'd1', enqueued_at_ms: at }), { event });
    await store.enqueue(testTask({ run_id: 'd2', enqueued_at_ms: at }));
    expect(appends).not.toHaveBeenCalled();
    expect((await store.listPending()).map((t) => t.run_id).sort()).toEqual(['d1', 'd1', 'd2']);
    const listed = await events.list({ limit: 10 });
    expect(listed.map((e) => [e.type, e.data])).toEqual([
      ['run:dispatched', { run_id: 'd1', held: false }],
      ['run:dispatched', { run_id: 'd1', held: false }],
    ]);
    // A store without an event log refuses an event rather than dropping it.
    await expect(
      new PgDispatchStore(pool, SCHEMA).enqueue(testTask({ run_id: 'd3', enqueued_at_ms: at }), { event }),
    ).rejects.toThrow('no event log');
  });
});
