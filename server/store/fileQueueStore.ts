// QueueStore on the shared data directory: one JSON file per item,
//   data/queue/<queue>/<enqueued_ms13>_<seq6>_<rand6>_<run_id>.json
// created whole with temp+link (never seen half-written), ordered by name (FIFO), removed by unlink (so
// of two processes dequeuing the same run, exactly one gets `true`). Corrupt items are skipped and
// reported, never deleted.

import path from 'node:path';
import { assertDagName, assertRunId, isValidDagName } from '../core/names';
import { onceReporter } from './corruptReporter';
import type { CorruptFileReport } from './fsutil';
import {
  createFileExclusive,
  ensureDir,
  errorCode,
  isTempName,
  readJsonFile,
  readdirOrEmpty,
} from './fsutil';
import { newQueueItemId, runIdOfItem } from './queueItemName';
import type { QueueItem, QueueStore } from './types';
import * as fs from './fileCalls';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

/** Options of FileQueueStore. */
export interface FileQueueStoreOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** Told once about each corrupt item file that reads skip; for the log. */
  onCorrupt?: (report: CorruptFileReport) => void;
}

/** QueueStore backed by item files under `DAGU_HOME/data/queue`; safe for several processes and hosts. */
export class FileQueueStore implements QueueStore {
  private readonly queueRoot: string;
  private readonly report: (report: CorruptFileReport) => void;
  /** Items already read, per queue and item ID (see list). */
  private readonly itemCache = new Map<string, Map<string, QueueItem>>();
  /**
   * The run ID in each item name of each queue, as last listed: a name never changes, so each is parsed
   * once, not at every listing (a backlog of thousands of items is listed several times a second).
   */
  private readonly itemRunIds = new Map<string, Map<string, string>>();

  constructor(opts: FileQueueStoreOptions) {
    this.queueRoot = path.join(path.resolve(opts.dataDir), 'queue');
    this.report = onceReporter(opts.onCorrupt);
  }

  async enqueue(item: Omit<QueueItem, 'item_id'>): Promise<QueueItem> {
    assertDagName(item.queue, 'queue name');
    assertRunId(item.run_id);
    assertDagName(item.dag_name);
    const dir = path.join(this.queueRoot, item.queue);
    await ensureDir(dir);
    for (;;) {
      const stored: QueueItem = {
        queue: item.queue,
        run_id: item.run_id,
        dag_name: item.dag_name,
        enqueued_at: item.enqueued_at,
        item_id: newQueueItemId(item.enqueued_at, item.run_id),
      };
      // A taken name means a random-part collision with another host: draw a new name.
      if (
        await createFileExclusive(path.join(dir, `${stored.item_id}.json`), JSON.stringify(stored) + '\n')
      ) {
        return stored;
      }
    }
  }

  async list(queue: string): Promise<QueueItem[]> {
    assertDagName(queue, 'queue name');
    return this.itemsOf(queue, await this.itemIds(queue));
  }

  async queues(): Promise<string[]> {
    const names = await this.queueDirs();
    const nonEmpty = await mapConcurrently(
      names,
      FILE_READ_CONCURRENCY,
      async (name) => (await this.itemIds(name)).length > 0,
    );
    return names.filter((_, i) => nonEmpty[i]);
  }

  /** Each queue's directory is listed once: a backlog of thousands of items costs one listing per pass. */
  async listAll(): Promise<Map<string, QueueItem[]>> {
    const out = new Map<string, QueueItem[]>();
    for (const name of await this.queueDirs()) {
      const items = await this.itemsOf(name, await this.itemIds(name));
      if (items.length > 0) out.set(name, items);
    }
    return out;
  }

  /**
   * The items of `itemIds` (a listing of `queue`, oldest first). Item files never change once written (they
   * are only deleted), so each is read once per process: the queue consumer lists its queues several times
   * a second, and only the items new since the last listing cost a read.
   */
  private async itemsOf(queue: string, itemIds: string[]): Promise<QueueItem[]> {
    const cache = this.itemCache.get(queue) ?? new Map<string, QueueItem>();
    this.itemCache.set(queue, cache);
    const listed = new Set(itemIds);
    for (const id of cache.keys()) if (!listed.has(id)) cache.delete(id);
    const unread = itemIds.filter((itemId) => !cache.has(itemId));
    const read = await mapConcurrently(unread, FILE_READ_CONCURRENCY, (itemId) =>
      this.readItem(queue, itemId),
    );
    read.forEach((item, i) => {
      if (item) cache.set(unread[i], item);
    });
    const items: QueueItem[] = [];
    for (const itemId of itemIds) {
      const item = cache.get(itemId);
      if (item) items.push({ ...item });
    }
    return items;
  }

