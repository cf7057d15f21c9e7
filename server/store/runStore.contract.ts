// The behaviour every RunStore must have; run against FileRunStore and MemoryRunStore.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import type { RunStatus } from '../core/types';
import { AttemptConflictError, InvalidCursorError, RunNotFoundError } from './errors';
import { testRunStatus } from '../testing/testRunStatus';
import type { RunListQuery, RunStore, RunSummary } from './types';

/** A store under test and how to dispose of it. */
export interface StoreFixture<S> {
  store: S;
  cleanup?: () => Promise<void>;
}

const at = (ms: number) => new Date(Date.UTC(2026, 2, 1) + ms).toISOString();

/** Deterministic pseudo-random numbers, so a failing order is reproducible. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

async function collectAllPages(store: RunStore, query: RunListQuery & { limit: number }) {
  const items: RunSummary[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.listRuns({ ...query, cursor });
    items.push(...page.items);
    if (page.next_cursor === null) return items;
    cursor = page.next_cursor;
  }
  throw new Error('the cursor never ended');
}

export function describeRunStoreContract(
  name: string,
  makeStore: () => Promise<StoreFixture<RunStore>>,
): void {
  describe(`${name} (RunStore contract)`, () => {
    let fixture: StoreFixture<RunStore>;
    let store: RunStore;
    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('creates a run once and reports a second create of the same ID as exists', async () => {
      expect(await store.createRun(testRunStatus({ run_id: 'r1' }))).toEqual({ created: true });
      expect(await store.createRun(testRunStatus({ run_id: 'r1', dag_name: 'other' }))).toEqual({
        created: false,
        reason: 'exists',
      });
      const read = await store.readStatus('r1');
      expect(read.kind === 'ok' && read.status.dag_name).toBe('etl');
    });

    it('lists a run once however often its list entries are written again', async () => {
      const status = testRunStatus({ run_id: 'r1' });
      await store.createRun(status);
      await store.ensureIndexed(status);
      await store.ensureIndexed(status);
      expect((await store.listRuns({})).items.map((r) => r.run_id)).toEqual(['r1']);
      expect((await store.listRuns({ dag: status.dag_name })).items.map((r) => r.run_id)).toEqual(['r1']);
    });

    it('lets exactly one of two concurrent creates of one run ID win', async () => {
      const results = await Promise.all([
        store.createRun(testRunStatus({ run_id: 'slot', dag_name: 'first' })),
        store.createRun(testRunStatus({ run_id: 'slot', dag_name: 'second' })),
      ]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const winner = results[0].created ? 'first' : 'second';
      const read = await store.readStatus('slot');
      expect(read.kind === 'ok' && read.status.dag_name).toBe(winner);
    });

    it('reads back the whole status it last wrote', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      const running = testRunStatus({ run_id: 'r1', status: 'running', pid: 42, params: ['A=1 2'] });
      await store.writeStatus(running);
      expect(await store.readStatus('r1')).toEqual({ kind: 'ok', status: running });
    });

    it("keeps a run's labels on its record and in its list entry, and lists a run without labels without them", async () => {
      await store.createRun(
        testRunStatus({ run_id: 'r1', status: 'failed', labels: ['env=prod', 'critical'] }),
      );
      await store.createRun(
        testRunStatus({ run_id: 'r2', dag_name: 'other', created_at: '2026-03-01T11:00:00.000Z' }),
      );
      const read = await store.readStatus('r1');
      expect(read.kind === 'ok' && read.status.labels).toEqual(['env=prod', 'critical']);
      const listed = (await store.listRuns({})).items;
      expect(listed.map((r) => [r.run_id, r.labels])).toEqual([
        ['r2', undefined],
        ['r1', ['env=prod', 'critical']],
      ]);
      expect(listed[0]).not.toHaveProperty('labels');
      await store.createAttempt(
        testRunStatus({ run_id: 'r1', attempt: 2, trigger_type: 'retry', labels: ['env=prod', 'critical'] }),
      );
      await store.writeStatus(
        testRunStatus({ run_id: 'r1', attempt: 2, status: 'succeeded', labels: ['env=prod', 'critical'] }),
      );
      const again = (await store.listRuns({ dag: 'etl', status: 'succeeded' })).items;
      expect(again.map((r) => [r.run_id, r.attempt, r.labels])).toEqual([
        ['r1', 2, ['env=prod', 'critical']],
      ]);
    });

    it('reports an unknown run as missing', async () => {
      expect(await store.readStatus('nope')).toEqual({ kind: 'missing' });
    });

    it('starts a retry as a new attempt and reads the latest attempt', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1', status: 'failed' }));
      await store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2, trigger_type: 'retry' }));
      // A late write of the first attempt does not hide the second.
      await store.writeStatus(testRunStatus({ run_id: 'r1', attempt: 1, status: 'aborted' }));
      const read = await store.readStatus('r1');
      expect(read.kind === 'ok' && [read.status.attempt, read.status.trigger_type]).toEqual([2, 'retry']);
    });

    it('refuses an attempt that is not the latest plus one', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      await expect(store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 3 }))).rejects.toBeInstanceOf(
        AttemptConflictError,
      );
      await store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2 }));
      await expect(store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2 }))).rejects.toBeInstanceOf(
        AttemptConflictError,
      );
      await expect(store.createRun(testRunStatus({ run_id: 'r2', attempt: 2 }))).rejects.toBeInstanceOf(
        AttemptConflictError,
      );
    });

    it('lets exactly one of two concurrent creates of the same attempt win', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      const results = await Promise.allSettled([
        store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2 })),
        store.createAttempt(testRunStatus({ run_id: 'r1', attempt: 2 })),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    });

    it('lets exactly one of several concurrent claims of an attempt win', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      const claims = await Promise.all([1, 2, 3].map((i) => store.claimAttempt('r1', 1, `p${i}`)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await store.claimAttempt('r1', 1, 'late')).toBe(false);
      await expect(store.claimAttempt('ghost', 1, 'p')).rejects.toThrow();
    });

    it('tells whether an attempt is claimed', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      expect(await store.isClaimed('r1', 1)).toBe(false);
      expect(await store.claimAttempt('r1', 1, 'p1')).toBe(true);
      expect(await store.isClaimed('r1', 1)).toBe(true);
      expect(await store.isClaimed('r1', 2)).toBe(false);
      expect(await store.isClaimed('ghost', 1)).toBe(false);
    });

    it("records a claimant's start only while its claim stands, where claims can be released", async () => {
      const queued = testRunStatus({ run_id: 'r1', status: 'queued' });
      const running: RunStatus = { ...queued, status: 'running', pid: 101, host: 'host-a' };
      await store.createRun(queued);
      expect(await store.claimAttempt('r1', 1, 'host-a:101')).toBe(true);
      if (!store.releasesClaims) {
        expect(await store.releaseClaim('r1', 1, 'host-a:101')).toBe(false);
        expect(await store.beginClaimedAttempt(running, 'host-a:101')).toBe(true);
        return;
      }
      // Another owner's release does nothing; the claimant's release gives the attempt back.
      expect(await store.releaseClaim('r1', 1, 'host-b:202')).toBe(false);
      expect(await store.releaseClaim('r1', 1, 'host-a:101')).toBe(true);
      expect(await store.readClaim('r1', 1)).toBeNull();
      // The first claimant, late, cannot start it; the next claimant can, and then it cannot be released.
      expect(await store.beginClaimedAttempt(running, 'host-a:101')).toBe(false);
      const r = await store.readStatus('r1');
      expect(r.kind === 'ok' && r.status.status).toBe('queued');
      expect(await store.claimAttempt('r1', 1, 'host-c:303')).toBe(true);
      expect(await store.beginClaimedAttempt({ ...running, pid: 303, host: 'host-c' }, 'host-c:303')).toBe(
        true,
      );
      expect(await store.releaseClaim('r1', 1, 'host-c:303')).toBe(false);
      const after = await store.readStatus('r1');
      expect(after.kind === 'ok' && after.status).toMatchObject({ status: 'running', pid: 303 });
    });

    it("lets exactly one of a release and the claimant's start take effect when they race", async () => {
      for (let i = 0; i < 10; i++) {
        const runId = `race-${i}`;
        const queued = testRunStatus({ run_id: runId, status: 'queued' });
        await store.createRun(queued);
        await store.claimAttempt(runId, 1, 'host-a:101');
        const [begun, released] = await Promise.all([
          store.beginClaimedAttempt({ ...queued, status: 'running' }, 'host-a:101'),
          store.releaseClaim(runId, 1, 'host-a:101'),
        ]);
        if (store.releasesClaims) expect(begun !== released).toBe(true);
        else expect([begun, released]).toEqual([true, false]);
        const r = await store.readStatus(runId);
        expect(r.kind === 'ok' && r.status.status).toBe(begun ? 'running' : 'queued');
      }
    });

    it('tells who claimed an attempt: the first claimant, never a later one', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      expect(await store.readClaim('r1', 1)).toBeNull();
      expect(await store.claimAttempt('r1', 1, 'host-a:101@2026-11-30T01:15:00.000Z')).toBe(true);
      expect(await store.claimAttempt('r1', 1, 'host-b:202')).toBe(false);
      expect(await store.readClaim('r1', 1)).toBe('host-a:101@2026-11-30T01:15:00.000Z');
      expect(await store.readClaim('r1', 2)).toBeNull();
      expect(await store.readClaim('ghost', 1)).toBeNull();
    });

    it('refuses writes to a run or attempt that was never created', async () => {
      await expect(store.writeStatus(testRunStatus({ run_id: 'ghost' }))).rejects.toBeInstanceOf(
        RunNotFoundError,
      );
      await expect(
        store.createAttempt(testRunStatus({ run_id: 'ghost', attempt: 2 })),
      ).rejects.toBeInstanceOf(RunNotFoundError);
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      await expect(store.writeStatus(testRunStatus({ run_id: 'r1', attempt: 2 }))).rejects.toBeInstanceOf(
        RunNotFoundError,
      );
      await expect(store.writeHeartbeat('ghost', 1, 5)).rejects.toBeInstanceOf(RunNotFoundError);
      expect(await store.readStatus('ghost')).toEqual({ kind: 'missing' });
    });

    it("lists runs newest first across DAGs, showing each run's latest status", async () => {
      await store.createRun(testRunStatus({ run_id: 'old', dag_name: 'a', created_at: at(1000) }));
      await store.createRun(testRunStatus({ run_id: 'new', dag_name: 'b', created_at: at(3000) }));
      await store.createRun(testRunStatus({ run_id: 'mid', dag_name: 'a', created_at: at(2000) }));
      await store.writeStatus(
        testRunStatus({ run_id: 'mid', dag_name: 'a', created_at: at(2000), status: 'running' }),
      );
      const page = await store.listRuns({});
      expect(page.items.map((r) => [r.run_id, r.status])).toEqual([
        ['new', 'queued'],
        ['mid', 'running'],
        ['old', 'queued'],
      ]);
      expect(page.next_cursor).toBeNull();
      expect(page.items[0]).toMatchObject({ dag_name: 'b', attempt: 1, trigger_type: 'manual', queue: 'b' });
    });

    it('pages through a history spread over days with the cursor, in order, without repeats', async () => {
      const random = seededRandom(7);
      const expected: Array<{ key: number; id: string }> = [];
      for (let i = 0; i < 60; i++) {
        // Clusters in one second and exact ties exercise the bucket boundaries and the tie-break on run ID.
        const ms = i % 10 === 0 ? 5000 : Math.floor(random() * 3 * 24 * 3600 * 1000);
        const id = `run-${String(i).padStart(2, '0')}`;
        expected.push({ key: ms, id });
        await store.createRun(
          testRunStatus({ run_id: id, dag_name: i % 3 === 0 ? 'x' : 'y', created_at: at(ms) }),
        );
      }
      expected.sort((a, b) => b.key - a.key || (a.id < b.id ? 1 : -1));
      const all = await collectAllPages(store, { limit: 7 });
      expect(all.map((r) => r.run_id)).toEqual(expected.map((e) => e.id));
      const onlyX = await collectAllPages(store, { dag: 'x', limit: 4 });
      expect(onlyX.map((r) => r.run_id)).toEqual(
        expected.filter((e) => Number(e.id.slice(4)) % 3 === 0).map((e) => e.id),
      );
    });

    it('filters by status and pages through every match', async () => {
      for (let i = 0; i < 12; i++) {
        const status = testRunStatus({ run_id: `r${i}`, created_at: at(i * 1000) });
        await store.createRun(status);
        if (i % 4 === 0) await store.writeStatus({ ...status, status: 'failed' });
      }
      const failed = await collectAllPages(store, { status: 'failed', limit: 2 });
      expect(failed.map((r) => r.run_id)).toEqual(['r8', 'r4', 'r0']);
      const firstPage = await store.listRuns({ status: 'queued', limit: 50 });
      expect(firstPage.items).toHaveLength(9);
      expect(firstPage.next_cursor).toBeNull();
    });

    it('filters by trigger and by creation time, paging through every match with the cursor', async () => {
      for (let i = 0; i < 20; i++) {
        // One run a day apart: the range crosses day buckets of the index.
        await store.createRun(
          testRunStatus({
            run_id: `r${String(i).padStart(2, '0')}`,
            dag_name: i % 2 === 0 ? 'even' : 'odd',
            created_at: at(i * 24 * 3600 * 1000),
            trigger_type: i % 3 === 0 ? 'scheduler' : 'manual',
          }),
        );
      }
      const day = 24 * 3600 * 1000;
      const ids = (rows: Array<{ run_id: string }>) => rows.map((r) => r.run_id);
      expect(ids(await collectAllPages(store, { trigger: 'scheduler', limit: 2 }))).toEqual([
        'r18',
        'r15',
        'r12',
        'r09',
        'r06',
        'r03',
        'r00',
      ]);
      const base = Date.UTC(2026, 2, 1);
      const range = { createdFromMs: base + 5 * day, createdToMs: base + 9 * day };
      expect(ids(await collectAllPages(store, { ...range, limit: 2 }))).toEqual([
        'r09',
        'r08',
        'r07',
        'r06',
        'r05',
      ]);
      expect(ids(await collectAllPages(store, { ...range, trigger: 'manual', limit: 1 }))).toEqual([
        'r08',
        'r07',
        'r05',
      ]);
      expect(
        ids(await collectAllPages(store, { ...range, dag: 'odd', status: 'queued', limit: 50 })),
      ).toEqual(['r09', 'r07', 'r05']);
      const last = await store.listRuns({ ...range, limit: 5 });
      expect(last.items).toHaveLength(5);
      expect(last.next_cursor).toBeNull();
    });

    it('refuses a cursor it did not hand out', async () => {
      await expect(store.listRuns({ cursor: '../etc' })).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it('refuses run IDs, DAG and queue names with a slash or dot-dot', async () => {
      const bad = ['../x', 'a/b', '..', 'x/../../y'];
      for (const id of bad) {
        await expect(store.createRun(testRunStatus({ run_id: id }))).rejects.toBeInstanceOf(InvalidNameError);
        await expect(store.readStatus(id)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(store.createRun(testRunStatus({ run_id: 'ok', dag_name: id }))).rejects.toBeInstanceOf(
          InvalidNameError,
        );
        await expect(store.createRun(testRunStatus({ run_id: 'ok', queue: id }))).rejects.toBeInstanceOf(
          InvalidNameError,
        );
        await expect(store.listRuns({ dag: id })).rejects.toBeInstanceOf(InvalidNameError);
        await expect(store.markActive({ run_id: 'ok', dag_name: 'etl', queue: id })).rejects.toBeInstanceOf(
          InvalidNameError,
        );
        await expect(store.unmarkActive(id)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(store.writeHeartbeat(id, 1, 1)).rejects.toBeInstanceOf(InvalidNameError);
        expect(() => store.logDir(id, 'ok', 1)).toThrow(InvalidNameError);
        expect(() => store.logDir('etl', id, 1)).toThrow(InvalidNameError);
      }
      expect(await store.readStatus('ok')).toEqual({ kind: 'missing' });
    });

    it('marks a new queued or running run or attempt active as it creates it, and no other', async () => {
      await store.createRun(testRunStatus({ run_id: 'q1', status: 'queued', queue: 'q' }));
      await store.createRun(testRunStatus({ run_id: 'r1', status: 'running', queue: 'q' }));
      await store.createRun(testRunStatus({ run_id: 'f1', status: 'failed', queue: 'q' }));
      await store.createRun(testRunStatus({ run_id: 'f2', status: 'failed', queue: 'q' }));
      await store.createAttempt(testRunStatus({ run_id: 'f2', attempt: 2, status: 'running', queue: 'q' }));
      expect(await store.listActive()).toEqual([
        { run_id: 'f2', dag_name: 'etl', queue: 'q' },
        { run_id: 'q1', dag_name: 'etl', queue: 'q' },
        { run_id: 'r1', dag_name: 'etl', queue: 'q' },
      ]);
    });

    it('marks and unmarks active runs', async () => {
      await store.markActive({ run_id: 'r2', dag_name: 'etl', queue: 'q' });
      await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'q' });
      await store.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'other' });
      expect(await store.listActive()).toEqual([
        { run_id: 'r1', dag_name: 'etl', queue: 'other' },
        { run_id: 'r2', dag_name: 'etl', queue: 'q' },
      ]);
      await store.unmarkActive('r1');
      await store.unmarkActive('never-marked');
      expect(await store.listActive()).toEqual([{ run_id: 'r2', dag_name: 'etl', queue: 'q' }]);
    });

    it('takes an ended latest attempt off the active list with its status, where unmarksEnded says so', async () => {
      await store.createRun(testRunStatus({ run_id: 'e1', status: 'running', queue: 'q' }));
      await store.createRun(testRunStatus({ run_id: 'e2', status: 'running', queue: 'q' }));
      await store.createAttempt(testRunStatus({ run_id: 'e2', attempt: 2, status: 'running', queue: 'q' }));
      await store.writeStatus(testRunStatus({ run_id: 'e1', status: 'running', queue: 'q' }));
      // An older attempt's end is not the run's: the run stays active either way.
      await store.writeStatus(testRunStatus({ run_id: 'e2', attempt: 1, status: 'failed', queue: 'q' }));
      await store.writeStatus(testRunStatus({ run_id: 'e1', status: 'succeeded', queue: 'q' }));
      const e2 = { run_id: 'e2', dag_name: 'etl', queue: 'q' };
      expect(await store.listActive()).toEqual(
        store.unmarksEnded ? [e2] : [{ run_id: 'e1', dag_name: 'etl', queue: 'q' }, e2],
      );
    });

    it('keeps the last heartbeat of each attempt', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1' }));
      expect(await store.readHeartbeat('r1', 1)).toBeNull();
      await store.writeHeartbeat('r1', 1, 1_700_000_000_000);
      await store.writeHeartbeat('r1', 1, 1_700_000_005_000);
      expect(await store.readHeartbeat('r1', 1)).toBe(1_700_000_005_000);
      expect(await store.readHeartbeat('r1', 2)).toBeNull();
      expect(await store.readHeartbeat('ghost', 1)).toBeNull();
    });

    it('writes a heartbeat given with a status write, and keeps it through writes without one', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1', status: 'queued' }));
      const running = testRunStatus({ run_id: 'r1', status: 'running' });
      await store.writeStatus(running, undefined, { heartbeatMs: 1_700_000_000_000 });
      expect(await store.readHeartbeat('r1', 1)).toBe(1_700_000_000_000);
      await store.writeStatus(running);
      expect(await store.readHeartbeat('r1', 1)).toBe(1_700_000_000_000);
      expect((await store.readStatus('r1')).kind).toBe('ok');
    });

    it('keeps the note of an attempt whose final status could not be written, for that attempt only', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
      expect(await store.readUnwrittenFinalStatus('r1', 1)).toBeNull();
      await store.recordUnwrittenFinalStatus('r1', 1, { state: 'succeeded', error_code: 'ENOSPC' });
      expect(await store.readUnwrittenFinalStatus('r1', 1)).toEqual({
        state: 'succeeded',
        error_code: 'ENOSPC',
      });
      expect(await store.readUnwrittenFinalStatus('r1', 2)).toBeNull();
      expect(await store.readUnwrittenFinalStatus('ghost', 1)).toBeNull();
      // The note is no status: the run still reads as it was last written.
      const read = await store.readStatus('r1');
      expect(read.kind === 'ok' && read.status.status).toBe('running');
    });

    it('records an error code it cannot spell as UNKNOWN, and refuses a note for an attempt that does not exist', async () => {
      await store.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
      await store.recordUnwrittenFinalStatus('r1', 1, { state: 'failed', error_code: 'no/such~code' });
      expect(await store.readUnwrittenFinalStatus('r1', 1)).toEqual({
        state: 'failed',
        error_code: 'UNKNOWN',
      });
      await expect(
        store.recordUnwrittenFinalStatus('r1', 2, { state: 'failed', error_code: 'EIO' }),
      ).rejects.toBeInstanceOf(RunNotFoundError);
      await expect(
        store.recordUnwrittenFinalStatus('../x', 1, { state: 'failed', error_code: 'EIO' }),
      ).rejects.toBeInstanceOf(InvalidNameError);
    });

    it('gives the history of one DAG newest first, without other DAGs', async () => {
      await store.createRun(testRunStatus({ run_id: 'h1', dag_name: 'etl', created_at: at(1000) }));
      await store.createRun(testRunStatus({ run_id: 'h2', dag_name: 'etl', created_at: at(3 * 86_400_000) }));
      await store.createRun(testRunStatus({ run_id: 'o1', dag_name: 'other', created_at: at(2000) }));
      expect(await store.history('etl')).toEqual([
        { run_id: 'h2', created_ms: Date.parse(at(3 * 86_400_000)) },
        { run_id: 'h1', created_ms: Date.parse(at(1000)) },
      ]);
      expect(await store.history('nothing')).toEqual([]);
    });

    it('deletes an ended run for good, and refuses a live, active or unknown one', async () => {
      await store.createRun(testRunStatus({ run_id: 'done', status: 'succeeded', created_at: at(1000) }));
      await store.createRun(testRunStatus({ run_id: 'live', status: 'running', created_at: at(2000) }));
      await store.createRun(testRunStatus({ run_id: 'marked', status: 'failed', created_at: at(3000) }));
      await store.markActive({ run_id: 'marked', dag_name: 'etl', queue: 'etl' });
      expect(await store.deleteRun('done')).toEqual({ deleted: true });
      expect(await store.readStatus('done')).toEqual({ kind: 'missing' });
      expect(await store.deleteRun('done')).toEqual({ deleted: false, reason: 'missing' });
      expect(await store.deleteRun('live')).toEqual({ deleted: false, reason: 'live' });
      expect(await store.deleteRun('marked')).toEqual({ deleted: false, reason: 'live' });
      const listed = (await collectAllPages(store, { limit: 50 })).map((r) => r.run_id).sort();
      expect(listed).toEqual(['live', 'marked']);
      expect((await store.history('etl')).map((e) => e.run_id)).toEqual(['marked', 'live']);
      expect(await store.purgeDeleted()).toBe(0);
    });

    it('gives each attempt its own absolute log directory', () => {
      const first = store.logDir('etl', 'r1', 1);
      const second = store.logDir('etl', 'r1', 2);
      expect(first.startsWith('/')).toBe(true);
      expect(first.endsWith('/etl/r1/1')).toBe(true);
      expect(second.endsWith('/etl/r1/2')).toBe(true);
    });
  });
}
