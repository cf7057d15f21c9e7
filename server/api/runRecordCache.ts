// The records of the runs that wait, kept per process for the queue listing: reading a thousand status files
// on every poll of the console would take about a hundred milliseconds. An entry is dropped when the event
// feed brings a `dag.run.*` event of its run (every writer appends one when the state or the reason a run
// waits changes), and re-read after REVALIDATE_MS anyway, a few per request, in case an event went missing.

import type { ReadStatusResult, RunStore } from '../store/types';
import { SECOND } from '../core/units';

/** Entries older than this are read again (at most MAX_REVALIDATIONS per call). */
export const REVALIDATE_MS = 15 * SECOND;
export const MAX_REVALIDATIONS = 50;
/** Status files read at once: enough to keep the thread pool busy, not so many that it queues everything. */
const READ_CONCURRENCY = 16;

interface Entry {
  read: ReadStatusResult;
  checkedMono: number;
}

export class RunRecordCache {
  private readonly entries = new Map<string, Entry>();
  /** Reads in progress; `stale` is set when an event for the run arrives meanwhile. */
  private readonly reading = new Map<string, { stale: boolean }>();

  /** Forgets a run's record: it changed. */
  invalidate(runId: string): void {
    this.entries.delete(runId);
    const r = this.reading.get(runId);
    if (r) r.stale = true;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The records of `runIds` (and only those stay cached). Missing records are not cached: a run whose record
   * is not written yet shows up on a later call.
   */
  async get(
    runs: Pick<RunStore, 'readStatus'>,
    runIds: readonly string[],
    nowMono: number,
  ): Promise<Map<string, ReadStatusResult>> {
    const wanted = new Set(runIds);
    for (const id of this.entries.keys()) if (!wanted.has(id)) this.entries.delete(id);
    const toRead: string[] = [];
    const expired: Array<[string, number]> = [];
    for (const id of wanted) {
      const e = this.entries.get(id);
      if (!e) toRead.push(id);
      else if (nowMono - e.checkedMono >= REVALIDATE_MS) expired.push([id, e.checkedMono]);
    }
    expired.sort((a, b) => a[1] - b[1]);
    toRead.push(...expired.slice(0, MAX_REVALIDATIONS).map(([id]) => id));
    const fresh = new Map<string, ReadStatusResult>();
    await forEachLimited(toRead, READ_CONCURRENCY, async (id) => {
      fresh.set(id, await this.load(runs, id, nowMono));
    });
    const out = new Map<string, ReadStatusResult>();
    for (const id of wanted) {
      out.set(id, fresh.get(id) ?? this.entries.get(id)?.read ?? { kind: 'missing' });
    }
    return out;
  }

  private async load(
    runs: Pick<RunStore, 'readStatus'>,
    runId: string,
    nowMono: number,
  ): Promise<ReadStatusResult> {
    const mark = { stale: false };
    this.reading.set(runId, mark);
    let read: ReadStatusResult;
    try {
      read = await runs.readStatus(runId);
    } catch (err) {
      // A storage error: shown on the run, tried again next time.
      this.entries.delete(runId);
      return { kind: 'corrupt', path: runId, error: err instanceof Error ? err.message : String(err) };
    } finally {
      if (this.reading.get(runId) === mark) this.reading.delete(runId);
    }
    // Missing: not written yet. Stale: read before a change whose event arrived meanwhile. Use either once.
    if (read.kind === 'missing' || mark.stale) this.entries.delete(runId);
    else this.entries.set(runId, { read, checkedMono: nowMono });
    return read;
  }
}

async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
