// In-memory scheduler lock storage with the same semantics as FileSchedulerLock, for unit tests.

import { supersededBy, takeoverMarkerName } from '../core/lease/takeoverMarker';
import type { LockRead, LockRecord, LockStorage } from '../core/lease/types';
import { decodeLockRecord, encodeLockRecord } from './lockRecordCodec';

export class MemoryLockStorage implements LockStorage {
  /** The raw content of the lock "file", or null when there is none; tests may put corrupt text here. */
  raw: string | null = null;
  /** Takeover claims made so far. */
  readonly markers = new Set<string>();

  async read(): Promise<LockRead> {
    return this.raw === null ? { kind: 'none' } : decodeLockRecord(this.raw);
  }

  async create(record: LockRecord): Promise<boolean> {
    if (this.raw !== null) return false;
    this.raw = encodeLockRecord(record);
    return true;
  }

  async takeOver(observed: LockRead, next: LockRecord, attempt = 0): Promise<boolean> {
    const marker = takeoverMarkerName(observed, next, attempt);
    if (this.markers.has(marker)) return false;
    this.markers.add(marker);
    if (observed.kind === 'record' && supersededBy([...this.markers], observed.record.epoch) !== null) {
      return false;
    }
    this.raw = encodeLockRecord(next);
    return true;
  }

  async write(record: LockRecord): Promise<void> {
    this.raw = encodeLockRecord(record);
  }
}
