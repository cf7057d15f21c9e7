import nodeFs, { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { blockFileCallsWhile } from './fileCalls';
import { FileQueueStore } from './fileQueueStore';
import type { CorruptFileReport } from './fsutil';
import { describeQueueStoreContract } from './queueStore.contract';

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-queue-'));
}

describeQueueStoreContract('FileQueueStore', async () => {
  const dataDir = await tempDataDir();
  return {
    store: new FileQueueStore({ dataDir }),
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describeQueueStoreContract('FileQueueStore, blocking file calls', async () => {
  const dataDir = await tempDataDir();
  blockFileCallsWhile(() => true);
  return {
    store: new FileQueueStore({ dataDir }),
    cleanup: async () => {
      blockFileCallsWhile(() => false);
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
});

describe('FileQueueStore on disk', () => {
  let dataDir: string;
  let reports: CorruptFileReport[];
  let queue: FileQueueStore;
  const item = (run_id: string) => ({
    queue: 'etl',
    run_id,
    dag_name: 'etl',
    enqueued_at: new Date().toISOString(),
  });

  beforeEach(async () => {
    dataDir = await tempDataDir();
    reports = [];
    queue = new FileQueueStore({ dataDir, onCorrupt: (r) => reports.push(r) });
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('skips and reports a corrupt item once, keeps its file, and serves the items around it', async () => {
    await queue.enqueue(item('a'));
    const broken = await queue.enqueue(item('b'));
    await queue.enqueue(item('c'));
    const file = path.join(dataDir, 'queue', 'etl', `${broken.item_id}.json`);
    await fs.writeFile(file, '{"queue":"etl","run');
    expect((await queue.list('etl')).map((i) => i.run_id)).toEqual(['a', 'c']);
    expect((await queue.list('etl')).map((i) => i.run_id)).toEqual(['a', 'c']);
    expect(await queue.find('b')).toBeNull();
    expect(reports).toEqual([{ path: file, error: expect.stringMatching(/invalid JSON/) }]);
    await expect(fs.readFile(file, 'utf8')).resolves.toBe('{"queue":"etl","run');
    // The broken item can still be dequeued by run ID: its name says whose it is.
    expect(await queue.dequeue('etl', 'b')).toBe(true);
  });

  it('ignores temp files and foreign files in a queue directory', async () => {
    await queue.enqueue(item('a'));
    const dir = path.join(dataDir, 'queue', 'etl');
    await fs.writeFile(path.join(dir, '.x.json.tmp-1-abc'), 'half');
    await fs.writeFile(path.join(dir, 'README'), 'hello');
    expect((await queue.list('etl')).map((i) => i.run_id)).toEqual(['a']);
    expect(reports).toEqual([]);
  });

  it('dequeues a run whose item changed since this store listed it, and a run it never listed', async () => {
    await queue.enqueue(item('a'));
    await queue.enqueue(item('b'));
    expect((await queue.list('etl')).map((i) => i.run_id)).toEqual(['a', 'b']);
    // Another host takes run a's listed item and queues the run again under a new item name.
    const other = new FileQueueStore({ dataDir });
    expect(await other.dequeue('etl', 'a')).toBe(true);
    await other.enqueue(item('a'));
    expect(await queue.dequeue('etl', 'a')).toBe(true);
    expect(await queue.dequeue('etl', 'a')).toBe(false);
    // A run enqueued after this store's last listing.
    await other.enqueue(item('c'));
    expect(await queue.dequeue('etl', 'c')).toBe(true);
    expect((await other.list('etl')).map((i) => i.run_id)).toEqual(['b']);
  });

  it('lists each queue directory once for all of its items', async () => {
    for (const id of ['a', 'b', 'c']) await queue.enqueue(item(id));
    await queue.enqueue({ ...item('d'), queue: 'other' });
    const listings = vi.spyOn(nodeFs, 'readdir');
    try {
      const all = await queue.listAll();
      expect([...all].map(([name, items]) => [name, items.map((i) => i.run_id)])).toEqual([
        ['etl', ['a', 'b', 'c']],
        ['other', ['d']],
      ]);
      expect(listings.mock.calls.map((c) => path.relative(dataDir, String(c[0]))).sort()).toEqual([
        'queue',
        'queue/etl',
        'queue/other',
      ]);
    } finally {
      listings.mockRestore();
    }
  });

  it('keeps every item when several store instances enqueue at once', async () => {
    const stores = [queue, new FileQueueStore({ dataDir }), new FileQueueStore({ dataDir })];
    await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3].enqueue(item(`r${i}`))));
    expect((await queue.list('etl')).map((i) => i.run_id).sort()).toEqual(
      Array.from({ length: 30 }, (_, i) => `r${i}`).sort(),
    );
    expect((await fs.readdir(path.join(dataDir, 'queue', 'etl'))).every((n) => !n.startsWith('.'))).toBe(
      true,
    );
  });
});
