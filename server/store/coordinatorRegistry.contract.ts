// The behaviour every CoordinatorRegistry must have; run against FileCoordinatorRegistry and
// MemoryCoordinatorRegistry.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidCoordinatorIdError } from './distributedDir';
import type { CoordinatorRecord, CoordinatorRegistry } from './dispatchTypes';
import type { StoreFixture } from './runStore.contract';

/** A coordinator record with test defaults; override any field. */
export function testCoordinatorRecord(
  overrides: Partial<CoordinatorRecord> & { coordinator_id: string },
): CoordinatorRecord {
  return {
    version: 1,
    host: 'host-a',
    pid: 4242,
    url: 'http://127.0.0.1:50055',
    started_at_ms: Date.UTC(2026, 2, 1, 10),
    last_seen_ms: Date.UTC(2026, 2, 1, 10),
    fresh_for_ms: 10_000,
    stopped_at_ms: null,
    ...overrides,
  };
}

export function describeCoordinatorRegistryContract(
  name: string,
  makeRegistry: () => Promise<StoreFixture<CoordinatorRegistry>>,
): void {
  describe(`${name} (CoordinatorRegistry contract)`, () => {
    let fixture: StoreFixture<CoordinatorRegistry>;
    let registry: CoordinatorRegistry;
    beforeEach(async () => {
      fixture = await makeRegistry();
      registry = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('lists nothing before any coordinator ran', async () => {
      expect(await registry.list()).toEqual([]);
    });

    it('keeps one record per coordinator, replaced on every refresh, listed by ID', async () => {
      const b = testCoordinatorRecord({ coordinator_id: 'host-b-50055' });
      const a = testCoordinatorRecord({ coordinator_id: 'host-a-50055' });
      await registry.put(b);
      await registry.put(a);
      const refreshed = { ...a, last_seen_ms: a.last_seen_ms + 3000 };
      await registry.put(refreshed);
      const stopped = { ...b, stopped_at_ms: b.last_seen_ms + 1 };
      await registry.put(stopped);
      expect(await registry.list()).toEqual([refreshed, stopped]);
    });

    it('refuses IDs that could leave the coordinators directory', async () => {
      for (const bad of ['../x', 'a/b', '', 'x'.repeat(129), 'a b']) {
        await expect(registry.put(testCoordinatorRecord({ coordinator_id: bad }))).rejects.toBeInstanceOf(
          InvalidCoordinatorIdError,
        );
      }
      expect(await registry.list()).toEqual([]);
    });
  });
}
