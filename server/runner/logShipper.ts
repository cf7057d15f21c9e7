// Copies a run's log files from the local disk into the run log store while the run is live, so that with a
// database backend the console follows a running run and keeps its logs after the host is gone. The run
// keeps writing its local files as ever; the shipper appends their new bytes in bounded chunks every
// interval, at once when a step ends (`kick`), and to the end before the final status (`flush`).
//
// Shipping never fails or holds up a run: a store that refuses or does not answer is retried on later passes
// and reported once per outage; `flush` gives up at its deadline, even on a call that never returns, and says
// how much it could not ship. An append names the offset it writes at, so an append whose answer was lost
// is sent again without doubling anything.

import { basename } from 'node:path';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import { RunNotFoundError } from '../store/errors';
import * as fileCalls from '../store/fileCalls';
import { errorCode } from '../store/fsutil';
import { LogGapError, RUN_LOG_NAME_PATTERN, type RunLogRef, type RunLogStore } from '../store/runLogStore';
import { errorText } from './statusReporter';

/** Reads the local log files: a file's size (null while it does not exist) and bytes of it. */
export interface LocalLogFiles {
  size(file: string): Promise<number | null>;
  read(file: string, position: number, length: number): Promise<Uint8Array>;
}

export interface LogShipperOptions {
  store: Pick<RunLogStore, 'append' | 'createLogs'>;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The run attempt whose logs these are. */
  run: Pick<RunLogRef, 'dag_name' | 'run_id' | 'attempt'>;
  files?: LocalLogFiles;
  /** Most bytes in one append (default 256 KiB). */
  chunkBytes?: number;
  /** Time between passes (default 1 s); after failures passes space out, up to 8 times as long. */
  intervalMs?: number;
}

/** What a flush achieved: `complete` when every byte written before it ended is in the store. */
export interface FlushOutcome {
  complete: boolean;
  /** Bytes of the local files not in the store when the flush ended. */
  unshippedBytes: number;
}

interface Tracked {
  ref: RunLogRef;
  file: string;
  /** Bytes of the file the store has. */
  shipped: number;
  /** The store knows the file (an empty file is stored as existing too). */
  known: boolean;
  /** Size seen by the latest pass. */
  seen: number;
  /** The store refuses this log for good (its run is gone): not tried again. */
  dropped: boolean;
}

export const DEFAULT_LOG_CHUNK_BYTES = 256 * 1024;
const MAX_BACKOFF_FACTOR = 8;

export class LogShipper {
  private readonly tracked = new Map<string, Tracked>();
  private readonly files: LocalLogFiles;
  private readonly chunkBytes: number;
  private readonly intervalMs: number;
  /** The pass under way; the requests it serves are those numbered up to the count when it started. */
  private current: Promise<boolean> | null = null;
  private requests = 0;
  private lastPass = { covers: 0, ok: true };
  private timer: TimerHandle | null = null;
  private stopped = false;
  private failures = 0;

  constructor(private readonly o: LogShipperOptions) {
    this.files = o.files ?? localLogFiles;
    this.chunkBytes = Math.max(1, o.chunkBytes ?? DEFAULT_LOG_CHUNK_BYTES);
    this.intervalMs = Math.max(1, o.intervalMs ?? 1000);
  }

  /** Ships `file` from now on (again: nothing). Its name in the store is its base name. */
  watch(file: string): void {
    if (this.tracked.has(file) || this.stopped) return;
    const name = basename(file);
    if (!RUN_LOG_NAME_PATTERN.test(name)) {
      this.o.logger.warn('Log not shipped: its name is not a log name', { file });
      return;
    }
    const ref: RunLogRef = { ...this.o.run, name };
    this.tracked.set(file, { ref, file, shipped: 0, known: false, seen: 0, dropped: false });
    this.schedule(this.intervalMs);
  }

  /** Ships what is new now (a step ended), without waiting for it. */
  kick(): void {
    if (!this.stopped) void this.runPass();
  }

  /**
   * Ships every byte written so far, retrying until the store has them all or `timeoutMs` has passed.
   * Never rejects and never waits longer than `timeoutMs`, even on a store call that does not return.
   */
  async flush(timeoutMs: number): Promise<FlushOutcome> {
    const deadline = this.o.clock.monoMs() + timeoutMs;
    for (;;) {
      const left = deadline - this.o.clock.monoMs();
      const caughtUp = await this.within(this.runPass(), left);
      if (caughtUp === true) return { complete: true, unshippedBytes: 0 };
      const wait = Math.min(this.backoffMs(), deadline - this.o.clock.monoMs());
      if (wait <= 0 || caughtUp === 'timeout') break;
      await new Promise<void>((resolve) => this.o.timers.setTimeout(resolve, wait));
    }
    return { complete: false, unshippedBytes: this.unshipped() };
  }

