// Upgrading a home of an earlier version, whose distributed stores lived in data/distributed, when Dagu 2.x
// keeps its own files in the same directories: ours move to data/cluster, Dagu's stay byte for byte.

import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testTask } from './dispatchStore.contract';
import { FileCancelRequests } from './fileCancelRequests';
import { FileDispatchStore } from './fileDispatchStore';
import { FileWorkerRegistry } from './fileWorkerRegistry';
import { adoptLegacyFiles } from './legacyDistributed';

/** Files Dagu 2.x writes under data/distributed (shapes from its file backend), by relative path. */
const DAGU_FILES: Record<string, string> = {
  'pending/task_00000001796169600000_5b7e6f0a-2f43-4c61-9a1e-0c6f1d2e3a4b.json':
    '{"version":1,"task":{"RootDAGRunName":"etl","RootDAGRunID":"019a1c2e","Operation":1,"DAGRunID":"019a1c2e",' +
    '"Target":"etl","WorkerSelector":{"zone":"a"}},"taskFileName":' +
    '"task_00000001796169600000_5b7e6f0a-2f43-4c61-9a1e-0c6f1d2e3a4b.json","enqueuedAt":1796169600000}',
  'claims/claim_3f0c5a0e8f5b1e4d9a7c2b6d8e1f0a3b5c7d9e2f4a6b8c0d1e3f5a7b9c1d3e5f.json':
    '{"version":1,"task":{"Operation":1,"DAGRunID":"019a1c2f","Target":"etl"},"taskFileName":"task_x.json",' +
    '"enqueuedAt":1796169600000,"claimToken":"c0ffee","claimedAt":1796169601000,"workerId":"w-dagu"}',
  'workers/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.json':
    '{"workerId":"w-dagu","labels":{"zone":"a"},"lastHeartbeatAt":1796169600000}',
  'leases/7d1a54127b222502f5b79b5fb0803061152a44f92b37e23c6527baf665d4da9a.json':
    '{"attemptKey":"etl:019a1c2f","claimToken":"c0ffee","lastHeartbeatAt":1796169600000}',
};

