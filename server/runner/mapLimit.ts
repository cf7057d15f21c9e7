// Runs an async function over a list with at most `limit` calls in flight, results in list order. Used to
// cap how many child runs a `parallel` step has at once (each is a process of its own).

/** Maps `items` through `fn`, at most `limit` (at least 1) at a time; `fn` must not throw. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  const width = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}
