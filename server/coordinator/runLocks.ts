// Serializes the coordinator's read-check-write sequences on one run within this process (a status report,
// an ack, a cancel, the detector failing the run), so none of them writes over a status it did not read.
// Across coordinators the stores' atomic steps (claim by rename, delete of a pending task) decide instead.

/** A mutex per key; keys are dropped once nobody holds or waits for them. */
export class RunLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished; returns what `fn` returns. */
  async with<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
