import { describe, expect, it } from 'vitest';
import { encodeLockRecord } from '../store/lockRecordCodec';
import { MemoryLockStorage } from '../store/memorySchedulerLock';
import type { LockRecord, LockStorage } from '../core/lease/types';
import type { LogFields, Logger } from '../core/ports';
import { LeaseKeeper, type RoleChange } from './leaseKeeper';
import { mulberry32 } from './sim/prng';
import { healthyStorage, SimDisk, SimLockStorage } from './sim/simLockStorage';
import { SimNode, SimWorld } from './sim/simWorld';

const T = 3000;
const R = 500;
const I = 750;

interface Harness {
  world: SimWorld;
  disk: SimDisk;
  add(name: string, storage?: LockStorage): Member;
}
interface Member {
  node: SimNode;
  storage: SimLockStorage;
  keeper: LeaseKeeper;
  changes: RoleChange[];
  logs: string[];
}

function harness(): Harness {
  const world = new SimWorld();
  const disk = new SimDisk();
  let n = 0;
  return {
    world,
    disk,
    add(name, storage) {
      const node = new SimNode(world, name, 1, 1000 * ++n);
      const sim = new SimLockStorage(world, node, disk, mulberry32(n));
      const changes: RoleChange[] = [];
      const logs: string[] = [];
      const keeper = new LeaseKeeper({
        storage: storage ?? sim,
        clock: node.clock,
        timers: node.timers,
        logger: recordingLogger(logs),
        staleThresholdMs: T,
        retryIntervalMs: R,
        identity: { instance_id: name, host: `host-${name}`, pid: n },
        newToken: () => `${name}-token-${changes.length}-${world.now}`,
        onRoleChange: (c) => changes.push(c),
        dataDir: '/srv/dagu/data',
      });
      return { node, storage: sim, keeper, changes, logs };
    },
  };
}

function recordingLogger(lines: string[]): Logger {
  const at = (level: string) => (msg: string, f?: LogFields) =>
    lines.push(`${level} ${msg} ${JSON.stringify(f ?? {})}`);
  const l: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => l,
  };
  return l;
}

const oldRecord = (over: Partial<LockRecord> = {}): LockRecord => ({
  version: 1,
  holder: 'dead-token',
  instance_id: 'dead',
  host: 'old-host',
  pid: 1,
  epoch: 4,
  counter: 9,
  released: false,
  acquired_at: '2020-01-01T00:00:00.000Z',
  renewed_at: '2020-01-01T00:00:00.000Z',
  ...over,
});

async function started(h: Harness, m: Member) {
  const p = m.keeper.start();
  await h.world.runUntil(h.world.now + 50);
  await p;
}

/** Runs from `from` until the lock record's counter next changes (a renewal landed). */
async function untilRenewed(h: Harness, from: number) {
  await h.world.runUntil(from);
  const counter = () => {
    const r = h.disk.current();
    return r.kind === 'record' ? r.record.counter : -1;
  };
  const before = counter();
  while (counter() === before) await h.world.runUntil(h.world.now + 5);
}

function firstAcquired(m: Member) {
  return m.changes.find((c) => c.kind === 'acquired');
}

