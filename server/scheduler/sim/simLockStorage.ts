// Lock storage on a simulated disk shared by simulated nodes. Each node's calls can fail, stall until a
// time, be slow, or apply (and answer) long after they were made: a write that lands after its writer
// was fenced. Answers reach the node through SimNode.deliver, so a paused node sees them late.

import { supersededBy, takeoverMarkerName } from '../../core/lease/takeoverMarker';
import type { LockRead, LockRecord, LockStorage } from '../../core/lease/types';
import { decodeLockRecord, encodeLockRecord } from '../../store/lockRecordCodec';
import type { Prng } from './prng';
import type { SimNode, SimWorld } from './simWorld';

/** The shared state: what every node's storage reads and writes. */
export class SimDisk {
  raw: string | null = null;
  readonly markers = new Set<string>();
  /** Calls issued but not yet applied, by node name. */
  readonly pending = new Map<string, number>();
  /** Violations of "a record not provably ours is never written" seen when a release was issued. */
  readonly clobbers: string[] = [];
  /** The latest true time at which a call issued by a node will apply, by node name. */
  readonly latestApplyAt = new Map<string, number>();

  current(): LockRead {
    return this.raw === null ? { kind: 'none' } : decodeLockRecord(this.raw);
  }

  pendingOf(node: string): number {
    return this.pending.get(node) ?? 0;
  }
}

/** How one node's storage behaves right now; the schedule changes it over time. */
export interface StorageFaults {
  mode: 'ok' | 'fail' | 'stall';
  /** For `stall`: calls apply no earlier than this true time. */
  stallUntil: number;
  latencyMs: [number, number];
  /** Chance that a write applies (and answers) `lateByMs` later than usual. */
  lateWriteChance: number;
  lateByMs: [number, number];
}

export const healthyStorage = (): StorageFaults => ({
  mode: 'ok',
  stallUntil: 0,
  latencyMs: [1, 10],
  lateWriteChance: 0,
  lateByMs: [0, 0],
});

export class SimLockStorage implements LockStorage {
  faults: StorageFaults = healthyStorage();

  constructor(
    private readonly world: SimWorld,
    private readonly node: SimNode,
    private readonly disk: SimDisk,
    private readonly rng: Prng,
  ) {}

  read(): Promise<LockRead> {
    return this.op(() => this.disk.current(), false);
  }

  create(record: LockRecord): Promise<boolean> {
    return this.op(() => {
      if (this.disk.raw !== null) return false;
      this.disk.raw = encodeLockRecord(record);
      return true;
    }, true);
  }

  async takeOver(observed: LockRead, next: LockRecord, attempt = 0): Promise<boolean> {
    // Two steps like the file storage (mkdir, then list and rename), so a node can die or stall between them.
    const marker = takeoverMarkerName(observed, next, attempt);
    const claimed = await this.op(() => {
      if (this.disk.markers.has(marker)) return false;
      this.disk.markers.add(marker);
      return true;
    }, false);
    if (!claimed) return false;
    return this.op(() => {
      if (
        observed.kind === 'record' &&
        supersededBy([...this.disk.markers], observed.record.epoch) !== null
      ) {
        return false;
      }
      this.disk.raw = encodeLockRecord(next);
      return true;
    }, true);
  }

  write(record: LockRecord): Promise<void> {
    if (record.released) {
      const now = this.disk.current();
      if (now.kind === 'record' && now.record.holder !== record.holder && now.record.epoch >= record.epoch) {
        this.disk.clobbers.push(
          `${this.node.name} released epoch ${record.epoch} over ${now.record.instance_id}'s epoch ${now.record.epoch}`,
        );
      }
    }
    return this.op(() => {
      this.disk.raw = encodeLockRecord(record);
    }, true);
  }

  private op<T>(apply: () => T, isWrite: boolean): Promise<T> {
    const f = this.faults;
    const latency = this.rng.real(f.latencyMs[0], f.latencyMs[1]);
    const name = this.node.name;
    return new Promise<T>((resolve, reject) => {
      if (f.mode === 'fail') {
        this.world.at(this.world.now + latency, () =>
          this.node.deliver(() => reject(new Error('EIO: i/o error'))),
        );
        return;
      }
      let applyAt = (f.mode === 'stall' ? Math.max(this.world.now, f.stallUntil) : this.world.now) + latency;
      if (isWrite && this.rng.chance(f.lateWriteChance))
        applyAt += this.rng.real(f.lateByMs[0], f.lateByMs[1]);
      this.disk.pending.set(name, this.disk.pendingOf(name) + 1);
      this.disk.latestApplyAt.set(name, Math.max(this.disk.latestApplyAt.get(name) ?? 0, applyAt));
      this.world.at(applyAt, () => {
        this.disk.pending.set(name, this.disk.pendingOf(name) - 1);
        // The storage applies a call it has received even if the caller has died since.
        const value = apply();
        if (isWrite && process.env.DAGU_SIM_TRACE)
          console.log(`${this.world.now.toFixed(1)} disk ${name} applied -> ${this.disk.raw?.slice(0, 120)}`);
        this.node.deliver(() => resolve(value));
      });
    });
  }
}
