// The behaviour every StateStore must have; run against the file, memory and PostgreSQL stores.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreFixture } from './runStore.contract';
import {
  InvalidStateError,
  MAX_STATE_VALUE_BYTES,
  StateConflictError,
  hashStateValue,
  type StateRef,
  type StateStore,
} from './stateStore';

const REF: StateRef = { scope: 'dag', namespace: 'etl', key: 'cursor' };

export function describeStateStoreContract(name: string, make: () => Promise<StoreFixture<StateStore>>) {
  describe(`${name} (StateStore contract)`, () => {
    let fixture: StoreFixture<StateStore>;
    let store: StateStore;
    beforeEach(async () => {
      fixture = await make();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('has no entry before a write, and reads back what was written at version 1', async () => {
      expect(await store.get(REF)).toBeNull();
      const e = await store.put(REF, '{"b": 2, "a": [1, "x"]}', {
        updatedBy: { dag_name: 'etl', dag_run_id: 'r1', step_name: 's' },
      });
      expect(e).toMatchObject({ ...REF, value: '{"a":[1,"x"],"b":2}', version: 1 });
      expect(e.hash).toBe(hashStateValue('{"a":[1,"x"],"b":2}'));
      expect(e.created_at).toBe(e.updated_at);
      const got = await store.get(REF);
      expect(got).toEqual(e);
      expect(got!.updated_by).toEqual({ dag_name: 'etl', dag_run_id: 'r1', step_name: 's' });
    });

    it('adds one to the version at each write and keeps the creation time', async () => {
      const first = await store.put(REF, '1');
      const second = await store.put(REF, '"two"');
      expect(second.version).toBe(2);
      expect(second.created_at).toBe(first.created_at);
      expect((await store.get(REF))!.value).toBe('"two"');
    });

    it('writes only at the expected version, and refuses any other', async () => {
      await expect(store.put(REF, '1', { expectedVersion: 1 })).rejects.toThrow(StateConflictError);
      expect(await store.get(REF)).toBeNull();
      expect((await store.put(REF, '1', { expectedVersion: 0 })).version).toBe(1);
      await expect(store.put(REF, '2', { expectedVersion: 0 })).rejects.toThrow(
        /expected version 0, but it is at version 1/,
      );
      await expect(store.put(REF, '2', { expectedVersion: -1 })).rejects.toThrow(StateConflictError);
      expect((await store.put(REF, '2', { expectedVersion: 1 })).version).toBe(2);
      await expect(store.put(REF, '3', { expectedVersion: 1 })).rejects.toThrow(StateConflictError);
      expect((await store.get(REF))!.value).toBe('2');
    });

    it('creates only what does not exist with createOnly', async () => {
      expect((await store.put(REF, 'true', { createOnly: true })).version).toBe(1);
      await expect(store.put(REF, 'false', { createOnly: true })).rejects.toThrow(/create_only/);
      expect((await store.get(REF))!.value).toBe('true');
    });

    it('lets exactly one of many concurrent compare-and-sets at a version win', async () => {
      await store.put(REF, '0');
      const results = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) => store.put(REF, String(i + 1), { expectedVersion: 1 })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results.filter((x) => x.status === 'rejected'))
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StateConflictError);
      expect((await store.get(REF))!.version).toBe(2);
    });

    it('counts every one of many concurrent unconditional writes', async () => {
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.put(REF, String(i))));
      expect((await store.get(REF))!.version).toBe(6);
    });

    it('deletes an entry, and says when there was none', async () => {
      await store.put(REF, '1');
      expect(await store.delete(REF)).toBe(true);
      expect(await store.delete(REF)).toBe(false);
      expect(await store.get(REF)).toBeNull();
      expect((await store.put(REF, '1', { expectedVersion: 0 })).version).toBe(1);
    });

    it('keeps scopes and namespaces apart', async () => {
      await store.put(REF, '1');
      await store.put({ ...REF, scope: 'global' }, '2');
      await store.put({ ...REF, namespace: 'other' }, '3');
      expect((await store.get(REF))!.value).toBe('1');
      expect((await store.get({ ...REF, scope: 'global' }))!.value).toBe('2');
      expect((await store.get({ ...REF, namespace: 'other' }))!.value).toBe('3');
    });

    it('lists a namespace in key order, by prefix and limit', async () => {
      for (const key of ['b/2', 'a', 'b/1', 'c', 'ü']) await store.put({ ...REF, key }, JSON.stringify(key));
      await store.put({ ...REF, namespace: 'other', key: 'b/0' }, '0');
      const all = await store.list({ scope: 'dag', namespace: 'etl', keyPrefix: '', limit: 0 });
      expect(all.map((e) => e.key)).toEqual(['a', 'b/1', 'b/2', 'c', 'ü']);
      expect(all[1]).toMatchObject({ value: '"b/1"', version: 1, scope: 'dag', namespace: 'etl' });
      const b = await store.list({ scope: 'dag', namespace: 'etl', keyPrefix: 'b/', limit: 0 });
      expect(b.map((e) => e.key)).toEqual(['b/1', 'b/2']);
      const two = await store.list({ scope: 'dag', namespace: 'etl', keyPrefix: '', limit: 2 });
      expect(two.map((e) => e.key)).toEqual(['a', 'b/1']);
      expect(await store.list({ scope: 'custom', namespace: 'none', keyPrefix: '', limit: 0 })).toEqual([]);
    });

    it('refuses bad keys, namespaces, scopes, limits and values before touching storage', async () => {
      for (const key of ['', ' ', '/a', 'a/', 'a//b', 'a/../b', '.', 'a\\b']) {
        await expect(store.put({ ...REF, key }, '1')).rejects.toThrow(InvalidStateError);
        await expect(store.get({ ...REF, key })).rejects.toThrow(InvalidStateError);
      }
      for (const namespace of ['', 'a/b', '..', 'a\\b']) {
        await expect(store.put({ ...REF, namespace }, '1')).rejects.toThrow(InvalidStateError);
      }
      await expect(store.get({ ...REF, scope: 'run' as never })).rejects.toThrow(/unsupported scope "run"/);
      await expect(store.list({ scope: 'dag', namespace: 'etl', keyPrefix: '', limit: -1 })).rejects.toThrow(
        /limit must be greater than or equal to zero/,
      );
      await expect(store.list({ scope: 'dag', namespace: 'etl', keyPrefix: '/x', limit: 0 })).rejects.toThrow(
        InvalidStateError,
      );
      await expect(store.put(REF, '{not json')).rejects.toThrow(/invalid value/);
      const huge = JSON.stringify('x'.repeat(MAX_STATE_VALUE_BYTES));
      await expect(store.put(REF, huge)).rejects.toThrow(/value too large/);
      expect(await store.get(REF)).toBeNull();
    });
  });
}
