import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingLogger } from '../testing/recordingLogger';
import { describeDispatchStoreContract, testTask } from './dispatchStore.contract';
import { FileDispatchStore } from './fileDispatchStore';

const SECOND = 1000;
const TTL = 30 * SECOND;

async function tempDataDir(): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), 'dagu-dispatch-'));
}

describeDispatchStoreContract(
  'FileDispatchStore',
  async () => {
    const dataDir = await tempDataDir();
    return {
      store: new FileDispatchStore({ dataDir }),
      cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
    };
  },
  // Claims without claim fields are dated by file times, so the suite runs on the real clock.
  { durable: true, baseMs: () => Date.now() },
);

describe('FileDispatchStore on disk', () => {
  let dataDir: string;
  let logger: RecordingLogger;
  let store: FileDispatchStore;
  let pendingDir: string;
  let claimsDir: string;
  const worker = { worker_id: 'w1', labels: {} };

  beforeEach(async () => {
    dataDir = await tempDataDir();
    logger = new RecordingLogger();
    store = new FileDispatchStore({ dataDir, logger });
    pendingDir = path.join(dataDir, 'cluster', 'pending');
    claimsDir = path.join(dataDir, 'cluster', 'claims');
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('keeps a task as one file that moves from pending to claims and carries the claim', async () => {
    const now = Date.now();
    const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
    expect(await fs.readdir(pendingDir)).toEqual([`${task.task_id}.json`]);
    expect(JSON.parse(await fs.readFile(path.join(pendingDir, `${task.task_id}.json`), 'utf8'))).toEqual(
      task,
    );
    const claimed = (await store.claimNext(worker, now))!;
    expect(await fs.readdir(pendingDir)).toEqual([]);
    expect(await fs.readdir(claimsDir)).toEqual([`${task.task_id}.json`]);
    expect(JSON.parse(await fs.readFile(path.join(claimsDir, `${task.task_id}.json`), 'utf8'))).toEqual(
      claimed,
    );
  });

  it('keeps held tasks across a restart of the coordinator', async () => {
    const now = Date.now();
    const held = await store.enqueue(
      testTask({
        run_id: 'held',
        enqueued_at_ms: now,
        hold_until_ms: now + 120 * SECOND,
        wait_ms: 120 * SECOND,
      }),
    );
    const restarted = new FileDispatchStore({ dataDir });
    expect(await restarted.listPending()).toEqual([held]);
    expect(await restarted.findByRun('held')).toEqual(held);
  });

  it('never gives one task to two store instances claiming at once', async () => {
    const now = Date.now();
    for (let i = 0; i < 20; i++) await store.enqueue(testTask({ run_id: `r${i}`, enqueued_at_ms: now + i }));
    const stores = [store, new FileDispatchStore({ dataDir }), new FileDispatchStore({ dataDir })];
    const claimAll = async (s: FileDispatchStore, id: string) => {
      const got: string[] = [];
      for (
        let t = await s.claimNext({ worker_id: id, labels: {} }, now);
        t;
        t = await s.claimNext({ worker_id: id, labels: {} }, now)
      ) {
        got.push(t.run_id);
      }
      return got;
    };
    const results = await Promise.all(stores.map((s, i) => claimAll(s, `w${i}`)));
    const all = results.flat();
    expect(all.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}`).sort());
    expect(new Set(all).size).toBe(20);
  });

  it('reads each pending file once rather than on every poll, until the index is rebuilt', async () => {
    const now = Date.now();
    const held = [];
    for (let i = 0; i < 50; i++) {
      held.push(
        await store.enqueue(
          testTask({ run_id: `h${i}`, enqueued_at_ms: now + i, hold_until_ms: now, wait_ms: 0 }),
        ),
      );
    }
    const poller = new FileDispatchStore({ dataDir, logger });
    expect(await poller.claimNext(worker, now)).toBeNull();
    // Were a poll to read the files, it would now find them all corrupt.
    for (const task of held) await fs.writeFile(path.join(pendingDir, `${task.task_id}.json`), '{"broken');
    for (let i = 0; i < 5; i++) expect(await poller.claimNext(worker, now)).toBeNull();
    expect(logger.find('corrupt')).toEqual([]);
    await poller.rebuildIndex();
    expect(logger.find('corrupt')).toHaveLength(50);
  });

  it('skips and logs a corrupt task once, keeps its file, and serves the tasks around it', async () => {
    const now = Date.now();
    await store.enqueue(testTask({ run_id: 'a', enqueued_at_ms: now }));
    const broken = await store.enqueue(testTask({ run_id: 'b', enqueued_at_ms: now + 1 }));
    await store.enqueue(testTask({ run_id: 'c', enqueued_at_ms: now + 2 }));
    const file = path.join(pendingDir, `${broken.task_id}.json`);
    await fs.writeFile(file, JSON.stringify({ ...broken, task_id: 'other' }));
    const fresh = new FileDispatchStore({ dataDir, logger });
    expect((await fresh.listPending()).map((t) => t.run_id)).toEqual(['a', 'c']);
    expect((await fresh.claimNext(worker, now))?.run_id).toBe('a');
    expect((await fresh.claimNext(worker, now))?.run_id).toBe('c');
    expect(await fresh.claimNext(worker, now)).toBeNull();
    expect(await fresh.findByRun('b')).toBeNull();
    expect(logger.find('corrupt')).toEqual([
      expect.objectContaining({
        level: 'warn',
        fields: { path: file, error: expect.stringMatching(/task_id/) },
      }),
    ]);
    expect(await fs.readdir(pendingDir)).toEqual([`${broken.task_id}.json`]);
    expect((await fresh.recycle(now + 10 * TTL, TTL)).expired).toEqual([]);
    await expect(fs.readFile(file, 'utf8')).resolves.toContain('"task_id":"other"');
  });

  it('ignores temp files and foreign files in the task directories', async () => {
    const now = Date.now();
    const task = await store.enqueue(testTask({ run_id: 'a', enqueued_at_ms: now }));
    await fs.writeFile(path.join(pendingDir, `.${task.task_id}.json.tmp-1-abc`), 'half');
    await fs.writeFile(path.join(pendingDir, 'README'), 'hello');
    await fs.writeFile(path.join(claimsDir, 'notes.json'), '{}');
    expect(await store.listPending()).toEqual([task]);
    expect(await store.listClaims()).toEqual([]);
    expect(await store.recycle(now + 10 * TTL, TTL)).toMatchObject({ returned: [] });
    expect(logger.lines).toEqual([]);
  });

  it('dates a claim file without claim fields by its file time', async () => {
    const now = Date.now();
    const task = await store.enqueue(
      testTask({
        run_id: 'r1',
        enqueued_at_ms: now - 10 * TTL,
        hold_until_ms: now + 10 * TTL,
        wait_ms: 20 * TTL,
      }),
    );
    // A claimer that renamed the task and died before writing its claim.
    await fs.rename(
      path.join(pendingDir, `${task.task_id}.json`),
      path.join(claimsDir, `${task.task_id}.json`),
    );
    expect(await store.listClaims()).toEqual([task]);
    expect(await store.ack(task.task_id, 'w1', 'x')).toEqual({ ok: false, reason: 'wrong_worker' });
    expect(await store.recycle(Date.now() + TTL / 2, TTL)).toEqual({ returned: [], expired: [] });
    const later = Date.now() + TTL + SECOND;
    const { returned } = await store.recycle(later, TTL);
    expect(returned).toEqual([{ ...task, enqueued_at_ms: later }]);
    expect(await store.claimNext(worker, later)).toMatchObject({
      task_id: task.task_id,
      claim: { worker_id: 'w1' },
    });
  });

  it('finishes giving back a claim whose returner died halfway', async () => {
    const now = Date.now();
    const task = await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
    const claimed = (await store.claimNext(worker, now))!;
    const halfway = path.join(claimsDir, `${task.task_id}.json.returning-0badc0de`);
    await fs.rename(path.join(claimsDir, `${task.task_id}.json`), halfway);
    expect(await store.ack(task.task_id, 'w1', claimed.claim!.token)).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await store.recycle(Date.now(), TTL)).toEqual({ returned: [], expired: [] });
    const later = Date.now() + TTL + SECOND;
    expect(await store.recycle(later, TTL)).toEqual({
      returned: [{ ...task, enqueued_at_ms: later }],
      expired: [],
    });
    expect(await fs.readdir(claimsDir)).toEqual([]);
    expect(await store.listPending()).toEqual([{ ...task, enqueued_at_ms: later }]);
  });

  it('leaves no temp files behind', async () => {
    const now = Date.now();
    await store.enqueue(testTask({ run_id: 'r1', enqueued_at_ms: now }));
    await store.claimNext(worker, now);
    await store.recycle(now + TTL + 1, TTL);
    const names = [...(await fs.readdir(pendingDir)), ...(await fs.readdir(claimsDir))];
    expect(names.every((n) => !n.startsWith('.'))).toBe(true);
  });
});
