// The scheduler's persisted progress (data/scheduler/tick-state.json): the last completed tick, the last slot
// planned per DAG and the pending one-off slots, so that a restarted scheduler knows which slots it missed.
// Written atomically.
//
// Homes written by earlier versions keep this record in data/scheduler/state.json. Dagu 2.x writes its own
// scheduler state under that same name, so the old name is only read, and only when the file has our shape
// (a home shared with Dagu keeps Dagu's file byte for byte; nothing here ever writes or deletes it).

import path from 'node:path';
import { readJsonFile, writeFileAtomic } from '../store/fsutil';
import type { Logger } from '../core/ports';
import type { SkipResets } from '../core/skipIfSuccessful';

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
  /**
   * Per DAG: the fingerprint of its cron schedules and skip_if_successful, and when the scheduler saw it
   * change (see core/skipIfSuccessful planSkipResets). Absent in files written before it existed.
   */
  skip_resets?: SkipResets;
}

export const emptyState = (): SchedulerState => ({ version: 1, last_tick_ms: null, dags: {} });

/** Our state file, relative to the data directory. */
export const SCHEDULER_STATE_FILE = path.join('scheduler', 'tick-state.json');
/** Where earlier versions kept it; Dagu 2.x keeps its own scheduler state under the same name. */
export const LEGACY_SCHEDULER_STATE_FILE = path.join('scheduler', 'state.json');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isMs = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/**
 * Why a parsed file is not our scheduler state, or null when it is. Ours carries `version: 1` and a
 * `last_tick_ms` (a number or null), and every DAG entry is `{last_slot_ms}`. Dagu's state file has other
 * versions (up to 4 today), `lastTick` in camelCase and watermark objects of its own, so it never passes.
 */
export function schedulerStateShapeError(value: unknown): string | null {
  if (!isPlainObject(value)) return 'not a JSON object';
  if (value.version !== 1) return `unknown version ${JSON.stringify(value.version)}`;
  if (!('last_tick_ms' in value) || (value.last_tick_ms !== null && !isMs(value.last_tick_ms))) {
    return 'last_tick_ms is missing or not a number';
  }
  if (!isPlainObject(value.dags)) return 'dags is not an object';
  for (const [dag, entry] of Object.entries(value.dags)) {
    if (!isPlainObject(entry) || !isMs(entry.last_slot_ms)) return `dags.${dag} has no last_slot_ms`;
  }
  if (value.pending_at !== undefined) {
    if (!isPlainObject(value.pending_at)) return 'pending_at is not an object';
    for (const [dag, slots] of Object.entries(value.pending_at)) {
      if (!Array.isArray(slots) || !slots.every(isMs)) return `pending_at.${dag} is not a list of times`;
    }
  }
  if (value.skip_resets !== undefined) {
    if (!isPlainObject(value.skip_resets)) return 'skip_resets is not an object';
    for (const [dag, entry] of Object.entries(value.skip_resets)) {
      if (
        !isPlainObject(entry) ||
        typeof entry.fingerprint !== 'string' ||
        (entry.reset_at_ms !== null && !isMs(entry.reset_at_ms))
      )
        return `skip_resets.${dag} is not {fingerprint, reset_at_ms}`;
    }
  }
  return null;
}

/** Where the scheduler keeps its progress: the state file, or memory in tests. */
export interface SchedulerStateStore {
  read(): Promise<SchedulerState>;
  write(state: SchedulerState): Promise<void>;
}

export class SchedulerStateFile implements SchedulerStateStore {
  readonly file: string;
  /** The name earlier versions wrote; read (never written) while `file` does not exist yet. */
  readonly legacyFile: string;
  constructor(
    dataDir: string,
    private readonly logger: Logger,
  ) {
    this.file = path.join(dataDir, SCHEDULER_STATE_FILE);
    this.legacyFile = path.join(dataDir, LEGACY_SCHEDULER_STATE_FILE);
  }

  /**
   * A missing file is a fresh start; a corrupt one is reported and treated as a fresh start (no replay).
   * Without our file, the old name is read when it holds our shape; a file of another shape there is
   * Dagu's and is left alone.
   */
  async read(): Promise<SchedulerState> {
    const r = await readJsonFile<SchedulerState>(this.file, schedulerStateShapeError);
    if (r.kind === 'ok') return r.value;
    if (r.kind === 'corrupt') {
      this.logger.warn('Scheduler state file is unreadable; starting without replay', {
        path: this.file,
        error: r.error,
      });
      return emptyState();
    }
    const legacy = await readJsonFile<SchedulerState>(this.legacyFile, schedulerStateShapeError);
    if (legacy.kind === 'ok') {
      this.logger.info('Read the scheduler state from its old file name; the next tick writes the new one', {
        path: this.legacyFile,
        new_path: this.file,
      });
      return legacy.value;
    }
    if (legacy.kind === 'corrupt') {
      this.logger.info(
        'Leaving data/scheduler/state.json alone: it is not our state (Dagu 2.x writes one there)',
        {
          path: this.legacyFile,
          reason: legacy.error,
        },
      );
    }
    return emptyState();
  }

  async write(state: SchedulerState): Promise<void> {
    await writeFileAtomic(this.file, `${JSON.stringify(state)}\n`);
  }
}

/** A store of one JSON document (the tick state on a database): null before the first write. */
export interface JsonCell {
  read(): Promise<unknown>;
  write(value: unknown): Promise<void>;
}

/** The scheduler state kept in a JSON cell; a document of another shape is reported and ignored. */
export class SchedulerStateCell implements SchedulerStateStore {
  constructor(
    private readonly cell: JsonCell,
    private readonly logger: Logger,
  ) {}

  async read(): Promise<SchedulerState> {
    const value = await this.cell.read();
    if (value === null) return emptyState();
    const problem = schedulerStateShapeError(value);
    if (problem === null) return value as SchedulerState;
    this.logger.warn('Scheduler state is unreadable; starting without replay', { error: problem });
    return emptyState();
  }

  async write(state: SchedulerState): Promise<void> {
    await this.cell.write(state);
  }
}
