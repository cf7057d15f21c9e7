import { describe, expect, it } from 'vitest';
import { mapConcurrently, runConcurrently } from './concurrency';

/** A call that resolves when the test says, counting how many are in flight at once. */
function gate() {
  let inFlight = 0;
  let most = 0;
  const waiting: Array<() => void> = [];
  return {
    call: async <T>(value: T, fail = false): Promise<T> => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight--;
      if (fail) throw new Error(`failed on ${String(value)}`);
      return value;
    },
    /** Lets every waiting call go, until none is left. */
    async drain() {
      for (;;) {
        await new Promise((r) => setImmediate(r));
        const now = waiting.splice(0);
        if (now.length === 0) return;
        for (const go of now) go();
      }
    },
    most: () => most,
  };
}

describe('mapConcurrently', () => {
  it('keeps at most `limit` calls in flight and returns the results in the items’ order', async () => {
    const g = gate();
    const items = Array.from({ length: 100 }, (_, i) => i);
    const done = mapConcurrently(items, 8, (i) => g.call(i * 2));
    await g.drain();
    expect(await done).toEqual(items.map((i) => i * 2));
    expect(g.most()).toBe(8);
  });

  it('handles fewer items than the limit, and none', async () => {
    const g = gate();
    const done = mapConcurrently(['a', 'b'], 32, (x) => g.call(x.toUpperCase()));
    await g.drain();
    expect(await done).toEqual(['A', 'B']);
    expect(g.most()).toBe(2);
    expect(await mapConcurrently([], 4, async () => 1)).toEqual([]);
  });
});

describe('runConcurrently', () => {
  it('lets every call finish after one fails, then throws the first error', async () => {
    const g = gate();
    const finished: number[] = [];
    const done = runConcurrently([0, 1, 2, 3, 4, 5], 2, async (i) => {
      await g.call(i, i === 1 || i === 4);
      finished.push(i);
    });
    const settled = done.catch((err: Error) => err.message);
    await g.drain();
    expect(await settled).toBe('failed on 1');
    expect(finished.sort()).toEqual([0, 2, 3, 5]);
    expect(g.most()).toBe(2);
  });
});
