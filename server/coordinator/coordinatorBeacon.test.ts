import { describe, expect, it } from 'vitest';
import { coordinatorAvailability } from '../core/coordinatorPresence';
import { SECOND } from '../core/units';
import { FakeTime } from '../testing/fakeTime';
import { RecordingLogger } from '../testing/recordingLogger';
import type { CoordinatorRecord } from '../store/dispatchTypes';
import { MemoryCoordinatorRegistry } from '../store/memoryCoordinatorRegistry';
import { CoordinatorBeacon } from './coordinatorBeacon';

const START = Date.parse('2026-11-30T01:15:30Z');
const FRESH_MS = 9 * SECOND;

function beacon(registry = new MemoryCoordinatorRegistry()) {
  const time = new FakeTime(START);
  const logger = new RecordingLogger();
  const b = new CoordinatorBeacon({
    registry,
    clock: time,
    timers: time,
    logger,
    identity: { coordinator_id: 'host-a-50055', host: 'host-a', pid: 42 },
    freshForMs: FRESH_MS,
  });
  const alive = async () => coordinatorAvailability(await registry.list(), time.nowMs()).available;
  return { b, time, logger, registry, alive };
}

/** A registry whose writes fail while `failing` is set, as a full or stalled disk makes them. */
class FlakyRegistry extends MemoryCoordinatorRegistry {
  failing = false;
  override async put(record: CoordinatorRecord): Promise<void> {
    if (this.failing) throw new Error('ENOSPC: no space left on device');
    return super.put(record);
  }
}

describe('CoordinatorBeacon', () => {
  it('records the coordinator alive at start and keeps it so while it runs', async () => {
    const { b, time, registry, alive } = beacon();
    await b.start('http://127.0.0.1:50055');
    expect(await registry.list()).toEqual([
      {
        version: 1,
        coordinator_id: 'host-a-50055',
        host: 'host-a',
        pid: 42,
        url: 'http://127.0.0.1:50055',
        started_at_ms: START,
        last_seen_ms: START,
        fresh_for_ms: FRESH_MS,
        stopped_at_ms: null,
      },
    ]);
    for (let i = 0; i < 10; i++) {
      await time.advance(FRESH_MS / 2);
      expect(await alive()).toBe(true);
    }
    expect((await registry.list())[0].last_seen_ms).toBeGreaterThan(START + 4 * FRESH_MS);
    await b.stop();
  });

  it('is gone at once after a clean stop, and stops refreshing', async () => {
    const { b, time, registry, alive } = beacon();
    await b.start('http://127.0.0.1:50055');
    await time.advance(SECOND);
    await b.stop();
    expect(await alive()).toBe(false);
    expect((await registry.list())[0].stopped_at_ms).toBe(START + SECOND);
    await time.advance(10 * FRESH_MS);
    expect((await registry.list())[0].stopped_at_ms).toBe(START + SECOND);
  });

  it('looks dead once a killed coordinator stops refreshing for longer than its promise', async () => {
    const registry = new MemoryCoordinatorRegistry();
    const { b, time } = beacon(registry);
    await b.start('http://127.0.0.1:50055');
    const killedAt = time.nowMs();
    // kill -9: no stop, no more refreshes (the timers of a dead process never fire).
    const last = (await registry.list())[0];
    expect(coordinatorAvailability([last], killedAt + FRESH_MS).available).toBe(true);
    expect(coordinatorAvailability([last], killedAt + FRESH_MS + 1).available).toBe(false);
  });

  it('logs a failing refresh once, keeps trying, and says when it works again', async () => {
    const registry = new FlakyRegistry();
    const { b, time, logger, alive } = beacon(registry);
    await b.start('http://127.0.0.1:50055');
    registry.failing = true;
    await time.advance(3 * FRESH_MS);
    expect(await alive()).toBe(false);
    expect(logger.find('Could not refresh the coordinator liveness record')).toHaveLength(1);

    registry.failing = false;
    await time.advance(FRESH_MS / 3);
    expect(await alive()).toBe(true);
    expect(logger.find('Refreshed the coordinator liveness record again')).toHaveLength(1);
    await b.stop();
  });
});
