// Heartbeats this coordinator heard but could not write to the worker registry (a full disk, a database that
// is down), or could write only late (a stalled database), and the heartbeats it is handling right now, kept
// in memory: a worker that keeps heartbeating, or whose heartbeat waits on this coordinator's registry, must
// not look silent to the detector and have its runs failed as abandoned. A worker sends its next heartbeat
// only once this one is answered, so the time this coordinator held it up is not the worker's silence.

import type { WorkerRecord } from '../store/dispatchTypes';

/** Remembered workers at most; far more than heartbeat one coordinator. */
const MAX_WORKERS = 10_000;

/** The latest record of each worker whose last heartbeat the registry did not take. */
export class WorkerSightings {
  private readonly latest = new Map<string, WorkerRecord>();
  /** Heartbeats being handled, by worker: the record each would write, and how many are in flight. */
  private readonly inFlight = new Map<string, { record: WorkerRecord; count: number }>();

  /** Notes a heartbeat being handled (until `handled`): its worker is being heard from at this moment. */
  handling(record: WorkerRecord): void {
    const was = this.inFlight.get(record.worker_id);
    this.inFlight.set(record.worker_id, { record, count: (was?.count ?? 0) + 1 });
  }

  /** The end of a heartbeat `handling` noted, however it ended. */
  handled(workerId: string): void {
    const was = this.inFlight.get(workerId);
    if (!was || was.count <= 1) this.inFlight.delete(workerId);
    else was.count--;
  }

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
   * heard from whose records are missing from the registry (their write failed). A worker whose heartbeat
   * is being handled counts as heard at `nowMs`.
   */
  overlay(stored: readonly WorkerRecord[], nowMs: number): Map<string, WorkerRecord> {
    const out = new Map(stored.map((w) => [w.worker_id, w]));
    const heardFrom = [
      ...this.latest.values(),
      ...[...this.inFlight.values()].map((f) => ({ ...f.record, last_heartbeat_ms: nowMs })),
    ];
    for (const heard of heardFrom) {
      const rec = out.get(heard.worker_id);
      if (!rec || heard.last_heartbeat_ms > rec.last_heartbeat_ms) out.set(heard.worker_id, heard);
    }
    return out;
  }
}
