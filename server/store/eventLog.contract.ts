// The behaviour every EventLog must have; run against FileEventLog and MemoryEventLog.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../core/ports';
import { InvalidCursorError } from './errors';
import { MAX_EVENT_LINE_BYTES } from './eventRecord';
import type { StoreFixture } from './runStore.contract';
import type { EventLog } from './types';

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public now = Date.UTC(2026, 2, 1, 10)) {}
  nowMs(): number {
    return this.now;
  }
  monoMs(): number {
    return this.now;
  }
}

export function describeEventLogContract(
  name: string,
  makeLog: (clock: Clock) => Promise<StoreFixture<EventLog>>,
): void {
  describe(`${name} (EventLog contract)`, () => {
    let fixture: StoreFixture<EventLog>;
    let log: EventLog;
    let clock: ManualClock;
    beforeEach(async () => {
      clock = new ManualClock();
      fixture = await makeLog(clock);
      log = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup?.();
    });

    it('appends events and lists them oldest first with the time of the clock', async () => {
      const first = await log.append('scheduler:start', { instance: 'a' });
      clock.now += 1000;
      const second = await log.append('scheduler:takeover', { instance: 'b', epoch: 2 });
      expect(await log.list({})).toEqual([first, second]);
      expect(second).toMatchObject({
        type: 'scheduler:takeover',
        time: new Date(clock.now).toISOString(),
        data: { instance: 'b', epoch: 2 },
      });
    });

    it('reads back an event that need not be durable like any other, in order', async () => {
      const first = await log.append('dag.run.running', { run: 'r1' }, { durable: false });
      const second = await log.append('dag.run.succeeded', { run: 'r1' }, { durable: true });
      const third = await log.append('dag.run.running', { run: 'r2' }, { durable: false });
      expect(await log.list({})).toEqual([first, second, third]);
    });

    it('lists only the events after afterId', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await log.append('tick', { i })).id);
      expect((await log.list({ afterId: ids[2] })).map((e) => e.data.i)).toEqual([3, 4]);
      expect(await log.list({ afterId: ids[4] })).toEqual([]);
    });

    it('filters by types and stops at the limit', async () => {
      for (let i = 0; i < 6; i++) await log.append(i % 2 === 0 ? 'even' : 'odd', { i });
      expect((await log.list({ types: ['odd'] })).map((e) => e.data.i)).toEqual([1, 3, 5]);
      expect((await log.list({ types: [] })).length).toBe(6);
      expect((await log.list({ limit: 2 })).map((e) => e.data.i)).toEqual([0, 1]);
    });

    it('hands out increasing IDs within one millisecond and when the clock steps back', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await log.append('same-ms', {})).id);
      clock.now -= 60_000;
      ids.push((await log.append('clock-stepped-back', {})).id);
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(4);
      expect((await log.list({})).map((e) => e.id)).toEqual(ids);
    });

    it('keeps events across days in order and finds those after an earlier day', async () => {
      clock.now = Date.UTC(2026, 2, 1, 23, 59, 59);
      const lastOfDay = await log.append('a', {});
      clock.now = Date.UTC(2026, 2, 2, 0, 0, 1);
      const nextDay = await log.append('b', {});
      expect(await log.list({ afterId: lastOfDay.id })).toEqual([nextDay]);
    });

    it('shortens oversized data so that every line stays under 4 KiB', async () => {
      const event = await log.append('big', { message: 'x'.repeat(10_000), code: 7 });
      expect(JSON.stringify(event).length).toBeLessThan(MAX_EVENT_LINE_BYTES);
      expect(event.data.code).toBe(7);
      expect(String(event.data.message)).toMatch(/truncated\)$/);
      expect(await log.list({})).toEqual([event]);
    });

    it('refuses an afterId it did not hand out', async () => {
      await expect(log.list({ afterId: '../../etc/passwd' })).rejects.toBeInstanceOf(InvalidCursorError);
    });
  });
}
