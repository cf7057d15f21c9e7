// The behaviour every WorkerRegistry must have; run against FileWorkerRegistry and MemoryWorkerRegistry.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidWorkerIdError } from '../core/workerId';
import type { WorkerRecord, WorkerRegistry } from './dispatchTypes';
import type { StoreFixture } from './runStore.contract';

/** A worker record with test defaults; override any field. */
export function testWorkerRecord(overrides: Partial<WorkerRecord> & { worker_id: string }): WorkerRecord {
  return {
    labels: {},
    max_active_runs: 4,
    running: [],
    host: 'host-a',
    pid: 4242,
    registered_at_ms: Date.UTC(2026, 2, 1, 10),
    last_heartbeat_ms: Date.UTC(2026, 2, 1, 10),
    ...overrides,
  };
}

export function describeWorkerRegistryContract(
  name: string,
  makeRegistry: () => Promise<StoreFixture<WorkerRegistry>>,
): void {
  describe(`${name} (WorkerRegistry contract)`, () => {
    let fixture: StoreFixture<WorkerRegistry>;
    let registry: WorkerRegistry;
    beforeEach(async () => {
      fixture = await makeRegistry();
      registry = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('stores a worker record and replaces it on the next heartbeat', async () => {
      const first = testWorkerRecord({ worker_id: 'gpu-1@host-a', labels: { gpu: 'true' } });
      await registry.put(first);
      expect(await registry.get('gpu-1@host-a')).toEqual(first);
      const second = {
        ...first,
        last_heartbeat_ms: first.last_heartbeat_ms + 1000,
        running: [{ run_id: 'r1', attempt: 1 }],
      };
      await registry.put(second);
      expect(await registry.get('gpu-1@host-a')).toEqual(second);
      expect(await registry.list()).toEqual([second]);
    });

    it('lists every worker by ID and forgets a removed one', async () => {
      await registry.put(testWorkerRecord({ worker_id: 'w2' }));
      await registry.put(testWorkerRecord({ worker_id: 'w1' }));
      await registry.put(testWorkerRecord({ worker_id: 'w3' }));
      await registry.remove('w2');
      await registry.remove('never-there');
      expect((await registry.list()).map((w) => w.worker_id)).toEqual(['w1', 'w3']);
      expect(await registry.get('w2')).toBeNull();
    });

    it('refuses worker IDs that could leave the workers directory', async () => {
      for (const bad of ['../x', 'a/b', '', 'x'.repeat(129), 'a b']) {
        await expect(registry.put(testWorkerRecord({ worker_id: bad }))).rejects.toBeInstanceOf(
          InvalidWorkerIdError,
        );
        await expect(registry.get(bad)).rejects.toBeInstanceOf(InvalidWorkerIdError);
        await expect(registry.remove(bad)).rejects.toBeInstanceOf(InvalidWorkerIdError);
      }
      expect(await registry.list()).toEqual([]);
    });
  });
}