describe('adopting the distributed stores of an earlier version', () => {
  let dataDir: string;
  const legacy = (rel: string) => path.join(dataDir, 'distributed', rel);
  const cluster = (rel: string) => path.join(dataDir, 'cluster', rel);

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-legacy-dist-'));
    for (const [rel, text] of Object.entries(DAGU_FILES)) {
      await fs.mkdir(path.dirname(legacy(rel)), { recursive: true });
      await fs.writeFile(legacy(rel), text);
    }
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function expectDaguFilesUntouched(): Promise<void> {
    for (const [rel, text] of Object.entries(DAGU_FILES)) {
      expect(await fs.readFile(legacy(rel), 'utf8'), rel).toBe(text);
    }
  }

  /** Our pending and claimed task as an earlier version left them in data/distributed. */
  async function writeOldTasks(now: number) {
    const old = new FileDispatchStore({ dataDir: path.join(dataDir, 'old') });
    const waiting = await old.enqueue(testTask({ run_id: 'waiting', enqueued_at_ms: now }));
    await old.enqueue(testTask({ run_id: 'claimed', enqueued_at_ms: now + 1 }));
    const claimed = (await old.claimNext({ worker_id: 'w1', labels: {} }, now))!;
    // Move them where an earlier version kept them (the old store wrote to its own data/cluster).
    await fs.rename(path.join(dataDir, 'old', 'cluster', 'pending'), legacy('pending-ours'));
    await fs.rename(path.join(dataDir, 'old', 'cluster', 'claims'), legacy('claims-ours'));
    for (const dir of ['pending', 'claims']) {
      for (const name of await fs.readdir(legacy(`${dir}-ours`))) {
        await fs.rename(path.join(legacy(`${dir}-ours`), name), path.join(legacy(dir), name));
      }
      await fs.rmdir(legacy(`${dir}-ours`));
    }
    return { claimed, pendingRun: waiting.run_id === claimed.run_id ? 'claimed' : 'waiting' };
  }

  it('moves our pending and claimed tasks to data/cluster and leaves Dagu task files alone', async () => {
    const now = Date.now();
    const { claimed, pendingRun } = await writeOldTasks(now);
    const store = new FileDispatchStore({ dataDir });
    // The claim made before the upgrade is acknowledged where it now lives.
    expect(await store.ack(claimed.task_id, 'w1', claimed.claim!.token)).toMatchObject({ ok: true });
    const next = await store.claimNext({ worker_id: 'w2', labels: {} }, now);
    expect(next?.run_id).toBe(pendingRun);
    expect(await fs.readdir(cluster('claims'))).toEqual([`${next!.task_id}.json`]);
    // Only Dagu's files are left in the old directories; none of them was read as a task of ours.
    expect((await fs.readdir(legacy('pending'))).sort()).toEqual([
      'task_00000001796169600000_5b7e6f0a-2f43-4c61-9a1e-0c6f1d2e3a4b.json',
    ]);
    expect(await store.claimNext({ worker_id: 'w3', labels: { zone: 'a' } }, now)).toBeNull();
    expect(await store.listClaims()).toHaveLength(1);
    await expectDaguFilesUntouched();
  });

  it("never reads Dagu's worker heartbeats as worker records", async () => {
    const registry = new FileWorkerRegistry({ dataDir });
    expect(await registry.list()).toEqual([]);
    await expectDaguFilesUntouched();
  });

  it('moves our cancel requests and leaves a file of another shape in place', async () => {
    await fs.mkdir(legacy('cancels'), { recursive: true });
    await fs.writeFile(legacy('cancels/r1'), '{"run_id":"r1","requested_at_ms":1}\n');
    await fs.writeFile(legacy('cancels/r2'), '{"runId":"r2"}');
    const cancels = new FileCancelRequests({ dataDir });
    expect(await cancels.list()).toEqual(['r1']);
    expect(await fs.readFile(cluster('cancels/r1'), 'utf8')).toBe('{"run_id":"r1","requested_at_ms":1}\n');
    expect(await fs.readdir(legacy('cancels'))).toEqual(['r2']);
    await expectDaguFilesUntouched();
  });

  it('moves nothing for a store opened with adoptLegacy false (a reader that must not write)', async () => {
    const now = Date.now();
    await writeOldTasks(now);
    await fs.mkdir(legacy('cancels'), { recursive: true });
    await fs.writeFile(legacy('cancels/r1'), '{"run_id":"r1","requested_at_ms":1}\n');
    const before = (await fs.readdir(legacy('pending'))).concat(await fs.readdir(legacy('claims')));
    const tasks = new FileDispatchStore({ dataDir, adoptLegacy: false });
    expect(await tasks.listPending()).toEqual([]);
    expect(await tasks.listClaims()).toEqual([]);
    expect(await new FileCancelRequests({ dataDir, adoptLegacy: false }).requests()).toEqual([]);
    expect((await fs.readdir(legacy('pending'))).concat(await fs.readdir(legacy('claims')))).toEqual(before);
    expect(await fs.readdir(legacy('cancels'))).toEqual(['r1']);
    await expect(fs.stat(cluster('pending'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expectDaguFilesUntouched();
  });

  it('keeps a file already present in the new directory and the old one where it was', async () => {
    await fs.mkdir(cluster('x'), { recursive: true });
    await fs.mkdir(legacy('x'), { recursive: true });
    await fs.writeFile(cluster('x/a'), 'new');
    await fs.writeFile(legacy('x/a'), 'old');
    await fs.writeFile(legacy('x/b'), 'old');
    const moved = await adoptLegacyFiles({
      from: legacy('x'),
      to: cluster('x'),
      isOurName: () => true,
      isOurs: () => true,
    });
    expect(moved).toEqual(['b']);
    expect(await fs.readFile(cluster('x/a'), 'utf8')).toBe('new');
    expect(await fs.readFile(legacy('x/a'), 'utf8')).toBe('old');
  });

  it('does nothing when there is no old directory', async () => {
    const moved = await adoptLegacyFiles({
      from: path.join(dataDir, 'nowhere'),
      to: cluster('y'),
      isOurName: () => true,
      isOurs: () => true,
    });
    expect(moved).toEqual([]);
    await expect(fs.stat(cluster('y'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
