import { describe, expect, it } from 'vitest';
import { InvalidStateError, StateConflictError } from '../store/stateStore';
import { remoteStateStore } from './remoteStateStore';
import { FakeCoordinator } from './testSupport';

const ref = { scope: 'global' as const, namespace: '_', key: 'flags/on' };

describe('the state store of a run on a worker', () => {
  it("reaches the coordinator's store and reads back what it wrote", async () => {
    const c = new FakeCoordinator();
    const store = remoteStateStore({ client: c, runId: 'r1', attempt: 1, workerId: 'w1' });
    const written = await store.put(ref, 'true', { createOnly: true, updatedBy: { step_name: 's' } });
    expect(written).toMatchObject({ version: 1, value: 'true', updated_by: { step_name: 's' } });
    expect(await c.stateStore.get(ref)).toEqual(written);
    expect(await store.get(ref)).toEqual(written);
    expect(await store.list({ scope: 'global', namespace: '_', keyPrefix: 'flags/', limit: 0 })).toEqual([
      written,
    ]);
    expect(await store.delete(ref)).toBe(true);
    expect(await store.get(ref)).toBeNull();
    expect(c.calls.filter((x) => x.startsWith('state:'))).toEqual([
      'state:put',
      'state:get',
      'state:list',
      'state:delete',
      'state:get',
    ]);
  });

  it('throws the errors a local store throws, with its messages', async () => {
    const c = new FakeCoordinator();
    const store = remoteStateStore({ client: c, runId: 'r1', attempt: 1, workerId: 'w1' });
    await store.put(ref, '1');
    const conflict = await store.put(ref, '2', { expectedVersion: 7 }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(StateConflictError);
    expect((conflict as Error).message).toBe(
      'state: version conflict on global/_/flags/on: expected version 7, but it is at version 1',
    );
    // A name the store refuses never leaves the worker.
    const before = c.calls.length;
    const invalid = await store.get({ ...ref, key: 'a/../b' }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidStateError);
    expect(c.calls.length).toBe(before);
  });
});
