// What the history call keeps between requests in one server process, so that a DAG page polled every two
// seconds costs a few file calls rather than a walk of the run index and a parse of the DAG file each time:
//
// - the newest runs of a DAG as the run index lists them, dropped when the event log brings a `dag.run.*`
//   event of that DAG (every writer appends one when a run is created or changes state), and read again after
//   REVALIDATE_MS anyway (a deleted run emits no event, an event may be lost);
// - the rows of ended attempts, whose status files are never written again (a retry is a new attempt);
// - the parse of each DAG file, used while the file's text is unchanged (it is read on every call).
// Runs that have not ended are read on every call: their steps change without a run event.

import type { DagSpecCache, CachedDag } from '../store/dagSpecCache';
import type { RunSummary } from '../store/types';
import { SECOND } from '../core/units';
import type { EventFeed } from './eventFeed';

export const REVALIDATE_MS = 15 * SECOND;
const MAX_ROWS = 3000;
const MAX_LISTINGS = 500;
const RUN_EVENT_PREFIX = 'dag.run.';

interface Listing {
  items: RunSummary[];
  checkedMono: number;
}

export class DagHistoryCache<Row> {
  private readonly listings = new Map<string, Listing>();
  /** Bumped by each event of the DAG: a listing read while it changed is not kept. */
  private readonly generations = new Map<string, number>();
  private readonly rows = new Map<string, Row>();
  private started = false;
  private syncing: Promise<void> | null = null;
  /** The parses of DAG files, by file: the DagSpecCache port of loadDag, kept in memory. */
  readonly specs: DagSpecCache = new MemorySpecCache();

  constructor(private readonly feed: EventFeed) {}

  /** Applies the events appended since the last call (concurrent calls share one read). */
  sync(): Promise<void> {
    this.syncing ??= this.pull().finally(() => {
      this.syncing = null;
    });
    return this.syncing;
  }

  private async pull(): Promise<void> {
    // The first read covers the whole log, when nothing is cached yet: its run events are skipped unparsed.
    const withRuns = this.started;
    const events = await this.feed.read((type) => withRuns && type.startsWith(RUN_EVENT_PREFIX));
    this.started = true;
    for (const e of events) {
      const dag = e.data.dag_name;
      if (typeof dag !== 'string') continue;
      this.generations.set(dag, (this.generations.get(dag) ?? 0) + 1);
      for (const key of this.listings.keys()) if (key.startsWith(`${dag}#`)) this.listings.delete(key);
    }
  }

  /** The newest `limit` runs of `dag`, from the cache while fresh, else from `read`. */
  async listing(
    dag: string,
    limit: number,
    nowMono: number,
    read: () => Promise<RunSummary[]>,
  ): Promise<RunSummary[]> {
    const key = `${dag}#${limit}`;
    const cached = this.listings.get(key);
    if (cached && nowMono - cached.checkedMono < REVALIDATE_MS) return cached.items;
    const generation = this.generations.get(dag) ?? 0;
    const items = await read();
    if ((this.generations.get(dag) ?? 0) === generation) {
      this.listings.delete(key);
      this.listings.set(key, { items, checkedMono: nowMono });
      if (this.listings.size > MAX_LISTINGS) this.listings.delete(this.listings.keys().next().value!);
    }
    return items;
  }

  /** The row of an ended attempt (`run_id#attempt`), if kept. */
  row(key: string): Row | undefined {
    return this.rows.get(key);
  }

  keepRow(key: string, row: Row): void {
    this.rows.set(key, row);
    if (this.rows.size > MAX_ROWS) this.rows.delete(this.rows.keys().next().value!);
  }
}

class MemorySpecCache implements DagSpecCache {
  private readonly entries = new Map<string, { text: string; parsed: CachedDag }>();

  async get(file: string, text: string): Promise<CachedDag | null> {
    const e = this.entries.get(file);
    return e && e.text === text ? e.parsed : null;
  }

  async put(file: string, text: string, parsed: CachedDag): Promise<void> {
    this.entries.set(file, { text, parsed });
  }
}