  /** No more passes (a pass under way finishes on its own). */
  stop(): void {
    this.stopped = true;
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Bytes seen in the local files that the store does not have. */
  unshipped(): number {
    let n = 0;
    for (const t of this.tracked.values()) if (!t.dropped) n += Math.max(0, t.seen - t.shipped);
    return n;
  }

  private schedule(ms: number): void {
    if (this.stopped || this.timer !== null) return;
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = null;
      void this.runPass().then(() => this.schedule(this.backoffMs()));
    }, ms);
  }

  private backoffMs(): number {
    return this.intervalMs * Math.min(MAX_BACKOFF_FACTOR, 2 ** this.failures);
  }

  /**
   * Resolves once a pass that started after this call has ended (joining one under way, or starting one),
   * so bytes written before the call are seen; true when that pass caught every file up. Never rejects.
   */
  private async runPass(): Promise<boolean> {
    const want = ++this.requests;
    for (;;) {
      if (this.lastPass.covers >= want) return this.lastPass.ok;
      if (this.current) {
        await this.current;
        continue;
      }
      const covers = this.requests;
      this.current = this.shipAll().then((ok) => {
        this.lastPass = { covers, ok };
        this.current = null;
        return ok;
      });
    }
  }

  private async shipAll(): Promise<boolean> {
    let failed: { error: unknown; name: string } | null = null;
    await this.createEmptyLogs();
    for (const t of this.tracked.values()) {
      if (t.dropped) continue;
      try {
        await this.shipFile(t);
      } catch (err) {
        if (err instanceof RunNotFoundError) {
          t.dropped = true;
          this.o.logger.warn('Log not shipped: the store has no such run attempt', {
            log: t.ref.name,
            error: err.message,
          });
          continue;
        }
        // The store is unreachable or refuses: the other files would only wait for the same answer.
        failed = { error: err, name: t.ref.name };
        break;
      }
    }
    if (failed) {
      if (this.failures === 0) {
        this.o.logger.warn('Log shipping failed; retrying', {
          log: failed.name,
          error: errorText(failed.error),
        });
      }
      this.failures++;
      return false;
    }
    if (this.failures > 0) this.o.logger.info('Log shipping resumed', { failed_passes: this.failures });
    this.failures = 0;
    return true;
  }

  /**
   * Where the store can, makes the logs that are new and still empty exist in one call (a run starts with
   * its own log and a step's stdout and stderr, often all empty), rather than one call each. Any failure
   * leaves them to shipFile, which makes them one by one and reports what fails as it always does.
   */
  private async createEmptyLogs(): Promise<void> {
    const store = this.o.store;
    if (!store.createLogs) return;
    const empty: Tracked[] = [];
    for (const t of this.tracked.values()) {
      if (t.dropped || t.known) continue;
      if ((await this.files.size(t.file).catch(() => null)) === 0) empty.push(t);
    }
    if (empty.length < 2) return;
    try {
      await store.createLogs(empty.map((t) => ({ ref: t.ref })));
    } catch {
      return;
    }
    for (const t of empty) t.known = true;
  }

  private async shipFile(t: Tracked): Promise<void> {
    const size = await this.files.size(t.file);
    if (size === null) return;
    t.seen = Math.max(t.seen, size);
    if (size < t.shipped) {
      // A log is only appended to; a shorter file is another file: what the store has stays as it is.
      t.dropped = true;
      this.o.logger.warn('Log not shipped further: the local file shrank', { log: t.ref.name, size });
      return;
    }
    if (!t.known && size === 0) {
      await this.o.store.append(t.ref, 0, new Uint8Array(0));
      t.known = true;
    }
    while (t.shipped < size) {
      const length = Math.min(this.chunkBytes, size - t.shipped);
      const bytes = await this.files.read(t.file, t.shipped, length);
      if (bytes.length === 0) return;
      try {
        t.shipped = Math.max(t.shipped, await this.o.store.append(t.ref, t.shipped, bytes));
      } catch (err) {
        // The store has less than we thought (restored from a backup): ship from where it ends.
        if (!(err instanceof LogGapError)) throw err;
        t.shipped = err.size;
      }
      t.known = true;
    }
  }

  /** `work`, or 'timeout' when it has not settled within `ms`. */
  private within<T>(work: Promise<T>, ms: number): Promise<T | 'timeout'> {
    if (ms <= 0) return Promise.resolve('timeout');
    let handle: TimerHandle | null = null;
    const timeout = new Promise<'timeout'>((resolve) => {
      handle = this.o.timers.setTimeout(() => resolve('timeout'), ms);
    });
    return Promise.race([work, timeout]).finally(() => {
      if (handle) this.o.timers.clearTimeout(handle);
    });
  }
}

/** The local files through the file-call port (synchronous in a run process between its steps). */
export const localLogFiles: LocalLogFiles = {
  async size(file) {
    try {
      return (await fileCalls.stat(file)).size;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
  },
  async read(file, position, length) {
    const fd = await fileCalls.open(file, 'r');
    try {
      const buffer = Buffer.alloc(length);
      const n = await fileCalls.readAt(fd, buffer, position);
      return buffer.subarray(0, n);
    } finally {
      await fileCalls.close(fd).catch(() => undefined);
    }
  },
};
