// Runs an async function over a list with at most `limit` calls in flight: enough file calls at once to fill
// the thread pool (and let the journal batch their fsyncs), without one promise per item of a long list.

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
