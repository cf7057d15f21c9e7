import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
import { MemoryStateStore } from '../store/memoryStateStore';
import type { ReadStatusResult } from '../store/types';
import { testRunStatus } from '../testing/testRunStatus';
import { WorkerState } from './workerState';

const ref = { scope: 'dag' as const, namespace: 'etl', key: 'cursor' };

function stateFor(read: ReadStatusResult) {
  const store = new MemoryStateStore();
  return { store, ws: new WorkerState({ runs: { readStatus: async () => read }, state: store }) };
}

const held = (over: Partial<RunStatus> = {}): ReadStatusResult => ({
  kind: 'ok',
  status: testRunStatus({ run_id: 'r1', status: 'running', attempt: 2, worker_id: 'w1', ...over }),
});

describe('state operations of runs on workers', () => {
  it("makes each operation on the store for the worker's running attempt", async () => {
    const { store, ws } = stateFor(held());
    const who = { worker_id: 'w1', attempt: 2 };
    const put = await ws.handle('r1', { ...who, op: 'put', ref, value: '{"at":1}', expected_version: 0 });
    expect(put).toMatchObject({ entry: { version: 1, value: '{"at":1}' } });
    expect(await store.get(ref)).toMatchObject({ version: 1 });
    expect(await ws.handle('r1', { ...who, op: 'get', ref })).toMatchObject({ entry: { version: 1 } });
    const list = await ws.handle('r1', {
      ...who,
      op: 'list',
      scope: 'dag',
      namespace: 'etl',
      key_prefix: '',
      limit: 0,
    });
    expect(list).toMatchObject({ entries: [{ key: 'cursor' }] });
    expect(await ws.handle('r1', { ...who, op: 'delete', ref })).toEqual({ deleted: true });
    expect(await ws.handle('r1', { ...who, op: 'delete', ref })).toEqual({ deleted: false });
  });

  it("answers the store's refusals instead of throwing them", async () => {
    const { ws } = stateFor(held());
    const who = { worker_id: 'w1', attempt: 2 };
    expect(await ws.handle('r1', { ...who, op: 'put', ref, value: '1', expected_version: 4 })).toEqual({
      conflict: { ref, expected: 4, actual: null },
    });
    const bad = await ws.handle('r1', { ...who, op: 'get', ref: { ...ref, key: '../up' } });
    expect(bad).toEqual({ invalid: 'state: invalid key "../up"' });
  });

  it('refuses a run that is not the asking worker’s running attempt, touching nothing', async () => {
    for (const read of [
      held({ worker_id: 'w2' }),
      held({ attempt: 3 }),
      held({ status: 'succeeded' }),
      { kind: 'missing' } as ReadStatusResult,
    ]) {
      const { store, ws } = stateFor(read);
      const reply = await ws.handle('r1', { worker_id: 'w1', attempt: 2, op: 'put', ref, value: '1' });
      expect(reply).toMatchObject({ refused: true });
      expect(await store.get(ref)).toBeNull();
    }
  });
});
