// The one walk every kind of record shares: the records of the files and of the database, both in key
// order, are merged like two sorted lists. A record only the files hold is inserted (copy) or reported
// (verify); one in both is compared and, when it differs, reported and left as the database has it; one only
// the database holds is reported by verify. Inserts are batched, one transaction per batch.

import { noteSkipped, type Kind, type TransferMode, type TransferReport } from './transferReport';

/**
 * A record of the files, or one that is reported and skipped: it could not be read, or (`withRun`) it
 * belongs to a run the copy skips as unreadable, and would be an orphan without it.
 */
export type SourceItem<T> = { key: string; value: T } | { key: string; skipped: string; withRun?: boolean };

export interface KindAdapter<T> {
  kind: Kind;
  /** The records of the files, in ascending key order (JavaScript string order). */
  source(): AsyncIterable<SourceItem<T>>;
  /** The records of the database, in the same order. */
  target(): AsyncIterable<{ key: string; value: T }>;
  /** What differs between the files' record and the database's, one phrase each; [] when they agree. */
  differences(inFiles: T, inDatabase: T): string[];
  /**
   * Writes records the database lacks, a batch in one transaction; answers how many it wrote. A record it
   * cannot write (what it depends on is not in the database) is passed to `refuse`, with the reason.
   */
  write(items: T[], refuse: (key: string, why: string) => void): Promise<number>;
  /** Records per batch; 1 makes each record its own transaction. */
  batch: number;
  /** Run once after a copy's walk (the event log moves its ID clock on). */
  afterCopy?(): Promise<void>;
}

export async function syncKind<T>(
  adapter: KindAdapter<T>,
  mode: TransferMode,
  report: TransferReport,
): Promise<void> {
  const counts = report.counts[adapter.kind];
  const find = (
    item: string,
    what: 'differs' | 'only in the files' | 'only in the database',
    detail: string,
  ) => report.findings.push({ kind: adapter.kind, item, what, detail });
  const pending: T[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const items = pending.splice(0);
    let refused = 0;
    const inserted = await adapter.write(items, (key, why) => {
      refused++;
      counts.differing++;
      find(key, 'differs', why);
    });
    counts.copied += inserted;
    // Inserted by someone else between our read and our insert: it is there now.
    counts.already += items.length - inserted - refused;
  };

  const src = ordered(adapter.source(), `${adapter.kind} of the files`);
  const tgt = ordered(adapter.target(), `${adapter.kind} of the database`);
  let a = await src.next();
  let b = await tgt.next();
  while (!a.done || !b.done) {
    if (b.done || (!a.done && a.value.key < b.value.key)) {
      const item = a.value as SourceItem<T>;
      if ('skipped' in item) noteSkipped(report, adapter.kind, item.key, item.skipped, skipKind(item));
      else {
        counts.inFiles++;
        if (mode === 'copy') {
          pending.push(item.value);
          if (pending.length >= adapter.batch) await flush();
        } else {
          counts.onlyInFiles++;
          find(item.key, 'only in the files', 'not in the database');
        }
      }
      a = await src.next();
    } else if (a.done || b.value.key < a.value.key) {
      counts.inDatabase++;
      if (mode === 'verify') {
        counts.onlyInDatabase++;
        find(b.value.key, 'only in the database', 'not in the files');
      }
      b = await tgt.next();
    } else {
      counts.inDatabase++;
      const item = a.value;
      if ('skipped' in item) {
        const detail = `${item.skipped} (the database has a record of it)`;
        noteSkipped(report, adapter.kind, item.key, detail, skipKind(item));
      } else {
        counts.inFiles++;
        const diffs = adapter.differences(item.value, b.value.value);
        if (diffs.length === 0) counts.already++;
        else {
          counts.differing++;
          find(item.key, 'differs', diffs.join('; '));
        }
      }
      a = await src.next();
      b = await tgt.next();
    }
  }
  await flush();
  if (mode === 'copy') await adapter.afterCopy?.();
}

function skipKind(item: { withRun?: boolean }): 'skipped' | 'skipped with its run' {
  return item.withRun === true ? 'skipped with its run' : 'skipped';
}

/** The iterator of `items`, checked to be in strictly ascending key order (the merge depends on it). */
async function* ordered<I extends { key: string }>(items: AsyncIterable<I>, what: string): AsyncGenerator<I> {
  let last: string | null = null;
  for await (const item of items) {
    if (last !== null && item.key <= last) {
      throw new Error(
        `${what} are not in key order: ${JSON.stringify(item.key)} after ${JSON.stringify(last)}`,
      );
    }
    last = item.key;
    yield item;
  }
}

/** The records of an array as a source or target, sorted by key. */
export async function* sortedByKey<I extends { key: string }>(items: I[]): AsyncGenerator<I> {
  yield* [...items].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}
