// The per-DAG totals of finished runs (runAggregate.ts), kept up to date from the shared event log and
// checkpointed in `data/metrics/run-totals.json`: the totals together with how far each day file of the log
// had been read. A server that starts reads the checkpoint and then only the events after it, so the
// counters survive restarts without reading the whole log again, and never scan the run history.
//
// Every server may write the checkpoint (atomic replace, at most every CHECKPOINT_EVERY_MS): the fold gives
// the same totals for the same events in any order, so any checkpoint is a true picture of the log up to its
// offsets, and a server that reads on from it agrees with one that read the log from the start.

import path from 'node:path';
import type { Clock, Logger } from '../core/ports';
import { FileEventFeed, type EventFeed } from '../store/eventFeed';
import { errorMessage, readJsonFile, writeFileAtomic, ensureDir } from '../store/fsutil';
import {
  AGGREGATED_EVENT_TYPES,
  applyEvent,
  emptyAggregate,
  parseAggregate,
  type RunAggregateState,
} from './runAggregate';

/** How often the checkpoint is written at most, while events come in. */
export const CHECKPOINT_EVERY_MS = 30_000;

interface Checkpoint {
  version: 1;
  /** FileEventFeed.position(): bytes read of each day file. */
  offsets: Record<string, number>;
  totals: RunAggregateState;
}

export interface RunTotalsDeps {
  /** `paths.data_dir`: the event log is read from `events/`, the checkpoint kept in `metrics/`. */
  dataDir: string;
  /**
   * The event log when it is not the data directory's files (a database): read from its start when the
   * process starts, with no checkpoint (the data directory is then local to this host).
   */
  feed?: () => EventFeed;
  clock: Clock;
  logger: Logger;
}

export class RunTotals {
  private state: RunAggregateState = emptyAggregate();
  private feed: FileEventFeed | null = null;
  private otherFeed: EventFeed | null = null;
  private pending: Promise<void> | null = null;
  /** Monotonic time of the last checkpoint written (or read), null before. */
  private savedAtMono: number | null = null;
  /** Whether the feed moved since the last checkpoint. */
  private unsaved = false;
  private readonly file: string;

  constructor(private readonly d: RunTotalsDeps) {
    this.file = path.join(d.dataDir, 'metrics', 'run-totals.json');
  }

  /** Reads the events appended since the last call (the checkpoint first, on the first call). */
  catchUp(): Promise<void> {
    this.pending ??= this.readOn().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** The totals as of the last catch-up (do not change the object). */
  get totals(): Readonly<RunAggregateState> {
    return this.state;
  }

  private async readOn(): Promise<void> {
    if (this.d.feed) {
      this.otherFeed ??= this.d.feed();
      for (const event of await this.otherFeed.read((type) => AGGREGATED_EVENT_TYPES.has(type)))
        applyEvent(this.state, event);
      return;
    }
    this.feed ??= await this.restore();
    const before = JSON.stringify(this.feed.position());
    for (const event of await this.feed.read((type) => AGGREGATED_EVENT_TYPES.has(type)))
      applyEvent(this.state, event);
    if (JSON.stringify(this.feed.position()) !== before) this.unsaved = true;
    const now = this.d.clock.monoMs();
    if (this.unsaved && (this.savedAtMono === null || now - this.savedAtMono >= CHECKPOINT_EVERY_MS)) {
      await this.save(now);
    }
  }

  /** The feed positioned after the checkpoint, with its totals; from the start of the log without one. */
  private async restore(): Promise<FileEventFeed> {
    let r;
    try {
      r = await readJsonFile<Checkpoint>(this.file, (v) =>
        isCheckpoint(v) ? null : 'not a run-totals checkpoint',
      );
    } catch (err) {
      this.d.logger.warn(
        'Could not read the run metrics checkpoint; counting from the start of the event log',
        {
          path: this.file,
          error: errorMessage(err),
        },
      );
      return new FileEventFeed(this.d.dataDir);
    }
    if (r.kind === 'corrupt') {
      this.d.logger.warn(
        'Could not read the run metrics checkpoint; counting from the start of the event log',
        {
          path: r.path,
          error: r.error,
        },
      );
      return new FileEventFeed(this.d.dataDir);
    }
    if (r.kind === 'missing') return new FileEventFeed(this.d.dataDir);
    this.state = r.value.totals;
    this.savedAtMono = this.d.clock.monoMs();
    return new FileEventFeed(this.d.dataDir, r.value.offsets);
  }

  private async save(nowMono: number): Promise<void> {
    const checkpoint: Checkpoint = { version: 1, offsets: this.feed!.position(), totals: this.state };
    try {
      await ensureDir(path.dirname(this.file));
      await writeFileAtomic(this.file, JSON.stringify(checkpoint), { durable: false });
      this.savedAtMono = nowMono;
      this.unsaved = false;
    } catch (err) {
      // The totals in memory are right; only a restart would read more of the log again.
      this.savedAtMono = nowMono;
      this.d.logger.warn('Could not write the run metrics checkpoint', {
        path: this.file,
        error: errorMessage(err),
      });
    }
  }
}

function isCheckpoint(v: unknown): v is Checkpoint {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Partial<Checkpoint>;
  return (
    c.version === 1 &&
    typeof c.offsets === 'object' &&
    c.offsets !== null &&
    parseAggregate(c.totals) !== null
  );
}
