// FileDispatchStore when the claim of a task cannot be written (a full disk): the file calls are wrapped so
// that a chosen call on a chosen path fails, and the test checks where the task is left.

import { promises as fs, readdirSync } from 'node:fs';
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

const faults = vi.hoisted(() => ({
  rules: [] as Fault[],
  /** Called before and after every file call of the store, to look at the files in between. */
  observe: null as (() => void) | null,
  /** The same, awaited, for a look through a store (whose own file calls are not looked at). */
  look: null as (() => Promise<void>) | null,
  looking: false,
  /** Run once, before the next open of a matching path: another process acting at that very moment. */
  beforeOpen: null as { path: RegExp; run: () => Promise<void> } | null,
  /** The same before the next rename from a matching path. */
  beforeRename: null as { path: RegExp; run: () => Promise<void> } | null,
}));

vi.mock('./fileCalls', async (importOriginal) => {
  const real = await importOriginal<typeof FileCalls>();
  const observed =
    (call: (...args: never[]) => Promise<unknown>) =>
    async (...args: never[]) => {
      const between = async () => {
        if (faults.looking) return;
        faults.observe?.();
        faults.looking = true;
        try {
          await faults.look?.();
        } finally {
          faults.looking = false;
        }
      };
      await between();
      try {
        return await call(...args);
      } finally {
        await between();
      }
    };
  return {
    ...real,
    open: observed(async (file: string, flags: string, mode?: number) => {
      const before = faults.beforeOpen;
      if (before?.path.test(file)) {
        faults.beforeOpen = null;
        await before.run();
      }
      const rule = faults.rules.find((r) => r.times > 0 && r.path.test(file));
      if (rule) {
        rule.times--;
        throw Object.assign(new Error(`${rule.code}: injected open failure, '${file}'`), { code: rule.code });
      }
      return real.open(file, flags, mode);
    }),
    close: observed(real.close),
    fsync: observed(real.fsync),
    writeAll: observed(real.writeAll),
    readText: observed(real.readText),
    readdir: observed(real.readdir),
    mkdir: observed(real.mkdir),
    stat: observed(real.stat),
    rename: observed(async (from: string, to: string) => {
      const before = faults.beforeRename;
      if (before?.path.test(from)) {
        faults.beforeRename = null;
        await before.run();
      }
      return real.rename(from, to);
    }),
    link: observed(real.link),
    unlink: observed(real.unlink),
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
    faults.observe = null;
    faults.look = null;
    faults.beforeOpen = null;
    faults.beforeRename = null;
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

  describe('gives a claim back in one step: at no file call is the task in two places, or in none', () => {
    /** Where the task's file is: pending, claimed, or being given back (temp files are not the task). */
    const placesOf = (taskId: string) => {
      const names = (dir: string) => {
        try {
          return readdirSync(path.join(dataDir, 'cluster', dir)).map((name) => `${dir}/${name}`);
        } catch {
          return [];
        }
      };
      return [...names('pending'), ...names('claims')].filter(
        (name) =>
          name === `pending/${taskId}.json` ||
          name === `claims/${taskId}.json` ||
          name.startsWith(`claims/${taskId}.json.returning-`),
      );
    };
    /**
     * Records the places of the task at every file call from now on, and whether another process's store
     * finds the run's task there and then (a run with no task may be failed, or dispatched a second time).
     */
    const watch = (taskId: string) => {
      const seen = { places: [] as string[][], looks: 0, unfound: 0 };
      const other = new FileDispatchStore({ dataDir });
      faults.observe = () => seen.places.push(placesOf(taskId));
      faults.look = async () => {
        seen.looks++;
        if ((await other.findByRun('r1'))?.task_id !== taskId) seen.unfound++;
      };
      return seen;
    };
    /** The looks at which the task was not in exactly one place, or not found by findByRun. */
    const oneEach = (seen: ReturnType<typeof watch>) => {
      expect(seen.looks).toBeGreaterThan(2);
      return [...seen.places.filter((places) => places.length !== 1), ...(seen.unfound > 0 ? [seen] : [])];
    };

    it('on release with room to rewrite the file', async () => {
      const now = Date.now();
      const task = await store.enqueue(
        testTask({ run_id: 'r1', enqueued_at_ms: now - 5000, hold_until_ms: now - 1000, wait_ms: 4000 }),
      );
      const taken = await store.takeExpiredHold(task.task_id, 'hold-expiry:scheduler', now);
      const seen = watch(task.task_id);

      expect(await store.release(task.task_id, 'hold-expiry:scheduler', taken!.claim!.token)).toBe(true);

      expect(oneEach(seen)).toEqual([]);
      expect(placesOf(task.task_id)).toEqual([`pending/${task.task_id}.json`]);
      const file = path.join(dataDir, 'cluster', 'pending', `${task.task_id}.json`);
      expect(JSON.parse(await fs.readFile(file, 'utf8'))).toEqual(task);
      expect(await new FileDispatchStore({ dataDir }).listPending()).toEqual([task]);
    });

    it.each(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS'])(
      'on release with no room for a new file (%s)',
      async (code) => {
        const now = Date.now();
        const task = await store.enqueue(
          testTask({ run_id: 'r1', enqueued_at_ms: now - 5000, hold_until_ms: now - 1000, wait_ms: 4000 }),
        );
        const taken = await store.takeExpiredHold(task.task_id, 'hold-expiry:scheduler', now);
        faults.rules.push({ path: /cluster\//, code, times: 1000 });
        const seen = watch(task.task_id);

        expect(await store.release(task.task_id, 'hold-expiry:scheduler', taken!.claim!.token)).toBe(true);

        expect(oneEach(seen)).toEqual([]);
        expect(placesOf(task.task_id)).toEqual([`pending/${task.task_id}.json`]);
        expect(await new FileDispatchStore({ dataDir }).listPending()).toEqual([task]);
      },
    );

    it('on recycle of a claim whose claimer is gone', async () => {
      const now = Date.now();
      const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
      await store.claimNext({ worker_id: 'w1', labels: {} }, now);
      const seen = watch(task.task_id);

      const { returned } = await store.recycle(now + 31_000, 30_000);

      expect(returned).toEqual([{ ...task, enqueued_at_ms: now + 31_000 }]);
      expect(oneEach(seen)).toEqual([]);
      expect(placesOf(task.task_id)).toEqual([`pending/${task.task_id}.json`]);
      expect(await new FileDispatchStore({ dataDir }).listPending()).toEqual(returned);
    });

    it('leaves a recycled claim where it is when its new enqueue time cannot be written', async () => {
      const now = Date.now();
      const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
      await store.claimNext({ worker_id: 'w1', labels: {} }, now);
      faults.rules.push({ path: /cluster\//, code: 'ENOSPC', times: 1000 });
      const seen = watch(task.task_id);

      await expect(store.recycle(now + 31_000, 30_000)).rejects.toMatchObject({ code: 'ENOSPC' });

      // Not given back with its old enqueue time (it would be expired at once as unclaimed for too long).
      expect(oneEach(seen)).toEqual([]);
      expect(await store.listPending()).toEqual([]);
      const [left] = placesOf(task.task_id);
      expect(left).toMatch(/^claims\/.*\.returning-/);

      // Space is back: a later pass gives it back, once.
      faults.rules = [];
      const later = Date.now() + 31_000;
      expect((await store.recycle(later, 30_000)).returned).toEqual([{ ...task, enqueued_at_ms: later }]);
      expect(placesOf(task.task_id)).toEqual([`pending/${task.task_id}.json`]);
    });
  });

  describe('recycle never gives back a claim its claimer is writing', () => {
    it('one given back with no room, whose old claim fields a new claimer brings along', async () => {
      const now = Date.now();
      const task = await store.enqueue(
        testTask({
          run_id: 'r1',
          enqueued_at_ms: now - 120_000,
          hold_until_ms: now - 90_000,
          wait_ms: 30_000,
        }),
      );
      // Taken a minute ago, and given back with no room to rewrite the file: it keeps that claim's fields.
      const taken = await store.takeExpiredHold(task.task_id, 'hold-expiry:scheduler', now - 60_000);
      faults.rules.push({ path: /cluster\//, code: 'ENOSPC', times: 1000 });
      expect(await store.release(task.task_id, 'hold-expiry:scheduler', taken!.claim!.token)).toBe(true);
      faults.rules = [];
      const pendingFile = path.join(dataDir, 'cluster', 'pending', `${task.task_id}.json`);
      await fs.utimes(pendingFile, (now - 60_000) / 1000, (now - 60_000) / 1000);

      // Taken again; between its rename into claims/ and the write of its own claim, another process
      // recycles: the fields it finds say a minute old, but the claim is being made this instant.
      const other = new FileDispatchStore({ dataDir });
      let recycled: Awaited<ReturnType<FileDispatchStore['recycle']>> | undefined;
      faults.beforeOpen = {
        path: /cluster\/claims\/\..*\.tmp-/,
        run: async () => {
          recycled = await other.recycle(now, 30_000);
        },
      };
      const again = await store.takeExpiredHold(task.task_id, 'hold-expiry:coordinator', now);

      expect(recycled).toEqual({ returned: [], expired: [] });
      expect(again?.claim).toMatchObject({ worker_id: 'hold-expiry:coordinator', claimed_at_ms: now });
      expect(await store.listPending()).toEqual([]);
      expect(await store.listClaims()).toEqual([again]);
      // That claim does expire, a TTL after it was made.
      expect((await other.recycle(now + 30_001, 30_000)).returned).toEqual([
        { ...task, enqueued_at_ms: now + 30_001 },
      ]);
    });

    it('one whose claimer writes it between the look and the rename', async () => {
      const now = Date.now();
      const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
      // A claimer between its rename and its write (file times: now), seen by a recycler a TTL later.
      const claimFile = path.join(dataDir, 'cluster', 'claims', `${task.task_id}.json`);
      await fs.rename(path.join(dataDir, 'cluster', 'pending', `${task.task_id}.json`), claimFile);
      const claimed = { ...task, claim: { worker_id: 'w1', token: 'live', claimed_at_ms: now + 31_000 } };
      faults.beforeRename = {
        path: /cluster\/claims\/[^/]*\.json$/,
        run: async () => {
          await fs.writeFile(`${claimFile}.new`, JSON.stringify(claimed));
          await fs.rename(`${claimFile}.new`, claimFile);
        },
      };

      expect(await store.recycle(now + 31_000, 30_000)).toEqual({ returned: [], expired: [] });

      expect(await store.listPending()).toEqual([]);
      expect(await store.listClaims()).toEqual([claimed]);
      expect(await store.ack(task.task_id, 'w1', 'live')).toMatchObject({ ok: true });
    });
  });
});
