// The behaviour every ArtifactStore must have; run against the file, memory and PostgreSQL stores.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreFixture } from './runStore.contract';
import {
  ArtifactTooLargeError,
  InvalidArtifactPathError,
  MAX_ARTIFACT_BYTES,
  type ArtifactStore,
} from './artifactStore';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null) => (data === null ? null : new TextDecoder().decode(data));

/**
 * `make` returns a store in which the runs `run-a` and `run-b` exist (a database store's rows hang on
 * their run).
 */
export function describeArtifactStoreContract(
  name: string,
  make: () => Promise<StoreFixture<ArtifactStore>>,
) {
  describe(`${name} (ArtifactStore contract)`, () => {
    let fixture: StoreFixture<ArtifactStore>;
    let store: ArtifactStore;
    beforeEach(async () => {
      fixture = await make();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('lists nothing for a run without artifacts', async () => {
      expect(await store.list('run-a')).toEqual([]);
      expect(await store.read('run-a', 'a.txt')).toBeNull();
    });

    it('reads back what was put, lists it sorted by path with sizes, per run', async () => {
      await store.put('run-a', 'reports/b.md', bytes('bee'));
      await store.put('run-a', 'a.txt', bytes('a'));
      await store.put('run-b', 'other.txt', bytes('xx'));
      expect(await store.list('run-a')).toEqual([
        { path: 'a.txt', size: 1 },
        { path: 'reports/b.md', size: 3 },
      ]);
      expect(text(await store.read('run-a', 'reports/b.md'))).toBe('bee');
      expect(text(await store.read('run-a', './reports//b.md'))).toBe('bee');
      expect(await store.read('run-a', 'other.txt')).toBeNull();
    });

    it('replaces an artifact put again', async () => {
      await store.put('run-a', 'a.txt', bytes('one'));
      await store.put('run-a', 'a.txt', bytes('three'));
      expect(await store.list('run-a')).toEqual([{ path: 'a.txt', size: 5 }]);
      expect(text(await store.read('run-a', 'a.txt'))).toBe('three');
    });

    it('keeps binary content as it is', async () => {
      const data = new Uint8Array([0, 255, 1, 254, 10]);
      await store.put('run-a', 'bin', data);
      expect([...(await store.read('run-a', 'bin'))!]).toEqual([...data]);
    });

    it('refuses hostile paths and run IDs', async () => {
      for (const p of ['../x', '/etc/passwd', 'a/../../x', '', '.'])
        await expect(store.read('run-a', p)).rejects.toThrow(InvalidArtifactPathError);
      await expect(store.put('run-a', '../x', bytes('x'))).rejects.toThrow(InvalidArtifactPathError);
      await expect(store.list('../run-a')).rejects.toThrow(InvalidArtifactPathError);
    });

    it('refuses an artifact over the size limit with a clear error', async () => {
      await expect(store.put('run-a', 'big', new Uint8Array(MAX_ARTIFACT_BYTES + 1))).rejects.toThrow(
        ArtifactTooLargeError,
      );
      expect(await store.list('run-a')).toEqual([]);
    });

    it('removes every artifact of one run', async () => {
      await store.put('run-a', 'a.txt', bytes('a'));
      await store.put('run-b', 'b.txt', bytes('b'));
      await store.removeRun('run-a');
      await store.removeRun('run-a');
      expect(await store.list('run-a')).toEqual([]);
      expect(await store.list('run-b')).toEqual([{ path: 'b.txt', size: 1 }]);
    });
  });
}
