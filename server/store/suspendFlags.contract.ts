// The behaviour every SuspendFlags must have; run against FileSuspendFlags and MemorySuspendFlags.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import type { StoreFixture } from './runStore.contract';
import type { SuspendFlags } from './suspendFlags';

const AT = '2026-11-30T01:15:00.000Z';

export function describeSuspendFlagsContract(name: string, make: () => Promise<StoreFixture<SuspendFlags>>) {
  describe(`${name} (SuspendFlags contract)`, () => {
    let fixture: StoreFixture<SuspendFlags>;
    let flags: SuspendFlags;
    beforeEach(async () => {
      fixture = await make();
      flags = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('has no suspended DAG before any flag is written', async () => {
      expect(await flags.names()).toEqual(new Set());
      expect(await flags.list()).toEqual(new Map());
      expect(await flags.get('etl')).toBeNull();
    });

    it('suspends a DAG once and reads back when and by whom', async () => {
      expect(await flags.suspend({ dag: 'etl', suspended_at: AT, by: 'cli' })).toBe(true);
      expect(await flags.suspend({ dag: 'etl', suspended_at: '2026-12-01T00:00:00.000Z', by: 'api' })).toBe(
        false,
      );
      expect(await flags.get('etl')).toEqual({ dag: 'etl', suspended_at: AT, by: 'cli' });
      expect(await flags.names()).toEqual(new Set(['etl']));
      expect([...(await flags.list()).values()]).toEqual([{ dag: 'etl', suspended_at: AT, by: 'cli' }]);
    });

    it('resumes a suspended DAG, and says when there was nothing to resume', async () => {
      await flags.suspend({ dag: 'etl', suspended_at: AT, by: 'cli' });
      await flags.suspend({ dag: 'report', suspended_at: AT, by: 'api' });
      expect(await flags.resume('etl')).toBe(true);
      expect(await flags.resume('etl')).toBe(false);
      expect(await flags.names()).toEqual(new Set(['report']));
      expect(await flags.get('etl')).toBeNull();
    });

    it('refuses a name that is not a DAG name before touching storage', async () => {
      await expect(flags.suspend({ dag: '../x', suspended_at: AT, by: 'cli' })).rejects.toThrow(
        InvalidNameError,
      );
      await expect(flags.resume('a/b')).rejects.toThrow(InvalidNameError);
      await expect(flags.get('')).rejects.toThrow(InvalidNameError);
    });
  });
}
