// The behaviour every CancelRequests must have; run against FileCancelRequests and MemoryCancelRequests.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import type { CancelRequests } from './dispatchTypes';
import type { StoreFixture } from './runStore.contract';

export function describeCancelRequestsContract(
  name: string,
  makeStore: () => Promise<StoreFixture<CancelRequests>>,
): void {
  describe(`${name} (CancelRequests contract)`, () => {
    let fixture: StoreFixture<CancelRequests>;
    let cancels: CancelRequests;
    beforeEach(async () => {
      fixture = await makeStore();
      cancels = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('remembers a request until it is cleared, also when asked twice', async () => {
      expect(await cancels.has('r1')).toBe(false);
      await cancels.request('r1', 1000);
      await cancels.request('r1', 2000);
      await cancels.request('a0', 3000);
      expect(await cancels.has('r1')).toBe(true);
      expect(await cancels.list()).toEqual(['a0', 'r1']);
      await cancels.clear('r1');
      await cancels.clear('r1');
      expect(await cancels.has('r1')).toBe(false);
      expect(await cancels.list()).toEqual(['a0']);
    });

    it('lets concurrent requests for one run all succeed', async () => {
      await Promise.all([cancels.request('r1', 1), cancels.request('r1', 2), cancels.request('r1', 3)]);
      expect(await cancels.list()).toEqual(['r1']);
    });

    it('refuses run IDs with a slash or dot-dot', async () => {
      for (const bad of ['../x', 'a/b', '..']) {
        await expect(cancels.request(bad, 1)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(cancels.has(bad)).rejects.toBeInstanceOf(InvalidNameError);
        await expect(cancels.clear(bad)).rejects.toBeInstanceOf(InvalidNameError);
      }
      expect(await cancels.list()).toEqual([]);
    });
  });
}
