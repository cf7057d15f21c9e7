// In-memory WorkerRegistry with the behaviour of FileWorkerRegistry (same ID validation and order), for tests.

import { assertWorkerId } from '../core/workerId';
import type { WorkerRecord, WorkerRegistry } from './dispatchTypes';

/** WorkerRegistry kept in memory; records are copied in and out. */
export class MemoryWorkerRegistry implements WorkerRegistry {
  private readonly records = new Map<string, WorkerRecord>();

  async put(record: WorkerRecord): Promise<void> {
    assertWorkerId(record.worker_id);
    this.records.set(record.worker_id, structuredClone(record));
  }

  async get(workerId: string): Promise<WorkerRecord | null> {
    assertWorkerId(workerId);
    const record = this.records.get(workerId);
    return record ? structuredClone(record) : null;
  }

  /** Every worker, by ID. */
  async list(): Promise<WorkerRecord[]> {
    return [...this.records.values()]
      .sort((a, b) => (a.worker_id < b.worker_id ? -1 : a.worker_id > b.worker_id ? 1 : 0))
      .map((record) => structuredClone(record));
  }

  async remove(workerId: string): Promise<void> {
    assertWorkerId(workerId);
    this.records.delete(workerId);
  }
}
