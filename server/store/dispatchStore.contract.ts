// The behaviour every DispatchStore must have; run against FileDispatchStore and MemoryDispatchStore.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDag } from '../core/dag/parseDag';
import type { Labels } from '../core/distributed';
import { InvalidNameError } from '../core/names';
import type { DagSpec } from '../core/types';
import type { DispatchStore, NewDispatchTask } from './dispatchTypes';
import type { StoreFixture } from './runStore.contract';

const SECOND = 1000;
const TTL = 30 * SECOND;

function testDag(): DagSpec {
  const r = parseDag('steps:\n  - name: s\n    command: echo hi\n', { file: null, defaultName: 'etl' });
  if (!r.ok) throw new Error('the test DAG does not parse');
  return r.dag;
}

/** A task of `run_id` enqueued at `enqueued_at_ms`; override any field. */
export function testTask(
  overrides: Partial<NewDispatchTask> & { run_id: string; enqueued_at_ms: number },
): NewDispatchTask {
  return {
    dag_name: 'etl',
    attempt: 1,
    operation: 'start',
    trigger_type: 'manual',
    worker_selector: {},
    dag: testDag(),
    params: [],
    schedule_time: null,
    previous: null,
    parent: null,
    hold_until_ms: null,
    wait_ms: null,
    ...overrides,
  };
}

const worker = (worker_id: string, labels: Labels = {}) => ({ worker_id, labels });

/**
 * `makeStore` gives a fresh store. `baseMs` is the wall-clock time tests start from: the file store also
 * looks at file times, so its suite passes the real time rather than a fixed date.
 */
