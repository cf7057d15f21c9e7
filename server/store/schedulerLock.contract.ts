// The behaviour every scheduler lock storage must have; run against FileSchedulerLock, MemoryLockStorage and
// the PostgreSQL lock (tests/integration/postgres).

import { describe, expect, it } from 'vitest';
import type { LockRecord, LockStorage } from '../core/lease/types';

export const lockRecord = (over: Partial<LockRecord> = {}): LockRecord => ({
  version: 1,
  holder: 'token-a',
  instance_id: 'a',
  host: 'host-a',
  pid: 10,
  epoch: 1,
  counter: 0,
  released: false,
  acquired_at: '2026-11-30T01:15:00.000Z',
  renewed_at: '2026-11-30T01:15:00.000Z',
  ...over,
});

export interface LockStorageTraits {
  /**
   * A deposed holder's renewal lands (the file: a plain rename). A database refuses it instead (the write is
   * conditional on the holder's token and epoch) and the new owner's record stays.
   */
  lateWritesLand: boolean;
  /** The storage can hold a record that does not decode (a file); typed rows cannot. */
  canBeCorrupt: boolean;
}

export function schedulerLockContract(
  name: string,
  make: () => Promise<LockStorage>,
  traits: LockStorageTraits = { lateWritesLand: true, canBeCorrupt: true },
) {
  describe(`${name} (scheduler lock contract)`, () => {
    it('reads none before anything was written', async () => {
      expect(await (await make()).read()).toEqual({ kind: 'none' });
    });

    it('creates once: of two creates exactly one wins and its record is read back whole', async () => {
      const s = await make();
      const results = await Promise.all([
        s.create(lockRecord()),
        s.create(lockRecord({ holder: 'token-b' })),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const read = await s.read();
      expect(read.kind).toBe('record');
      expect(await s.create(lockRecord({ holder: 'token-c' }))).toBe(false);
    });

    it('round-trips a renewal and a release', async () => {
      const s = await make();
      await s.create(lockRecord());
      await s.write(lockRecord({ counter: 1 }));
      expect(await s.read()).toEqual({ kind: 'record', record: lockRecord({ counter: 1 }) });
      await s.write(lockRecord({ counter: 2, released: true }));
      expect(await s.read()).toEqual({ kind: 'record', record: lockRecord({ counter: 2, released: true }) });
    });

    it('lets exactly one of many concurrent takeovers of the same observed record win, every time', async () => {
      for (let round = 0; round < 50; round++) {
        const s = await make();
        await s.create(lockRecord({ epoch: round + 1 }));
        const observed = await s.read();
        const takers = Array.from({ length: 6 }, (_, i) =>
          s.takeOver(observed, lockRecord({ holder: `taker-${i}`, epoch: round + 2 })),
        );
        const wins = (await Promise.all(takers)).map((won, i) => (won ? i : -1)).filter((i) => i >= 0);
        expect(wins).toHaveLength(1);
        const read = await s.read();
        expect(read.kind === 'record' && read.record.holder).toBe(`taker-${wins[0]}`);
      }
    });

    if (traits.lateWritesLand) {
      it('never lets a late write of an epoch already taken over be taken over again', async () => {
        const s = await make();
        await s.create(lockRecord({ epoch: 1 }));
        const first = await s.read();
        expect(await s.takeOver(first, lockRecord({ holder: 'b', epoch: 2 }))).toBe(true);
        // The old holder's renewal lands late, with a new counter: a different record of the same epoch.
        await s.write(lockRecord({ epoch: 1, counter: 5, released: true }));
        const late = await s.read();
        expect(await s.takeOver(late, lockRecord({ holder: 'c', epoch: 2 }))).toBe(false);
      });
    } else {
      it('refuses a late write by a holder whose epoch was taken over, and keeps the new owner', async () => {
        const s = await make();
        await s.create(lockRecord({ epoch: 1 }));
        const first = await s.read();
        const b = lockRecord({ holder: 'b', instance_id: 'b', epoch: 2 });
        expect(await s.takeOver(first, b)).toBe(true);
        await expect(s.write(lockRecord({ epoch: 1, counter: 5 }))).rejects.toThrow(/no longer held/);
        await expect(s.write(lockRecord({ epoch: 1, counter: 6, released: true }))).rejects.toThrow(
          /no longer held/,
        );
        expect(await s.read()).toEqual({ kind: 'record', record: b });
        // And a takeover of the first record observed, arriving late, loses.
        expect(await s.takeOver(first, lockRecord({ holder: 'c', epoch: 2 }))).toBe(false);
      });
    }

    if (!traits.canBeCorrupt) return;
    it('takes over a corrupt record once per attempt', async () => {
      const s = await make();
      await s.create(lockRecord());
      await s.write(lockRecord({ counter: 1 }));
      const corrupt = { kind: 'corrupt' as const, raw: '{"version":1,"hol', error: 'invalid JSON' };
      expect(await s.takeOver(corrupt, lockRecord({ holder: 'x', epoch: 2 }))).toBe(true);
      expect(await s.takeOver(corrupt, lockRecord({ holder: 'y', epoch: 2 }))).toBe(false);
      expect(await s.takeOver(corrupt, lockRecord({ holder: 'y', epoch: 3 }), 1)).toBe(true);
    });
  });
}