describe('LeaseKeeper', () => {
  it('rejects start naming the data directory when storage fails on the first attempt', async () => {
    const h = harness();
    const failing = new MemoryLockStorage();
    failing.read = () => Promise.reject(new Error('EIO: i/o error'));
    const m = h.add('a', failing);
    await expect(m.keeper.start()).rejects.toThrow(/data directory \/srv\/dagu\/data: EIO/);
    expect(m.keeper.role()).toBe('stopped');
  });

  it('waits as a standby through a full disk at its first attempt, and takes the lock once there is space', async () => {
    const h = harness();
    const full = new MemoryLockStorage();
    const create = full.create.bind(full);
    let space = false;
    full.create = (record) =>
      space
        ? create(record)
        : Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    const m = h.add('a', full);
    await started(h, m);
    expect(m.keeper.role()).toBe('standby');
    expect(m.logs.some((l) => l.startsWith('warn Storage error while waiting for the scheduler lock'))).toBe(
      true,
    );
    space = true;
    await h.world.runUntil(h.world.now + 2 * R);
    expect(m.keeper.role()).toBe('active');
  });

  it('says once per epoch that a claim whose write failed may still land', async () => {
    const h = harness();
    const full = new MemoryLockStorage();
    full.create = () =>
      Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    const m = h.add('a', full);
    await started(h, m);
    await h.world.runUntil(h.world.now + 6 * R);
    const unsettled = m.logs.filter((l) => l.startsWith('info A claim of the scheduler lock did not settle'));
    // Every retry repeats the same claim, so the same epoch: one line, naming it.
    expect(unsettled).toHaveLength(1);
    expect(unsettled[0]).toContain('"epoch":1');
    expect(unsettled[0]).toContain('"outcome":"error"');
  });

  it('takes a free lock at once and renews it every I', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    expect(a.keeper.role()).toBe('active');
    expect(a.keeper.canDispatch()).toBe(true);
    expect(a.logs.some((l) => l.startsWith('info Acquired the free scheduler lock'))).toBe(true);
    await h.world.runUntil(10 * T);
    const rec = h.disk.current();
    expect(rec.kind === 'record' && rec.record.counter).toBeGreaterThanOrEqual(Math.floor((10 * T) / I) - 1);
    expect(a.keeper.canDispatch()).toBe(true);
  });

  it('reports its own latest renewal as the lock it last saw, from the moment it is active', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    expect(a.keeper.lastSeen().record?.instance_id).toBe('a');
    await h.world.runUntil(5 * T);
    const rec = h.disk.current();
    expect(rec.kind === 'record' && rec.record.counter).toBe(a.keeper.lastSeen().record?.counter);
  });

  it('a standby that saw the lock renewed keeps waiting through storage errors', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const b = h.add('b');
    await started(h, b);
    expect(b.keeper.role()).toBe('standby');
    b.storage.faults = { ...healthyStorage(), mode: 'fail' };
    await h.world.runUntil(h.world.now + 3 * T);
    b.storage.faults = healthyStorage();
    await h.world.runUntil(h.world.now + 3 * T);
    expect(b.keeper.role()).toBe('standby');
    expect(a.keeper.canDispatch()).toBe(true);
    const warnings = b.logs.filter((l) => l.includes('Storage error while waiting for the scheduler lock'));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.length).toBeLessThan((3 * T) / R / 2); // rate-limited, not one per attempt
  });

  it('waits a full T on its own clock for a lock left behind long ago, then takes it over', async () => {
    const h = harness();
    h.disk.raw = encodeLockRecord(oldRecord());
    const a = h.add('a');
    await started(h, a);
    expect(a.keeper.role()).toBe('standby');
    await h.world.runUntil(T - 10);
    expect(a.keeper.role()).toBe('standby');
    await h.world.runUntil(T + R);
    expect(a.keeper.role()).toBe('active');
    const acq = firstAcquired(a);
    expect(acq).toMatchObject({ kind: 'acquired', how: 'stale', previous: { instance_id: 'dead' } });
    expect(a.logs.some((l) => l.startsWith('info Took over the scheduler lock from a failed instance'))).toBe(
      true,
    );
    const rec = h.disk.current();
    expect(rec.kind === 'record' && rec.record.epoch).toBe(5);
  });

  it('takes a released lock within R', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const b = h.add('b');
    await started(h, b);
    await h.world.runUntil(2 * T);
    const stopAt = h.world.now;
    const stopping = a.keeper.stop();
    // Within R of the release landing; the release itself takes up to the deadline (I/4) plus latency.
    await h.world.runUntil(stopAt + R + I / 4 + 100);
    await stopping;
    expect(a.changes.at(-1)?.kind).toBe('released');
    expect(b.keeper.role()).toBe('active');
    expect(firstAcquired(b)).toMatchObject({ how: 'released' });
  });

  it('after the holder dies, exactly one of three standbys takes over, within T + R', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const standbys = [h.add('b'), h.add('c'), h.add('d')];
    for (const s of standbys) await started(h, s);
    await h.world.runUntil(2 * T);
    const diedAt = h.world.now;
    a.node.crashed = true;
    await h.world.runUntil(diedAt + T + R + 100);
    expect(standbys.filter((s) => s.keeper.role() === 'active')).toHaveLength(1);
    await h.world.runUntil(diedAt + 5 * T);
    expect(standbys.filter((s) => s.keeper.role() === 'active')).toHaveLength(1);
    expect(standbys.flatMap((s) => s.changes).filter((c) => c.kind === 'acquired')).toHaveLength(1);
  });

  it('stays active through renewal errors that end before its last retry inside T - I', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    await untilRenewed(h, T);
    a.storage.faults = { ...healthyStorage(), mode: 'fail' };
    // Retries come every I/2 after a failure; the one at 2I after the last success must find storage back.
    await h.world.runUntil(h.world.now + 2 * I - 60);
    expect(a.keeper.canDispatch()).toBe(true);
    a.storage.faults = healthyStorage();
    await h.world.runUntil(4 * T);
    expect(a.keeper.role()).toBe('active');
    expect(a.changes.map((c) => c.kind)).toEqual(['acquired']);
  });

  it('stops dispatching at T - I and reports lost when a renewal never completes', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    await untilRenewed(h, T);
    // The renewal that just landed began at most 25ms ago (two calls of at most 10ms each, and this step).
    const landedAt = h.world.now;
    a.storage.faults = { ...healthyStorage(), mode: 'stall', stallUntil: 100 * T };
    await h.world.runUntil(landedAt + T - I - 30);
    expect(a.keeper.canDispatch()).toBe(true);
    await h.world.runUntil(landedAt + T - I + 1);
    expect(a.keeper.canDispatch()).toBe(false);
    expect(a.changes.at(-1)).toMatchObject({ kind: 'lost' });
    expect(a.keeper.role()).toBe('lost');
  });

  it('overwrites a late write with a lower epoch instead of treating it as a loss', async () => {
    const h = harness();
    h.disk.raw = encodeLockRecord(oldRecord({ released: true }));
    const a = h.add('a');
    await started(h, a);
    expect(a.keeper.role()).toBe('active');
    h.disk.raw = encodeLockRecord(oldRecord({ counter: 10 })); // the old holder's renewal lands late
    await h.world.runUntil(h.world.now + I + 50);
    expect(a.keeper.role()).toBe('active');
    const rec = h.disk.current();
    expect(rec.kind === 'record' && rec.record.instance_id).toBe('a');
    expect(a.logs.some((l) => l.includes('Overwrote a late write to the scheduler lock'))).toBe(true);
  });

  it('treats a record with a higher epoch as a lost lock and never writes over it, not even on stop', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const newer = oldRecord({ holder: 'other', instance_id: 'other', epoch: 7, counter: 0 });
    h.disk.raw = encodeLockRecord(newer);
    await h.world.runUntil(h.world.now + I + 50);
    expect(a.keeper.role()).toBe('lost');
    expect(a.keeper.canDispatch()).toBe(false);
    const stopping = a.keeper.stop();
    await h.world.runUntil(h.world.now + T);
    await stopping;
    expect(h.disk.raw).toBe(encodeLockRecord(newer));
  });

  it('does not release on stop when another holder has the lock at the same epoch', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const rec = h.disk.current();
    if (rec.kind !== 'record') throw new Error('expected a record');
    const rival = { ...rec.record, holder: 'rival', instance_id: 'rival' };
    h.disk.raw = encodeLockRecord(rival);
    const stopping = a.keeper.stop();
    await h.world.runUntil(h.world.now + T);
    await stopping;
    expect(h.disk.raw).toBe(encodeLockRecord(rival));
    expect(a.logs.some((l) => l.startsWith('warn Did not release the scheduler lock on stop'))).toBe(true);
  });

  it('is not moved by the wall clock jumping backwards on either host', async () => {
    const h = harness();
    const a = h.add('a');
    await started(h, a);
    const b = h.add('b');
    await started(h, b);
    a.node.wallOffsetMs = -3_600_000;
    b.node.wallOffsetMs = -7_200_000;
    await untilRenewed(h, 10 * T);
    expect(a.keeper.role()).toBe('active');
    expect(b.keeper.role()).toBe('standby');
    a.node.crashed = true;
    const lastWriteAt = h.world.now;
    await h.world.runUntil(lastWriteAt + T - 10);
    expect(b.keeper.role()).toBe('standby');
    await h.world.runUntil(lastWriteAt + T + R + 100);
    expect(b.keeper.role()).toBe('active');
  });
});
