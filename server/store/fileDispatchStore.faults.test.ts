// FileDispatchStore when the claim of a task cannot be written (a full disk): the file calls are wrapped so
// that a chosen call on a chosen path fails, and the test checks where the task is left.

import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testTask } from './dispatchStore.contract';
import type * as FileCalls from './fileCalls';
import { FileDispatchStore } from './fileDispatchStore';

/** A rule: the next `times` opens of a path matching `path` fail with `code`. */
interface Fault {
  path: RegExp;
  code: string;
  times: number;
}

const faults = vi.hoisted(() => ({ rules: [] as Fault[] }));

vi.mock('./fileCalls', async (importOriginal) => {
  const real = await importOriginal<typeof FileCalls>();
  return {
    ...real,
    open: async (file: string, flags: string, mode?: number) => {
      const rule = faults.rules.find((r) => r.times > 0 && r.path.test(file));
      if (rule) {
        rule.times--;
        throw Object.assign(new Error(`${rule.code}: injected open failure, '${file}'`), { code: rule.code });
      }
      return real.open(file, flags, mode);
    },
  };
});

describe('FileDispatchStore when a claim cannot be written', () => {
  let dataDir: string;
  let store: FileDispatchStore;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-dispatch-faults-'));
    store = new FileDispatchStore({ dataDir });
    faults.rules = [];
  });
  afterEach(async () => {
    faults.rules = [];
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it.each(['ENOSPC', 'EIO', 'EDQUOT'])(
    'gives an expired hold back to pending at once on %s, so the next pass takes it',
    async (code) => {
      const now = Date.now();
      const task = await store.enqueue(
        testTask({ run_id: 'r1', enqueued_at_ms: now - 5000, hold_until_ms: now - 1000, wait_ms: 4000 }),
      );
      faults.rules.push({ path: /cluster\/claims\//, code, times: 1 });

      await expect(store.takeExpiredHold(task.task_id, 'hold-expiry:coordinator', now)).rejects.toMatchObject(
        {
          code,
        },
      );

      // Not stranded in claims/ until the reservation TTL gives it back: pending, and taken at the next try.
      expect(await fs.readdir(path.join(dataDir, 'cluster', 'claims'))).toEqual([]);
      expect((await store.listPending()).map((t) => [t.run_id, t.claim])).toEqual([['r1', null]]);
      const taken = await store.takeExpiredHold(task.task_id, 'hold-expiry:coordinator', now);
      expect(taken?.claim?.worker_id).toBe('hold-expiry:coordinator');
    },
  );

  it.each(['ENOSPC', 'EDQUOT'])(
    'releases a claim with no room for a new file on %s: renamed back, read as unclaimed',
    async (code) => {
      const now = Date.now();
      const task = await store.enqueue(
        testTask({ run_id: 'r1', enqueued_at_ms: now - 5000, hold_until_ms: now - 1000, wait_ms: 4000 }),
      );
      const taken = await store.takeExpiredHold(task.task_id, 'hold-expiry:scheduler', now);
      faults.rules.push({ path: /cluster\//, code, times: 1000 });

      expect(await store.release(task.task_id, 'hold-expiry:scheduler', taken!.claim!.token)).toBe(true);

      expect(await fs.readdir(path.join(dataDir, 'cluster', 'claims'))).toEqual([]);
      // The file still carries the old claim's fields (it could not be rewritten); a pending task has none.
      const file = path.join(dataDir, 'cluster', 'pending', `${task.task_id}.json`);
      expect(JSON.parse(await fs.readFile(file, 'utf8')).claim).toMatchObject({
        worker_id: 'hold-expiry:scheduler',
      });
      expect(await store.listPending()).toEqual([task]);
      expect(await store.findByRun('r1')).toEqual(task);
      expect(await new FileDispatchStore({ dataDir }).listPending()).toEqual([task]);

      // Space is back: taken again at once, with a claim of its own.
      faults.rules = [];
      const again = await store.takeExpiredHold(task.task_id, 'hold-expiry:coordinator', now + 1);
      expect(again?.claim).toMatchObject({ worker_id: 'hold-expiry:coordinator', claimed_at_ms: now + 1 });
    },
  );

  it("gives a worker's claim back to pending at once when it cannot be written", async () => {
    const now = Date.now();
    await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
    faults.rules.push({ path: /cluster\/claims\//, code: 'ENOSPC', times: 1 });

    await expect(store.claimNext({ worker_id: 'w1', labels: {} }, now)).rejects.toMatchObject({
      code: 'ENOSPC',
    });

    expect((await store.claimNext({ worker_id: 'w1', labels: {} }, now))?.run_id).toBe('r1');
  });
});
