// Async work over a list with at most `limit` calls in flight: enough file calls at once to fill the thread
// pool (and let the journal batch their fsyncs), without one promise, and one open file, per item of a long
// list. A backlog of thousands of queued runs read all at once opened thousands of files together and ran a
// scheduler under the usual limit of 1,024 open files out of them (EMFILE) at every queue pass.

/** Reads of a store's many small files at once: far below any open-file limit, enough to keep I/O busy. */
export const FILE_READ_CONCURRENCY = 32;

/**
 * Calls `fn` on every item, at most `limit` at a time, starting them in list order. Settles once every call
 * has: an error stops no other call (a caller may have work in flight to finish), and the first is rethrown.
 */
export async function runConcurrently<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i).catch((err: unknown) => errors.push(err));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (errors.length > 0) throw errors[0];
}

/** `fn` of every item, in the items' order, at most `limit` calls at a time (as runConcurrently). */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  await runConcurrently(items, limit, async (item, i) => {
    out[i] = await fn(item, i);
  });
  return out;
}