  async dequeue(queue: string, runId: string): Promise<boolean> {
    assertDagName(queue, 'queue name');
    assertRunId(runId);
    // The run's items as this process last listed them, without listing a backlog again: the queue
    // consumer dequeues each run it starts right after a listing. An item of the run added since that
    // listing stays; a queue pass removes the item of a run that is no longer queued when it meets it.
    // Nothing removed so (not listed, or dequeued by someone else first): the queue is listed.
    let removed = await this.unlinkItems(queue, runId, this.itemRunIds.get(queue));
    if (!removed) removed = await this.unlinkItems(queue, runId, await this.listNames(queue));
    return removed;
  }

  /** Unlinks each item of `runId` among `names` (item ID → run ID); true when one was removed by this call. */
  private async unlinkItems(queue: string, runId: string, names: Map<string, string> | undefined) {
    let removed = false;
    for (const [itemId, itemRunId] of names ?? []) {
      if (itemRunId !== runId) continue;
      try {
        await fs.unlink(path.join(this.queueRoot, queue, `${itemId}.json`));
        removed = true;
      } catch (err) {
        // Someone else dequeued it first: not ours to report as removed.
        if (errorCode(err) !== 'ENOENT') throw err;
      }
    }
    return removed;
  }

  async find(runId: string): Promise<QueueItem | null> {
    assertRunId(runId);
    for (const queue of await this.queueDirs()) {
      const names = await this.listNames(queue);
      const mine = [...names.keys()].filter((itemId) => names.get(itemId) === runId).sort();
      for (const itemId of mine) {
        const item = await this.readItem(queue, itemId);
        if (item) return item;
      }
    }
    return null;
  }

  /** The names of the queue directories, empty or not, sorted. */
  private async queueDirs(): Promise<string[]> {
    return (await readdirOrEmpty(this.queueRoot)).filter(isValidDagName).sort();
  }

  /** Item IDs of a queue, oldest first; temp files and foreign names are ignored. */
  private async itemIds(queue: string): Promise<string[]> {
    return [...(await this.listNames(queue)).keys()].sort();
  }

  /** The queue's item IDs, each with its run ID, in no particular order. */
  private async listNames(queue: string): Promise<Map<string, string>> {
    const names = await readdirOrEmpty(path.join(this.queueRoot, queue));
    const known = this.itemRunIds.get(queue);
    const runIds = new Map<string, string>();
    for (const name of names) {
      if (isTempName(name) || !name.endsWith('.json')) continue;
      const itemId = name.slice(0, -'.json'.length);
      const runId = known?.get(itemId) ?? runIdOfItem(itemId);
      if (runId !== null) runIds.set(itemId, runId);
    }
    if (runIds.size > 0) this.itemRunIds.set(queue, runIds);
    else this.itemRunIds.delete(queue);
    return runIds;
  }

  private async readItem(queue: string, itemId: string): Promise<QueueItem | null> {
    const file = path.join(this.queueRoot, queue, `${itemId}.json`);
    const result = await readJsonFile<QueueItem>(file, (value) => itemShapeError(value, queue, itemId));
    if (result.kind === 'ok') return result.value;
    if (result.kind === 'corrupt') this.report({ path: result.path, error: result.error });
    return null; // missing: dequeued between the listing and the read
  }
}

function itemShapeError(value: unknown, queue: string, itemId: string): string | null {
  if (typeof value !== 'object' || value === null) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.item_id !== itemId || v.queue !== queue) return 'item_id or queue does not match the file name';
  if (v.run_id !== runIdOfItem(itemId)) return 'run_id does not match the file name';
  if (typeof v.dag_name !== 'string' || !isValidDagName(v.dag_name)) return 'dag_name is missing or invalid';
  if (typeof v.enqueued_at !== 'string') return 'enqueued_at is missing';
  return null;
}
