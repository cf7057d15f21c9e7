// In-memory QueueStore with the behaviour of FileQueueStore (same validation and FIFO order), for tests.

import { assertDagName, assertRunId } from '../core/names';
import { newQueueItemId } from './queueItemName';
import type { QueueItem, QueueStore } from './types';

/** QueueStore kept in memory. */
export class MemoryQueueStore implements QueueStore {
  private readonly items = new Map<string, QueueItem[]>();

  async enqueue(item: Omit<QueueItem, 'item_id'>): Promise<QueueItem> {
    assertDagName(item.queue, 'queue name');
    assertRunId(item.run_id);
    assertDagName(item.dag_name);
    const stored: QueueItem = {
      queue: item.queue,
      run_id: item.run_id,
      dag_name: item.dag_name,
      enqueued_at: item.enqueued_at,
      item_id: newQueueItemId(item.enqueued_at, item.run_id),
    };
    const list = this.items.get(item.queue) ?? [];
    list.push(stored);
    list.sort((a, b) => (a.item_id < b.item_id ? -1 : a.item_id > b.item_id ? 1 : 0));
    this.items.set(item.queue, list);
    return { ...stored };
  }

  async list(queue: string): Promise<QueueItem[]> {
    assertDagName(queue, 'queue name');
    return (this.items.get(queue) ?? []).map((item) => ({ ...item }));
  }

  async queues(): Promise<string[]> {
    return [...this.items.entries()]
      .filter(([, list]) => list.length > 0)
      .map(([name]) => name)
      .sort();
  }

  async listAll(): Promise<Map<string, QueueItem[]>> {
    const out = new Map<string, QueueItem[]>();
    for (const name of await this.queues()) out.set(name, await this.list(name));
    return out;
  }

  async dequeue(queue: string, runId: string): Promise<boolean> {
    assertDagName(queue, 'queue name');
    assertRunId(runId);
    const list = this.items.get(queue) ?? [];
    const kept = list.filter((item) => item.run_id !== runId);
    this.items.set(queue, kept);
    return kept.length < list.length;
  }

  async find(runId: string): Promise<QueueItem | null> {
    assertRunId(runId);
    for (const queue of await this.queues()) {
      const item = this.items.get(queue)!.find((candidate) => candidate.run_id === runId);
      if (item) return { ...item };
    }
    return null;
  }
}
