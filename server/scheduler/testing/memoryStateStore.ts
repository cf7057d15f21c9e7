// The scheduler's state store in memory, for the scheduling loops' unit tests.

import { emptyState, type SchedulerState, type SchedulerStateStore } from '../schedulerState';

/** The scheduler's state kept in memory; `writes` holds a copy of every write. */
export class MemoryStateStore implements SchedulerStateStore {
  readonly writes: SchedulerState[] = [];
  constructor(public state: SchedulerState = emptyState()) {}

  async read(): Promise<SchedulerState> {
    return structuredClone(this.state);
  }

  async write(state: SchedulerState): Promise<void> {
    this.state = structuredClone(state);
    this.writes.push(this.state);
  }
}
