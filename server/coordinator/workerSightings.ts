// Heartbeats this coordinator heard but could not write to the worker registry (a full disk), kept in memory:
// a worker that keeps heartbeating must not look silent to the detector and have its runs failed as abandoned.

import type { WorkerRecord } from '../store/dispatchTypes';

/** Remembered workers at most; far more than heartbeat one coordinator. */
const MAX_WORKERS = 10_000;

/** The latest record of each worker whose last heartbeat the registry did not take. */
export class WorkerSightings {
  private readonly latest = new Map<string, WorkerRecord>();

  /** Notes a heartbeat's record that could not be written. */
  saw(record: WorkerRecord): void {
    this.latest.delete(record.worker_id);
    this.latest.set(record.worker_id, record);
    if (this.latest.size > MAX_WORKERS) this.latest.delete(this.latest.keys().next().value!);
  }

  /** Forgets a worker once its record is written again, or when it left or was removed. */
  forget(workerId: string): void {
    this.latest.delete(workerId);
  }

  /**
   * The registry's records, each replaced by what this coordinator heard more recently, plus the workers
   * heard from whose records are missing from the registry (their write failed).
   */
  overlay(stored: readonly WorkerRecord[]): Map<string, WorkerRecord> {
    const out = new Map(stored.map((w) => [w.worker_id, w]));
    for (const [id, heard] of this.latest) {
      const rec = out.get(id);
      if (!rec || heard.last_heartbeat_ms > rec.last_heartbeat_ms) out.set(id, heard);
    }
    return out;
  }
}
