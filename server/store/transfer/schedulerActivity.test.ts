import { describe, expect, it } from 'vitest';
import type { LockRecord } from '../../core/lease/types';
import { SECOND } from '../../core/units';
import { encodeLockRecord } from '../lockRecordCodec';
import { MemoryLockStorage } from '../memorySchedulerLock';
import { checkSchedulerActivity } from './schedulerActivity';

const START = Date.UTC(2026, 11, 1, 12);
const T = 30 * SECOND;
const WATCH = 8 * SECOND;

function record(over: Partial<LockRecord> = {}): LockRecord {
  return {
    version: 1,
    holder: 'tok-1',
    instance_id: 'sched-a',
    host: 'host-a',
    pid: 42,
    epoch: 3,
    counter: 10,
    released: false,
    acquired_at: new Date(START - 3_600_000).toISOString(),
    renewed_at: new Date(START - 2 * SECOND).toISOString(),
    ...over,
  };
}

/** A clock that moves only when the check sleeps; `during` runs at each sleep, as a live holder would. */
function world(lock: MemoryLockStorage, during: (monoMs: number) => void = () => {}) {
  let mono = 0;
  const slept: number[] = [];
  return {
    slept,
    opts: {
      staleMs: T,
      watchMs: WATCH,
      clock: { nowMs: () => START + mono, monoMs: () => mono },
      sleep: async (ms: number) => {
        slept.push(ms);
        mono += ms;
        during(mono);
      },
    },
  };
}

describe('checkSchedulerActivity', () => {
  it('finds no scheduler when there is no lock, at once', async () => {
    const lock = new MemoryLockStorage();
    const w = world(lock);
    expect(await checkSchedulerActivity(lock, w.opts)).toEqual({
      active: false,
      reason: 'no scheduler has taken the lock',
    });
    expect(w.slept).toEqual([]);
  });

  it('finds no scheduler when the lock was released cleanly, at once', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = encodeLockRecord(record({ released: true }));
    const w = world(lock);
    const r = await checkSchedulerActivity(lock, w.opts);
    expect(r.active).toBe(false);
    expect(r.reason).toContain('released by instance sched-a on host-a');
    expect(w.slept).toEqual([]);
  });

  it('counts a lock renewed within the stale threshold as held, without waiting', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = encodeLockRecord(record());
    const w = world(lock);
    const r = await checkSchedulerActivity(lock, w.opts);
    expect(r).toEqual({
      active: true,
      reason: 'the scheduler lock is held by instance sched-a on host-a (pid 42), renewed 2s ago',
    });
    expect(w.slept).toEqual([]);
  });

  it('counts a renewal time ahead of this clock (another host ahead) as recent', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = encodeLockRecord(record({ renewed_at: new Date(START + 60 * SECOND).toISOString() }));
    expect((await checkSchedulerActivity(lock, world(lock).opts)).active).toBe(true);
  });

  it('watches an old-looking lock and finds it held when its holder renews it meanwhile', async () => {
    // The holder's clock is far behind: its renewal times look old, but it renews every few seconds.
    const lock = new MemoryLockStorage();
    const old = new Date(START - 10 * 60 * SECOND).toISOString();
    lock.raw = encodeLockRecord(record({ renewed_at: old }));
    const w = world(lock, (mono) => {
      if (mono >= 5 * SECOND) lock.raw = encodeLockRecord(record({ renewed_at: old, counter: 11 }));
    });
    const r = await checkSchedulerActivity(lock, w.opts);
    expect(r.active).toBe(true);
    expect(r.reason).toContain('changed while it was watched');
    expect(w.slept.reduce((a, b) => a + b, 0)).toBeLessThan(WATCH);
  });

  it('calls a lock stale once it stayed unchanged for the whole watch', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = encodeLockRecord(record({ renewed_at: new Date(START - 5 * 60 * SECOND).toISOString() }));
    const watched: number[] = [];
    const w = world(lock);
    const r = await checkSchedulerActivity(lock, { ...w.opts, onWatch: (ms) => watched.push(ms) });
    expect(r.active).toBe(false);
    expect(r.reason).toContain('not within 8s: it is stale');
    expect(watched).toEqual([WATCH]);
    expect(w.slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(WATCH);
  });

  it('watches a corrupt lock file too: rewritten meanwhile means a scheduler is at work', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = '{"version":1,"hold';
    const still = await checkSchedulerActivity(lock, world(lock).opts);
    expect(still.active).toBe(false);
    expect(still.reason).toContain('the lock file is unreadable');
    const w = world(lock, () => {
      lock.raw = encodeLockRecord(record());
    });
    expect((await checkSchedulerActivity(lock, w.opts)).active).toBe(true);
  });

  it('finds a lock taken while it watched a stale one', async () => {
    const lock = new MemoryLockStorage();
    lock.raw = encodeLockRecord(record({ renewed_at: new Date(START - 5 * 60 * SECOND).toISOString() }));
    const w = world(lock, () => {
      lock.raw = encodeLockRecord(record({ holder: 'tok-2', epoch: 4, counter: 0 }));
    });
    expect((await checkSchedulerActivity(lock, w.opts)).active).toBe(true);
  });
});
