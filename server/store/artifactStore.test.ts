import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeArtifactStoreContract } from './artifactStore.contract';
import { MemoryArtifactStore } from './artifactStore';
import {
  artifactsFolderName,
  FileArtifactStore,
  recordArtifactsDir,
  recordedArtifactsDir,
} from './fileArtifactStore';

describeArtifactStoreContract('MemoryArtifactStore', async () => ({ store: new MemoryArtifactStore() }));

describeArtifactStoreContract('FileArtifactStore', async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-artifacts-'));
  return { store: new FileArtifactStore(dir), cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
});

describe('FileArtifactStore on disk', () => {
  it("reads the run's own folder, skipping symlinks and never following one out", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-artifacts-'));
    try {
      const store = new FileArtifactStore(dir);
      const root = path.join(dir, 'runs', 'run-a', 'artifacts');
      expect(store.dirOf('run-a')).toBe(root);
      await fs.mkdir(path.join(root, 'sub'), { recursive: true });
      await fs.writeFile(path.join(root, 'sub', 'f.txt'), 'hi');
      await fs.writeFile(path.join(dir, 'secret'), 'no');
      await fs.symlink(path.join(dir, 'secret'), path.join(root, 'link'));
      expect(await store.list('run-a')).toEqual([{ path: 'sub/f.txt', size: 2 }]);
      await expect(store.read('run-a', 'link')).rejects.toThrow(/leads out/);
      expect(new TextDecoder().decode((await store.read('run-a', 'sub/f.txt'))!)).toBe('hi');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

describe('artifactsFolderName', () => {
  it("names a run's folder as Dagu does, from the run's creation in UTC", () => {
    expect(artifactsFolderName('run-a', '2026-03-13T10:00:05.123+09:00')).toBe(
      'dag-run_20260313_010005Z_run-a',
    );
    expect(artifactsFolderName('r', '2026-12-05T18:23:25Z')).toBe('dag-run_20261205_182325Z_r');
  });
});

describe('FileArtifactStore with a DAG artifacts.dir', () => {
  it('reads the folder the run recorded, and ignores a record that is not a folder of this run', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dagu-artifacts-'));
    try {
      const store = new FileArtifactStore(path.join(dir, 'data'));
      const own = path.join(dir, 'elsewhere', 'etl', 'run-a');
      await fs.mkdir(own, { recursive: true });
      await fs.writeFile(path.join(own, 'x.txt'), 'xyz');
      await fs.mkdir(path.join(dir, 'data', 'runs', 'run-a'), { recursive: true });
      await recordArtifactsDir(path.join(dir, 'data'), 'run-a', own);
      expect(await store.list('run-a')).toEqual([{ path: 'x.txt', size: 3 }]);
      expect(recordedArtifactsDir(`${own}\n`, 'run-a', 'etl')).toBe(own);
      expect(recordedArtifactsDir(own, 'run-a', 'other')).toBeNull();
      expect(recordedArtifactsDir(own, 'run-b', null)).toBeNull();
      expect(recordedArtifactsDir('relative/etl/run-a', 'run-a', null)).toBeNull();
      expect(recordedArtifactsDir('/etl/run-a', 'run-a', 'etl')).toBeNull();
      // Dagu's name for the folder, which runs now make; the time must be Dagu's and the ID this run's.
      const dagus = path.join(dir, 'elsewhere', 'etl', 'dag-run_20261205_182325Z_run-a');
      expect(recordedArtifactsDir(dagus, 'run-a', 'etl')).toBe(dagus);
      expect(recordedArtifactsDir(dagus, 'a', 'etl')).toBeNull();
      expect(recordedArtifactsDir(path.join(dir, 'etl', 'dag-run_2026_run-a'), 'run-a', null)).toBeNull();
      expect(
        recordedArtifactsDir(path.join(dir, 'etl', 'dag-run_20261205_182325Z_run-b'), 'run-a', null),
      ).toBeNull();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
