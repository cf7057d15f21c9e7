// The bounds of a retry or repeat policy's counts, apart from the file readers: a run checks counts resolved
// when a step starts against them too, and a run process must not load the YAML library to do so.

/**
 * Intervals become timers: Node runs a timer of more than 2^31-1 ms at once, so longer waits are refused
 * rather than silently turned into no wait at all (about 24.8 days).
 */
export const MAX_INTERVAL_SEC = Math.floor(0x7fffffff / 1000);
/** A repeat or retry limit beyond this is a mistake (a run would outlive any log retention). */
export const MAX_POLICY_LIMIT = 1_000_000;
