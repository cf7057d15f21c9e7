// Delay before a retry under a retry policy (step-level or DAG-level): interval × backoff^n, capped.

import { SECOND } from './units';

export interface BackoffPolicy {
  interval_sec: number;
  /** Multiplier per retry; 1 or less means a constant interval. */
  backoff: number;
  max_interval_sec: number | null;
}

/** Milliseconds to wait before retry number `retriesDone + 1`. */
export function backoffDelayMs(policy: BackoffPolicy, retriesDone: number): number {
  const factor = policy.backoff > 1 ? policy.backoff : 1;
  let sec = policy.interval_sec * factor ** retriesDone;
  if (policy.max_interval_sec !== null && policy.max_interval_sec > 0)
    sec = Math.min(sec, policy.max_interval_sec);
  return Math.max(0, sec) * SECOND;
}
