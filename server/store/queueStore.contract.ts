// The behaviour every QueueStore must have; run against FileQueueStore and MemoryQueueStore.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import type { StoreFixture } from './runStore.contract';
import type { QueueStore } from './types';

const item = (run_id: string, queue = 'etl', enqueued_at = '2026-03-01T10:00:00.000Z') => ({
  queue,
  run_id,
  dag_name: 'etl',
  enqueued_at,
});

export function describeQueueStoreContract(
  name: string,
  makeStore: () => Promise<StoreFixture<QueueStore>>,
): void {
  describe(`${name} (QueueStore contract)`, () => {
    let fixture: StoreFixture<QueueStore>;
    let queue: QueueStore;
    beforeEach(async () => {
      fixture = await makeStore();
      queue = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('keeps the items of a queue in FIFO order, also within one millisecond', async () => {
      await queue.enqueue(item('second', 'etl', '2026-03-01T10:00:01.000Z'));
      await queue.enqueue(item('first', 'etl', '2026-03-01T10:00:00.000Z'));
      await queue.enqueue(item('third', 'etl', '2026-03-01T10:00:01.000Z'));
      await queue.enqueue(item('fourth', 'etl', '2026-03-01T10:00:01.000Z'));
      const items = await queue.list('etl');
      expect(items.map((i) => i.run_id)).toEqual(['first', 'second', 'third', 'fourth']);
      expect(items[0]).toMatchObject({
        queue: 'etl',
        dag_name: 'etl',
        enqueued_at: '2026-03-01T10:00:00.000Z',
      });
      expect(new Set(items.map((i) => i.item_id)).size).toBe(4);
    });

    it('returns the stored item from enqueue', async () => {
      const stored = await queue.enqueue(item('r1'));
      expect(await queue.list('etl')).toEqual([stored]);
    });

    it("dequeues exactly that run's item and reports whether there was one", async () => {
      await queue.enqueue(item('a'));
      await queue.enqueue(item('b'));
      await queue.enqueue(item('c'));
      expect(await queue.dequeue('etl', 'b')).toBe(true);
      expect(await queue.dequeue('etl', 'b')).toBe(false);
      expect(await queue.dequeue('other', 'a')).toBe(false);
      expect((await queue.list('etl')).map((i) => i.run_id)).toEqual(['a', 'c']);
    });

    it('lets exactly one of two concurrent dequeues of a run succeed', async () => {
      await queue.enqueue(item('a'));
      const results = await Promise.all([queue.dequeue('etl', 'a'), queue.dequeue('etl', 'a')]);
      expect(results.sort()).toEqual([false, true]);
    });

    it('finds the item of a run across queues', async () => {
      await queue.enqueue(item('a', 'q1'));
      const b = await queue.enqueue(item('b', 'q2'));
      expect(await queue.find('b')).toEqual(b);
      expect(await queue.find('zzz')).toBeNull();
    });

    it('names only the queues that hold items', async () => {
      await queue.enqueue(item('a', 'q2'));
      await queue.enqueue(item('b', 'q1'));
      await queue.dequeue('q2', 'a');
      expect(await queue.queues()).toEqual(['q1']);
      expect(await queue.list('never-used')).toEqual([]);
    });

    it('lists every non-empty queue with its items in one call, as queues() and list() give them', async () => {
      expect(await queue.listAll()).toEqual(new Map());
      await queue.enqueue(item('c', 'q2'));
      await queue.enqueue(item('a', 'q1'));
      await queue.enqueue(item('b', 'q2'));
      await queue.enqueue(item('d', 'q3'));
      await queue.dequeue('q3', 'd');
      const all = await queue.listAll();
      expect([...all.keys()]).toEqual(await queue.queues());
      expect([...all.keys()]).toEqual(['q1', 'q2']);
      for (const [name, items] of all) expect(items).toEqual(await queue.list(name));
      expect(all.get('q2')!.map((i) => i.run_id)).toEqual(['c', 'b']);
    });

    it('refuses queue names and run IDs with a slash or dot-dot', async () => {
      for (const bad of ['../x', 'a/b', '..']) {
        await expect(queue.enqueue(item(bad))).rejects.toBeInstanceOf(InvalidNameError);
        await expect(queue.enqueue(item('ok', bad))).rejects.toBeInstanceOf(InvalidNameError);
        await expect(queue.list(bad)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(queue.dequeue(bad, 'ok')).rejects.toBeInstanceOf(InvalidNameError);
        await expect(queue.dequeue('etl', bad)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(queue.find(bad)).rejects.toBeInstanceOf(InvalidNameError);
      }
      expect(await queue.queues()).toEqual([]);
    });
  });
}
