// A wait that ends early when its signal is aborted (a stopped run does not sit out a retry or repeat delay).

/** Resolves after `ms`, or at once when `signal` is (or becomes) aborted; never rejects. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
