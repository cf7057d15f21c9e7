import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
import { MAX_ARTIFACT_BYTES, MemoryArtifactStore } from '../store/artifactStore';
import type { ReadStatusResult } from '../store/types';
import { testRunStatus } from '../testing/testRunStatus';
import { WorkerArtifacts } from './workerArtifacts';

const who = { worker_id: 'w1', attempt: 1 };
const held = (over: Partial<RunStatus> = {}): ReadStatusResult => ({
  kind: 'ok',
  status: testRunStatus({ run_id: 'r1', status: 'running', worker_id: 'w1', ...over }),
});

function artifactsFor(read: ReadStatusResult) {
  const store = new MemoryArtifactStore();
  return { store, wa: new WorkerArtifacts({ runs: { readStatus: async () => read }, artifacts: store }) };
}

describe('artifacts of runs on workers', () => {
  it("stores, lists and reads back the worker's running run's artifacts", async () => {
    const { store, wa } = artifactsFor(held());
    const data = Buffer.from('hello').toString('base64');
    expect(await wa.handle('r1', { ...who, op: 'put', path: 'a/b.txt', data })).toEqual({ stored: true });
    expect(await store.list('r1')).toEqual([{ path: 'a/b.txt', size: 5 }]);
    expect(await wa.handle('r1', { ...who, op: 'list' })).toEqual({
      entries: [{ path: 'a/b.txt', size: 5 }],
    });
    expect(await wa.handle('r1', { ...who, op: 'read', path: 'a/b.txt' })).toEqual({ data });
    expect(await wa.handle('r1', { ...who, op: 'read', path: 'nope' })).toEqual({ data: null });
  });

  it('answers a path or a size the store refuses, and refuses a run that is not the worker’s', async () => {
    const { store, wa } = artifactsFor(held());
    expect(await wa.handle('r1', { ...who, op: 'put', path: '../up', data: '' })).toMatchObject({
      invalid: expect.stringContaining('../up'),
    });
    const big = Buffer.alloc(MAX_ARTIFACT_BYTES + 1).toString('base64');
    expect(await wa.handle('r1', { ...who, op: 'put', path: 'big.bin', data: big })).toMatchObject({
      too_large: expect.stringContaining('big.bin'),
    });
    for (const read of [held({ worker_id: 'w2' }), held({ status: 'failed' }), held({ attempt: 2 })]) {
      const other = artifactsFor(read);
      expect(await other.wa.handle('r1', { ...who, op: 'list' })).toMatchObject({ refused: true });
    }
    expect(await store.list('r1')).toEqual([]);
  });
});
