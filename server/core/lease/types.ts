// The scheduler lock's record and the storage port it lives behind (DESIGN §5). Pure types: the file
// implementation is server/store/fileSchedulerLock.ts, the in-memory one server/store/memorySchedulerLock.ts.

/** The content of the lock file. Only `holder`, `epoch`, `counter` and `released` take part in decisions. */
export interface LockRecord {
  version: 1;
  /** Random token of this acquisition; a new one at every acquisition, so a record is never ambiguous. */
  holder: string;
  instance_id: string;
  host: string;
  pid: number;
  /** Grows at every acquisition; a record with a lower epoch than the reader's own is a late write. */
  epoch: number;
  /** Grows at every renewal and at the release, so every write changes the record's identity. */
  counter: number;
  /** Set by a clean stop: a standby may take a released record at once instead of waiting T. */
  released: boolean;
  /** RFC 3339, written from the writer's wall clock: display data only, never used for a decision. */
  acquired_at: string;
  renewed_at: string;
}

/** What a read of the lock found. A corrupt record keeps its raw text, which is its identity. */
export type LockRead =
  { kind: 'none' } | { kind: 'record'; record: LockRecord } | { kind: 'corrupt'; raw: string; error: string };

/** Where the lock lives. Every method may throw a storage error or never settle (a stalled mount). */
export interface LockStorage {
  read(): Promise<LockRead>;
  /** Exclusive create when there is no record; false if one exists. */
  create(record: LockRecord): Promise<boolean>;
  /**
   * CAS: replace the record observed (`observed`) with `next`; exactly one caller per observed record gets
   * true. The claim is per observed epoch and attempt (`next.epoch - observed.epoch - 1`), so a record of an
   * epoch that has already been taken over (a late write) can never be taken over a second time. `attempt`
   * (claims of this record already lost) names the claim of a corrupt record, whose epoch is unknown.
   */
  takeOver(observed: LockRead, next: LockRecord, attempt?: number): Promise<boolean>;
  /** Replace by the holder (renewal / release). The caller has verified ownership by reading first. */
  write(record: LockRecord): Promise<void>;
}