export function describeDispatchStoreContract(
  name: string,
  makeStore: () => Promise<StoreFixture<DispatchStore>>,
  opts: { durable: boolean; baseMs: () => number },
): void {
  describe(`${name} (DispatchStore contract)`, () => {
    let fixture: StoreFixture<DispatchStore>;
    let store: DispatchStore;
    let t0: number;
    beforeEach(async () => {
      fixture = await makeStore();
      store = fixture.store;
      t0 = opts.baseMs();
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it(`says whether it survives a restart (${opts.durable})`, () => {
      expect(store.durable).toBe(opts.durable);
    });

    it('names a task after its enqueue time, run and attempt, and stores it unclaimed', async () => {
      const task = await store.enqueue(
        testTask({ run_id: 'run-1', attempt: 2, enqueued_at_ms: 1_700_000_000_000 }),
      );
      expect(task).toMatchObject({ version: 1, task_id: '1700000000000-run-1-2', claim: null, attempt: 2 });
      expect(await store.listPending()).toEqual([task]);
      expect(await store.listClaims()).toEqual([]);
    });

    it('hands out the oldest matching task first', async () => {
      await store.enqueue(testTask({ run_id: 'b', enqueued_at_ms: t0 + 1 }));
      await store.enqueue(testTask({ run_id: 'c', enqueued_at_ms: t0 + 1 }));
      await store.enqueue(testTask({ run_id: 'a', enqueued_at_ms: t0 }));
      const order: string[] = [];
      for (
        let task = await store.claimNext(worker('w1'), t0);
        task;
        task = await store.claimNext(worker('w1'), t0)
      ) {
        order.push(task.run_id);
      }
      expect(order).toEqual(['a', 'b', 'c']);
      expect((await store.listPending()).map((t) => t.run_id)).toEqual([]);
      expect((await store.listClaims()).map((t) => t.run_id)).toEqual(['a', 'b', 'c']);
    });

    it('gives a task only to a worker whose labels match every selector label', async () => {
      await store.enqueue(
        testTask({ run_id: 'gpu-b', enqueued_at_ms: t0, worker_selector: { gpu: 'true', zone: 'b' } }),
      );
      await store.enqueue(testTask({ run_id: 'any', enqueued_at_ms: t0 + 1 }));
      expect(await store.claimNext(worker('w1', { zone: 'b' }), t0)).toMatchObject({ run_id: 'any' });
      expect(await store.claimNext(worker('w1', { zone: 'b' }), t0)).toBeNull();
      expect(await store.claimNext(worker('w2', { gpu: 'true', zone: 'a' }), t0)).toBeNull();
      const claimed = await store.claimNext(worker('w3', { gpu: 'true', zone: 'b', os: 'linux' }), t0);
      expect(claimed).toMatchObject({ run_id: 'gpu-b', claim: { worker_id: 'w3', claimed_at_ms: t0 } });
    });

    it('never gives one task to two concurrent claimers', async () => {
      for (let i = 0; i < 5; i++) await store.enqueue(testTask({ run_id: `r${i}`, enqueued_at_ms: t0 + i }));
      const claimers = Array.from({ length: 12 }, (_, i) => store.claimNext(worker(`w${i}`), t0 + 10));
      const claimed = (await Promise.all(claimers)).filter((t) => t !== null);
      expect(claimed.map((t) => t.run_id).sort()).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
      expect(await store.listPending()).toEqual([]);
    });

    it('turns a claim into the worker’s on an ack with the right worker and token', async () => {
      await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      const claimed = (await store.claimNext(worker('w1'), t0))!;
      expect(claimed.claim?.token).toMatch(/^[0-9a-f]{32}$/);
      expect(await store.ack(claimed.task_id, 'w2', claimed.claim!.token)).toEqual({
        ok: false,
        reason: 'wrong_worker',
      });
      expect(await store.ack(claimed.task_id, 'w1', 'not-the-token')).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await store.ack(claimed.task_id, 'w1', claimed.claim!.token)).toEqual({
        ok: true,
        task: claimed,
      });
      expect(await store.listClaims()).toEqual([]);
      expect(await store.ack(claimed.task_id, 'w1', claimed.claim!.token)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await store.findByRun('r1')).toBeNull();
    });

    it('answers not_found for a task that does not exist or is not a task ID', async () => {
      expect(await store.ack('0000000000001-nope-1', 'w1', 'x')).toEqual({ ok: false, reason: 'not_found' });
      expect(await store.ack('../../etc/passwd', 'w1', 'x')).toEqual({ ok: false, reason: 'not_found' });
      expect(await store.delete('../x')).toBe(false);
    });

    it('a held task outlives the TTL while an ordinary unclaimed one is recycled', async () => {
      const held = await store.enqueue(
        testTask({
          run_id: 'held',
          enqueued_at_ms: t0,
          hold_until_ms: t0 + 120 * SECOND,
          wait_ms: 120 * SECOND,
        }),
      );
      const plain = await store.enqueue(testTask({ run_id: 'plain', enqueued_at_ms: t0 }));
      expect(await store.recycle(t0 + TTL, TTL)).toEqual({ returned: [], expired: [] });
      expect(await store.recycle(t0 + TTL + 1, TTL)).toEqual({ returned: [], expired: [plain] });
      expect(await store.listPending()).toEqual([held]);
      expect(await store.claimNext(worker('w1'), t0 + TTL + 2)).toMatchObject({ run_id: 'held' });
    });

    it('gives a claim that was not acknowledged within the TTL back to pending, to be claimed anew', async () => {
      await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      const first = (await store.claimNext(worker('w1'), t0 + SECOND))!;
      expect(await store.recycle(t0 + SECOND + TTL, TTL)).toEqual({ returned: [], expired: [] });
      const { returned, expired } = await store.recycle(t0 + SECOND + TTL + 1, TTL);
      expect(expired).toEqual([]);
      expect(returned).toEqual([{ ...first, claim: null, enqueued_at_ms: t0 + SECOND + TTL + 1 }]);
      expect(await store.listClaims()).toEqual([]);
      expect(await store.listPending()).toEqual(returned);
      // Back in pending, its TTL starts again rather than expiring it at the next pass.
      expect(await store.recycle(t0 + SECOND + TTL + 2, TTL)).toEqual({ returned: [], expired: [] });
      const second = (await store.claimNext(worker('w2'), t0 + SECOND + TTL + 3))!;
      expect(second).toMatchObject({ task_id: first.task_id, claim: { worker_id: 'w2' } });
      expect(second.claim!.token).not.toBe(first.claim!.token);
      expect(await store.ack(first.task_id, 'w1', first.claim!.token)).toEqual({
        ok: false,
        reason: 'wrong_worker',
      });
      expect(await store.ack(second.task_id, 'w2', second.claim!.token)).toMatchObject({ ok: true });
    });

    it('an expired held task is listed, not claimed, until deleted', async () => {
      const held = await store.enqueue(
        testTask({
          run_id: 'held',
          enqueued_at_ms: t0,
          hold_until_ms: t0 + 10 * SECOND,
          wait_ms: 10 * SECOND,
        }),
      );
      expect(await store.claimNext(worker('w1'), t0 + 10 * SECOND)).toBeNull();
      expect(await store.recycle(t0 + 10 * TTL, TTL)).toEqual({ returned: [], expired: [] });
      expect(await store.listPending()).toEqual([held]);
      expect(await store.findByRun('held')).toEqual(held);
      expect(await store.delete(held.task_id)).toBe(true);
      expect(await store.delete(held.task_id)).toBe(false);
      expect(await store.listPending()).toEqual([]);
    });

    it('lets exactly one of several takers take an expired held task, and only once its wait has passed', async () => {
      const held = await store.enqueue(
        testTask({ run_id: 'held', enqueued_at_ms: t0, hold_until_ms: t0 + SECOND, wait_ms: SECOND }),
      );
      const plain = await store.enqueue(testTask({ run_id: 'plain', enqueued_at_ms: t0 }));
      expect(await store.takeExpiredHold(held.task_id, 'hold-expiry:a', t0 + SECOND - 1)).toBeNull();
      expect(await store.takeExpiredHold(plain.task_id, 'hold-expiry:a', t0 + 10 * SECOND)).toBeNull();
      expect(await store.takeExpiredHold('not-a-task', 'hold-expiry:a', t0 + 10 * SECOND)).toBeNull();

      const takes = await Promise.all(
        ['hold-expiry:a', 'hold-expiry:b', 'hold-expiry:c'].map((taker) =>
          store.takeExpiredHold(held.task_id, taker, t0 + SECOND),
        ),
      );
      const won = takes.filter((t) => t !== null);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({ task_id: held.task_id, claim: { claimed_at_ms: t0 + SECOND } });
      expect(await store.delete(held.task_id)).toBe(false);
      expect(await store.findByRun('held')).toEqual(won[0]);
      expect((await store.listPending()).map((t) => t.run_id)).toEqual(['plain']);

      const claim = won[0]!.claim!;
      expect(await store.ack(held.task_id, claim.worker_id, claim.token)).toMatchObject({ ok: true });
      expect(await store.findByRun('held')).toBeNull();
    });

    it('gives back an expired held task whose taker died, still expired, to be taken again', async () => {
      const held = await store.enqueue(
        testTask({ run_id: 'held', enqueued_at_ms: t0, hold_until_ms: t0 + SECOND, wait_ms: SECOND }),
      );
      expect(await store.takeExpiredHold(held.task_id, 'hold-expiry:a', t0 + SECOND)).not.toBeNull();
      const { returned } = await store.recycle(t0 + SECOND + TTL + 1, TTL);
      expect(returned).toEqual([expect.objectContaining({ run_id: 'held', hold_until_ms: t0 + SECOND })]);
      expect(await store.claimNext(worker('w1'), t0 + SECOND + TTL + 2)).toBeNull();
      expect(await store.takeExpiredHold(held.task_id, 'hold-expiry:b', t0 + SECOND + TTL + 2)).toMatchObject(
        {
          claim: { worker_id: 'hold-expiry:b' },
        },
      );
    });

    it('gives an expired held task back at once on release, unclaimed and still expired, to be taken again', async () => {
      const held = await store.enqueue(
        testTask({ run_id: 'held', enqueued_at_ms: t0, hold_until_ms: t0 + SECOND, wait_ms: SECOND }),
      );
      const taken = await store.takeExpiredHold(held.task_id, 'hold-expiry:a', t0 + SECOND);
      const token = taken!.claim!.token;

      expect(await store.release(held.task_id, 'hold-expiry:a', token)).toBe(true);

      // As it was before the take, well within the TTL: pending, in its place in line, with its hold.
      expect(await store.listClaims()).toEqual([]);
      expect(await store.listPending()).toEqual([held]);
      expect(await store.findByRun('held')).toEqual(held);
      expect(await store.pendingSummaries()).toEqual([
        {
          task_id: held.task_id,
          run_id: 'held',
          worker_selector: {},
          hold_until_ms: t0 + SECOND,
          enqueued_at_ms: t0,
        },
      ]);
      expect(await store.recycle(t0 + 2 * SECOND, TTL)).toEqual({ returned: [], expired: [] });
      // The claim given back is gone: its token no longer acknowledges or releases anything.
      expect(await store.ack(held.task_id, 'hold-expiry:a', token)).toEqual({
        ok: false,
        reason: 'not_found',
      });
      expect(await store.release(held.task_id, 'hold-expiry:a', token)).toBe(false);
      expect(await store.claimNext(worker('w1'), t0 + 2 * SECOND)).toBeNull();
      const again = await store.takeExpiredHold(held.task_id, 'hold-expiry:b', t0 + 2 * SECOND);
      expect(again).toMatchObject({ claim: { worker_id: 'hold-expiry:b', claimed_at_ms: t0 + 2 * SECOND } });
      expect(await store.ack(held.task_id, 'hold-expiry:b', again!.claim!.token)).toMatchObject({ ok: true });
      expect(await store.findByRun('held')).toBeNull();
    });

    it('releases only the claim of that claimant with that token', async () => {
      const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      const claimed = await store.claimNext(worker('w1'), t0 + SECOND);
      const { token } = claimed!.claim!;

      expect(await store.release(task.task_id, 'w2', token)).toBe(false);
      expect(await store.release(task.task_id, 'w1', 'not-the-token')).toBe(false);
      expect(await store.release('not-a-task', 'w1', token)).toBe(false);
      expect(await store.listClaims()).toEqual([claimed]);

      // Given back, then claimed anew by another worker: the first claim's token releases nothing.
      expect(await store.release(task.task_id, 'w1', token)).toBe(true);
      const second = await store.claimNext(worker('w2'), t0 + 2 * SECOND);
      expect(second).toMatchObject({ task_id: task.task_id, claim: { worker_id: 'w2' } });
      expect(await store.release(task.task_id, 'w1', token)).toBe(false);
      expect(await store.listClaims()).toEqual([second]);
      expect(await store.ack(task.task_id, 'w2', second!.claim!.token)).toMatchObject({ ok: true });
      expect(await store.release(task.task_id, 'w2', second!.claim!.token)).toBe(false);
    });

    it('summarises pending tasks from its index and lists only those a filter keeps', async () => {
      const held = await store.enqueue(
        testTask({
          run_id: 'held',
          enqueued_at_ms: t0,
          hold_until_ms: t0 + SECOND,
          wait_ms: SECOND,
          worker_selector: { zone: 'b' },
        }),
      );
      await store.enqueue(testTask({ run_id: 'plain', enqueued_at_ms: t0 + 1 }));
      expect(await store.pendingSummaries()).toEqual([
        {
          task_id: held.task_id,
          run_id: 'held',
          worker_selector: { zone: 'b' },
          hold_until_ms: t0 + SECOND,
          enqueued_at_ms: t0,
        },
        expect.objectContaining({ run_id: 'plain', hold_until_ms: null }),
      ]);
      expect(await store.listPending((t) => t.hold_until_ms !== null)).toEqual([held]);
    });

    it('passes over an expired held task to hand out a younger one', async () => {
      await store.enqueue(
        testTask({ run_id: 'held', enqueued_at_ms: t0, hold_until_ms: t0 + SECOND, wait_ms: SECOND }),
      );
      await store.enqueue(testTask({ run_id: 'plain', enqueued_at_ms: t0 + 1 }));
      expect(await store.claimNext(worker('w1'), t0 + 2 * SECOND)).toMatchObject({ run_id: 'plain' });
    });

    it('delete leaves claims alone', async () => {
      await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      const claimed = (await store.claimNext(worker('w1'), t0))!;
      expect(await store.delete(claimed.task_id)).toBe(false);
      expect(await store.listClaims()).toEqual([claimed]);
      expect(await store.findByRun('r1')).toEqual(claimed);
    });

    it('the hold survives an index rebuild', async () => {
      const expiredHold = await store.enqueue(
        testTask({ run_id: 'old', enqueued_at_ms: t0, hold_until_ms: t0 + SECOND, wait_ms: SECOND }),
      );
      const liveHold = await store.enqueue(
        testTask({
          run_id: 'new',
          enqueued_at_ms: t0 + 1,
          hold_until_ms: t0 + 60 * SECOND,
          wait_ms: 60 * SECOND,
        }),
      );
      await store.listPending();
      await store.rebuildIndex();
      expect(await store.listPending()).toEqual([expiredHold, liveHold]);
      expect(await store.recycle(t0 + 2 * SECOND, SECOND / 2)).toEqual({ returned: [], expired: [] });
      expect(await store.claimNext(worker('w1'), t0 + 2 * SECOND)).toMatchObject({
        run_id: 'new',
        hold_until_ms: t0 + 60 * SECOND,
      });
      expect(await store.claimNext(worker('w1'), t0 + 2 * SECOND)).toBeNull();
    });

    it('finds the pending or claimed task of a run', async () => {
      const a = await store.enqueue(testTask({ run_id: 'a', enqueued_at_ms: t0 }));
      await store.enqueue(testTask({ run_id: 'a-b', enqueued_at_ms: t0 + 1 }));
      expect(await store.findByRun('a')).toEqual(a);
      const claimed = (await store.claimNext(worker('w1'), t0))!;
      expect(claimed.run_id).toBe('a');
      expect(await store.findByRun('a')).toEqual(claimed);
      expect(await store.findByRun('a-b')).toMatchObject({ run_id: 'a-b', claim: null });
      expect(await store.findByRun('zzz')).toBeNull();
      await expect(store.findByRun('../x')).rejects.toBeInstanceOf(InvalidNameError);
    });

    it('keeps two tasks of one run and attempt enqueued in the same millisecond apart', async () => {
      const first = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      const second = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: t0 }));
      expect(second.task_id).not.toBe(first.task_id);
      expect(await store.listPending()).toEqual([first, second]);
    });

    it('refuses a task whose run ID, DAG name or attempt cannot name it', async () => {
      await expect(store.enqueue(testTask({ run_id: '../x', enqueued_at_ms: t0 }))).rejects.toBeInstanceOf(
        InvalidNameError,
      );
      await expect(
        store.enqueue(testTask({ run_id: 'r', dag_name: 'a/b', enqueued_at_ms: t0 })),
      ).rejects.toBeInstanceOf(InvalidNameError);
      await expect(store.enqueue(testTask({ run_id: 'r', attempt: 0, enqueued_at_ms: t0 }))).rejects.toThrow(
        /attempt/,
      );
      expect(await store.listPending()).toEqual([]);
    });
  });
}
