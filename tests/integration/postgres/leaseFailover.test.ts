// The scheduler's lease protocol (LeaseKeeper, unchanged) on the PostgreSQL lock, with real timers and a
// real cluster: a standby takes over a holder that went silent within T + 2R, after the holder fenced
// itself; the deposed holder's renewal and fenced writes are refused by the database once it wakes up; a
// clean stop hands over within about R.

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../../../server/core/clock';
import type { LockRead, LockRecord, LockStorage } from '../../../server/core/lease/types';
import { LeaseKeeper, type RoleChange } from '../../../server/scheduler/leaseKeeper';
import { LeaseFenceError, PgSchedulerLock } from '../../../server/store/postgres/pgSchedulerLock';
import { usePostgres } from './pgTestCluster';
import { RecordingLogger } from '../../../server/testing/recordingLogger';

const T = 1500;
const R = 150;

const pg = usePostgres({ poolSize: 10 });
let schemaN = 0;

/** A lock storage whose calls can be made to hang, as a holder whose process or network stalls. */
class Stallable implements LockStorage {
  stalled = false;
  private readonly held: Array<() => void> = [];
  constructor(private readonly inner: LockStorage) {}
  private gate<T>(call: () => Promise<T>): Promise<T> {
    if (!this.stalled) return call();
    return new Promise<void>((resolve) => this.held.push(resolve)).then(call);
  }
  /** Lets the held calls through, late, as a process that wakes up does. */
  wake(): void {
    this.stalled = false;
    this.held.splice(0).forEach((go) => go());
  }
  read(): Promise<LockRead> {
    return this.gate(() => this.inner.read());
  }
  create(r: LockRecord): Promise<boolean> {
    return this.gate(() => this.inner.create(r));
  }
  takeOver(o: LockRead, n: LockRecord, a?: number): Promise<boolean> {
    return this.gate(() => this.inner.takeOver(o, n, a));
  }
  write(r: LockRecord): Promise<void> {
    return this.gate(() => this.inner.write(r));
  }
}

async function freshLock(): Promise<PgSchedulerLock> {
  const schema = `dagu_failover_${++schemaN}`;
  await pg().migrate(schema);
  return new PgSchedulerLock(pg().pool, schema);
}

function keeper(name: string, storage: LockStorage, changes: Array<RoleChange & { atMono: number }>) {
  return new LeaseKeeper({
    storage,
    clock: systemClock,
    timers: systemTimers,
    logger: new RecordingLogger(),
    staleThresholdMs: T,
    retryIntervalMs: R,
    identity: { instance_id: name, host: `host-${name}`, pid: process.pid },
    newToken: () => `${name}-${randomBytes(6).toString('hex')}`,
    onRoleChange: (c) => changes.push({ ...c, atMono: systemClock.monoMs() }),
    dataDir: 'postgres',
  });
}

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('LeaseKeeper on the PostgreSQL lock', () => {
  it('fails over from a silent holder within T + 2R, and the database refuses the old holder', async () => {
    const lock = await freshLock();
    const aStorage = new Stallable(lock);
    const aChanges: Array<RoleChange & { atMono: number }> = [];
    const bChanges: Array<RoleChange & { atMono: number }> = [];
    const a = keeper('a', aStorage, aChanges);
    const b = keeper('b', lock, bChanges);
    try {
      await a.start();
      await waitFor(() => a.canDispatch());
      await b.start();
      expect(b.role()).toBe('standby');
      const mine = (await lock.read()) as { kind: 'record'; record: LockRecord };
      expect(mine.record.instance_id).toBe('a');

      // a goes silent: every storage call it makes from now on hangs.
      aStorage.stalled = true;
      const silentAt = systemClock.monoMs();
      await waitFor(() => b.canDispatch());
      const acquired = bChanges.find((c) => c.kind === 'acquired')!;
      expect(acquired).toMatchObject({ how: 'stale' });
      // a fenced itself before b could take over (T - I after its last renewal started).
      expect(a.canDispatch()).toBe(false);
      const failover = acquired.atMono - silentAt;
      // The spec's bound, plus room for a loaded machine's event-loop lag; never before T has passed since
      // a's last renewal, which started at most one renewal interval before it went silent.
      expect(failover).toBeLessThanOrEqual(T + 2 * R + 1000);
      expect(failover).toBeGreaterThanOrEqual(T - a.renewalIntervalMs());

      // a wakes up: its stalled renewal lands late and is refused; its next read shows it lost.
      aStorage.wake();
      await waitFor(() => a.role() === 'lost');
      await expect(
        lock.fenced(mine.record.holder, mine.record.epoch, async () => undefined),
      ).rejects.toBeInstanceOf(LeaseFenceError);
      const now = (await lock.read()) as { kind: 'record'; record: LockRecord };
      expect(now.record.instance_id).toBe('b');
      expect(now.record.epoch).toBe(mine.record.epoch + 1);
      const history = await lock.failovers();
      expect(history[0]).toMatchObject({ from: 'a', to: 'b', reason: 'stale' });
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('hands over within about R after a clean stop', async () => {
    const lock = await freshLock();
    const aChanges: Array<RoleChange & { atMono: number }> = [];
    const bChanges: Array<RoleChange & { atMono: number }> = [];
    const a = keeper('a', lock, aChanges);
    const b = keeper('b', lock, bChanges);
    try {
      await a.start();
      await waitFor(() => a.canDispatch());
      await b.start();
      const stoppedAt = systemClock.monoMs();
      await a.stop();
      await waitFor(() => b.canDispatch());
      const acquired = bChanges.find((c) => c.kind === 'acquired')!;
      expect(acquired).toMatchObject({ how: 'released' });
      expect(acquired.atMono - stoppedAt).toBeLessThanOrEqual(R + 1000);
      expect(acquired.atMono - stoppedAt).toBeLessThan(T);
    } finally {
      await a.stop();
      await b.stop();
    }
  });
});
