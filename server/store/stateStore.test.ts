import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStateStore, FILE_STATE_MAX_NAME_BYTES, STALE_LOCK_MS } from './fileStateStore';
import { MemoryStateStore } from './memoryStateStore';
import { describeStateStoreContract } from './stateStore.contract';
import { encodeStateValue, InvalidStateError } from './stateStore';

describeStateStoreContract('MemoryStateStore', async () => ({ store: new MemoryStateStore() }));

describeStateStoreContract('FileStateStore', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-state-'));
  return { store: new FileStateStore(dir), cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
});

describe('encodeStateValue', () => {
  it('writes compact JSON with object keys sorted at every depth', () => {
    expect(encodeStateValue({ z: 1, a: { y: [true, null], b: 'x' } })).toBe(
      '{"a":{"b":"x","y":[true,null]},"z":1}',
    );
    expect(encodeStateValue(undefined)).toBe('null');
  });
  it('refuses a value that is not finite JSON', () => {
    expect(() => encodeStateValue(Number.NaN)).toThrow(InvalidStateError);
  });
});

describe('FileStateStore on disk', () => {
  async function withDir(fn: (dir: string) => Promise<void>) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-state-'));
    try {
      await fn(dir);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }
  const ref = { scope: 'dag' as const, namespace: 'etl', key: 'k' };
  const file = (dir: string) =>
    path.join(dir, 'dag', Buffer.from('etl').toString('hex'), `${Buffer.from('k').toString('hex')}.json`);

  it('keeps each entry in a file named by the hex of its namespace and key', async () => {
    await withDir(async (dir) => {
      await new FileStateStore(dir).put(ref, '[1]');
      expect(JSON.parse(await fs.readFile(file(dir), 'utf8'))).toMatchObject({ value: '[1]', version: 1 });
    });
  });

  it('reports a corrupt entry, fails its read and compare-and-set, and lists without it', async () => {
    await withDir(async (dir) => {
      const reports: string[] = [];
      const store = new FileStateStore(dir, (r) => reports.push(r.error));
      await store.put(ref, '1');
      await store.put({ ...ref, key: 'ok' }, '2');
      await fs.writeFile(file(dir), '{trunc');
      await expect(store.get(ref)).rejects.toThrow(/is corrupt; delete it/);
      await expect(store.put(ref, '3', { expectedVersion: 1 })).rejects.toThrow(/is corrupt/);
      const listed = await store.list({ scope: 'dag', namespace: 'etl', keyPrefix: '', limit: 0 });
      expect(listed.map((e) => e.key)).toEqual(['ok']);
      expect(reports[0]).toMatch(/corrupt state entry/);
      expect((await store.put(ref, '3')).version).toBe(1);
    });
  });

  it("takes over a crashed writer's stale lock, and waits on a fresh one", async () => {
    await withDir(async (dir) => {
      const store = new FileStateStore(dir);
      const lock = path.join(path.dirname(file(dir)), 'lock');
      await fs.mkdir(path.dirname(lock), { recursive: true });
      await fs.writeFile(lock, '1 x\n');
      const old = new Date(Date.now() - STALE_LOCK_MS - 1000);
      await fs.utimes(lock, old, old);
      expect((await store.put(ref, '1')).version).toBe(1);
      await fs.writeFile(lock, '1 y\n');
      const pending = store.put(ref, '2');
      await new Promise((r) => setTimeout(r, 60));
      await fs.unlink(lock);
      expect((await pending).version).toBe(2);
    });
  });

  it('refuses a key too long for a file name', async () => {
    await withDir(async (dir) => {
      await expect(
        new FileStateStore(dir).put({ ...ref, key: 'k'.repeat(FILE_STATE_MAX_NAME_BYTES + 1) }, '1'),
      ).rejects.toThrow(/longer than 120 bytes/);
    });
  });
});
