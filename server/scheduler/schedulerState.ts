// The scheduler's persisted progress (data/scheduler/state.json): the last completed tick, the last slot
// planned per DAG and the pending one-off slots, so that a restarted scheduler knows which slots it missed.
// Written atomically.

import path from 'node:path';
import { readJsonFile, writeFileAtomic } from '../store/fsutil';
import type { Logger } from '../core/ports';

export interface SchedulerState {
  version: 1;
  /** Wall-clock ms of the last tick whose slots were all dispatched, or null. */
  last_tick_ms: number | null;
  /** Per DAG: the newest slot (ms) that was planned and handled. */
  dags: Record<string, { last_slot_ms: number }>;
  /**
   * Per DAG: one-off (`at`) slots seen before their time and not dispatched yet (see core/oneOffSlots). Absent
   * in files written before one-off schedules existed.
   */
  pending_at?: Record<string, number[]>;
}

export const emptyState = (): SchedulerState => ({ version: 1, last_tick_ms: null, dags: {} });

/** Where the scheduler keeps its progress: the state file, or memory in tests. */
export interface SchedulerStateStore {
  read(): Promise<SchedulerState>;
  write(state: SchedulerState): Promise<void>;
}

export class SchedulerStateFile implements SchedulerStateStore {
  readonly file: string;
  constructor(
    dataDir: string,
    private readonly logger: Logger,
  ) {
    this.file = path.join(dataDir, 'scheduler', 'state.json');
  }

  /** A missing file is a fresh start; a corrupt one is reported and treated as a fresh start (no replay). */
  async read(): Promise<SchedulerState> {
    const r = await readJsonFile<SchedulerState>(this.file);
    if (r.kind === 'missing') return emptyState();
    if (r.kind === 'corrupt' || r.value?.version !== 1 || typeof r.value.dags !== 'object') {
      this.logger.warn('Scheduler state file is unreadable; starting without replay', {
        path: this.file,
        error: r.kind === 'corrupt' ? r.error : 'unknown version',
      });
      return emptyState();
    }
    return r.value;
  }

  async write(state: SchedulerState): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(state)}\n`);
  }
}
