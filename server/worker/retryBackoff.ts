// How long the worker's loops wait before trying the coordinator again, and a wait that a stop can cut
// short. Jitter spreads the retries of many workers after a coordinator restart.

import type { Timers } from '../core/ports';

/** Exponential backoff with jitter: `baseMs × 2^(failures-1)` capped at `maxMs`, then scaled into [50%, 100%]. */
export function retryBackoffMs(
  failures: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(30, failures - 1)));
  return Math.round(exp * (0.5 + 0.5 * random()));
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(timers: Timers, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      timers.clearTimeout(handle);
      resolve();
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
