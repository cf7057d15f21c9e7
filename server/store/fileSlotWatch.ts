// Change notifications for the queue consumer on files: the end of a run (its active marker removed) and a
// queue item stored, as this host's kernel sees them (inotify, through fs.watch). They only make the
// consumer look sooner. Polling stays the truth (DESIGN §4): a change made on another host of a shared
// volume is not reported here, and neither is one made while a watch is not set. So the consumer waits for
// them only where it would otherwise poll a queue whose slots are all taken, and still passes over the queues
// every second.
//
// The watch goes live only after a probe: a file it makes and removes in the active-runs directory must be
// reported. A filesystem that reports nothing (some FUSE volumes) keeps the consumer polling as before.

import { watch as fsWatch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { isValidDagName } from '../core/names';
import type { Logger } from '../core/ports';
import type { SlotChange, SlotWakeups } from './controlPlane';
import { mkdir, readdir, unlink, writeFile } from './fileCalls';
import { ACTIVE_FILE_PATTERN } from './fileRunStore';
import { randomHex } from './randomHex';

/** How long the probe's change may take to be reported before the watch is taken for deaf. */
const PROBE_TIMEOUT_MS = 2000;
/** How long a watch that could not be set (a directory missing, a limit reached) waits to try again. */
const RETRY_MS = 30_000;
/** The most queue directories watched; beyond it, the watch does not go live (the queues are polled). */
export const MAX_WATCHED_QUEUES = 1000;

export type WatchFn = (dir: string, onChange: (file: string | null) => void) => FSWatcher;

/** fs.watch of one directory, never keeping the process alive. */
const watchDir: WatchFn = (dir, onChange) => {
  const w = fsWatch(dir, { persistent: false }, (_event, file) =>
    onChange(typeof file === 'string' ? file : null),
  );
  return w;
};

export interface FileSlotWatchOptions {
  dataDir: string;
  logger: Logger;
  /** Replaced in tests (a filesystem that reports nothing). */
  watch?: WatchFn;
  probeTimeoutMs?: number;
  retryMs?: number;
}

export class FileSlotWatch implements SlotWakeups {
  private readonly activeDir: string;
  private readonly queueRoot: string;
  private readonly watchFn: WatchFn;
  private readonly subscribers = new Set<(change: SlotChange) => void>();
  private activeWatch: FSWatcher | null = null;
  private rootWatch: FSWatcher | null = null;
  private readonly queueWatches = new Map<string, FSWatcher>();
  private state: 'idle' | 'probing' | 'live' | 'deaf' | 'closed' = 'idle';
  private probeName: string | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: FileSlotWatchOptions) {
    this.activeDir = path.join(path.resolve(o.dataDir), 'active');
    this.queueRoot = path.join(path.resolve(o.dataDir), 'queue');
    this.watchFn = o.watch ?? watchDir;
  }

  live(): boolean {
    return this.state === 'live';
  }

  subscribe(fn: (change: SlotChange) => void): () => void {
    this.subscribers.add(fn);
    if (this.state === 'idle') void this.arm();
    return () => {
      this.subscribers.delete(fn);
      if (this.subscribers.size === 0) this.close();
    };
  }

  /** Drops every watch; nothing is reported after this. */
  close(): void {
    this.state = 'closed';
    this.unwatch();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private emit(change: SlotChange): void {
    if (this.state !== 'live') return;
    for (const fn of [...this.subscribers]) fn(change);
  }

  /** Sets the watches and probes them; on a failure, tries again after RETRY_MS. */
  private async arm(): Promise<void> {
    this.state = 'probing';
    // Closed (or judged) while a file call was under way: nothing more is set.
    const abandoned = () => this.state !== 'probing';
    try {
      await mkdir(this.activeDir, true);
      await mkdir(this.queueRoot, true);
      if (abandoned()) return;
      this.activeWatch = this.watchFn(this.activeDir, (file) => this.onActive(file));
      this.activeWatch.on('error', (err) => this.lost(`the active-runs directory: ${err.message}`));
      this.rootWatch = this.watchFn(this.queueRoot, (file) => this.onQueueRoot(file));
      this.rootWatch.on('error', (err) => this.lost(`the queue directory: ${err.message}`));
      const queues = (await readdir(this.queueRoot)).filter(isValidDagName);
      if (abandoned()) {
        this.unwatch();
        return;
      }
      if (queues.length > MAX_WATCHED_QUEUES) {
        this.deaf(`more than ${MAX_WATCHED_QUEUES} queue directories`);
        return;
      }
      for (const q of queues) this.watchQueue(q);
      if (abandoned()) return;
      this.probeName = `.slot-watch-probe-${process.pid}-${randomHex(4)}`;
      const probe = path.join(this.activeDir, this.probeName);
      this.probeTimer = setTimeout(
        () => this.deaf('a change made on this host was not reported'),
        this.o.probeTimeoutMs ?? PROBE_TIMEOUT_MS,
      );
      this.probeTimer.unref();
      await writeFile(probe, '');
      await unlink(probe);
    } catch (err) {
      if (this.state === 'probing') this.lost((err as Error).message);
    }
  }

  private onActive(file: string | null): void {
    if (this.state === 'probing' && file !== null && file === this.probeName) {
      if (this.probeTimer) clearTimeout(this.probeTimer);
      this.probeTimer = null;
      this.state = 'live';
      this.o.logger.debug('Queue consumer: changes on this host wake it', { dir: this.activeDir });
      return;
    }
    if (file === null) {
      this.emit({ kind: 'run', runId: null });
      return;
    }
    const m = ACTIVE_FILE_PATTERN.exec(file);
    if (m) this.emit({ kind: 'run', runId: m[1] });
  }

  private onQueueRoot(file: string | null): void {
    // A queue directory made (or removed and made again): watched from now on, and looked at.
    if (file !== null && isValidDagName(file)) {
      const old = this.queueWatches.get(file);
      if (old) {
        old.close();
        this.queueWatches.delete(file);
      }
      this.watchQueue(file);
    }
    this.emit({ kind: 'queue' });
  }

  private watchQueue(queue: string): void {
    if (this.state === 'closed' || this.state === 'deaf' || this.queueWatches.has(queue)) return;
    if (this.queueWatches.size >= MAX_WATCHED_QUEUES) {
      this.deaf(`more than ${MAX_WATCHED_QUEUES} queue directories`);
      return;
    }
    let w: FSWatcher;
    try {
      w = this.watchFn(path.join(this.queueRoot, queue), () => this.emit({ kind: 'queue' }));
    } catch {
      // Gone again before it could be watched (a queue emptied and removed): the root's watch sees it come back.
      return;
    }
    // A queue directory removed: its watch ends; the root's watch sees it made again.
    w.on('error', () => {
      w.close();
      if (this.queueWatches.get(queue) === w) this.queueWatches.delete(queue);
    });
    this.queueWatches.set(queue, w);
  }

  /** A watch failed: polling only until it is set again. */
  private lost(reason: string): void {
    if (this.state === 'closed' || this.state === 'deaf') return;
    this.o.logger.debug('Queue consumer: no change notifications for now; polling', { reason });
    this.unwatch();
    this.state = 'idle';
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.state === 'idle' && this.subscribers.size > 0) void this.arm();
    }, this.o.retryMs ?? RETRY_MS);
    this.retryTimer.unref();
  }

  /** Changes are not (all) reported here: polling only, for good. */
  private deaf(reason: string): void {
    if (this.state === 'closed') return;
    this.o.logger.info('Queue consumer: the data directory does not report changes; queues are polled', {
      dir: this.o.dataDir,
      reason,
    });
    this.unwatch();
    this.state = 'deaf';
  }

  private unwatch(): void {
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.activeWatch?.close();
    this.rootWatch?.close();
    for (const w of this.queueWatches.values()) w.close();
    this.activeWatch = null;
    this.rootWatch = null;
    this.queueWatches.clear();
  }
}
