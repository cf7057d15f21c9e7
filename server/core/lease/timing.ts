// The lock's time budget, derived from the two configured durations (T = stale threshold, R = retry interval).

import { SECOND } from '../units';

/** The timings every decision of the lock protocol uses, all in milliseconds of the local monotonic clock. */
export interface LeaseTiming {
  /** T: how long a standby must see a record unchanged before it may take it over. */
  staleMs: number;
  /** R: how often a standby reads the lock. */
  retryMs: number;
  /** I = min(7s, T/4): how often the holder renews. */
  renewEveryMs: number;
  /** T - I: how long after the start of its last successful renewal the holder may dispatch. */
  dispatchWindowMs: number;
  /**
   * D = I/4: a renewal, acquisition or release that has not completed within D of its start counts as failed.
   * Safety needs every write the holder counts as done to land before a standby's T has run out:
   * (T - I + D) * rate ratio < T, so the clocks' rates may differ by less than (I - D) / T = 3I/(4T).
   */
  deadlineMs: number;
}

export function leaseTiming(staleMs: number, retryMs: number): LeaseTiming {
  const renewEveryMs = Math.min(7 * SECOND, staleMs / 4);
  return {
    staleMs,
    retryMs,
    renewEveryMs,
    dispatchWindowMs: staleMs - renewEveryMs,
    deadlineMs: renewEveryMs / 4,
  };
}

/** The largest relative difference of clock rates under which the protocol keeps invariant 1. */
export function maxClockRateDifference(t: LeaseTiming): number {
  return (t.renewEveryMs - t.deadlineMs) / (t.staleMs - t.renewEveryMs + t.deadlineMs);
}
