// In-memory CoordinatorRegistry with the behaviour of FileCoordinatorRegistry (same ID validation and
// order), for tests.

import { assertCoordinatorId } from './distributedDir';
import type { CoordinatorRecord, CoordinatorRegistry } from './dispatchTypes';

export class MemoryCoordinatorRegistry implements CoordinatorRegistry {
  private readonly records = new Map<string, CoordinatorRecord>();

  async put(record: CoordinatorRecord): Promise<void> {
    assertCoordinatorId(record.coordinator_id);
    this.records.set(record.coordinator_id, structuredClone(record));
  }

  async list(): Promise<CoordinatorRecord[]> {
    return [...this.records.values()]
      .sort((a, b) =>
        a.coordinator_id < b.coordinator_id ? -1 : a.coordinator_id > b.coordinator_id ? 1 : 0,
      )
      .map((r) => structuredClone(r));
  }
}
