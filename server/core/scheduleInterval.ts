// The expected interval between a DAG's runs, for the "has not succeeded within its expected interval" alert:
// the longest gap between consecutive slots over its cron schedules' coming slots, so that a weekday schedule
// expects three days over a weekend and a twice-a-day one its longer gap, not its average.

import { nextSlot } from './schedule';
import type { ScheduleSpec } from './types';

/** How many coming slots are looked at: a week of an hourly schedule, two months of a daily one. */
export const INTERVAL_SAMPLES = 168;

/**
 * The longest gap in ms between consecutive slots of `schedules` (merged) after `fromMs`, over at most
 * `samples` slots; null without a cron schedule or with fewer than two coming slots (one-off entries only).
 */
export function expectedIntervalMs(
  schedules: readonly ScheduleSpec[],
  fromMs: number,
  samples = INTERVAL_SAMPLES,
): number | null {
  const crons = schedules.filter((s) => s.at_ms === undefined);
  if (crons.length === 0) return null;
  // Merge the schedules' slots in time order: the next slot overall is the least of each one's next.
  const next = crons.map((s) => nextSlot(s, fromMs));
  let previous: number | null = null;
  let longest: number | null = null;
  for (let i = 0; i < samples; i++) {
    let at: number | null = null;
    let which = -1;
    next.forEach((t, k) => {
      if (t !== null && (at === null || t < at)) {
        at = t;
        which = k;
      }
    });
    if (at === null) break;
    const slot: number = at;
    if (previous !== null && slot > previous) longest = Math.max(longest ?? 0, slot - previous);
    previous = slot;
    // Every schedule due at this same instant moves on, so a slot shared by two schedules counts once.
    next.forEach((t, k) => {
      if (t === slot || k === which) next[k] = nextSlot(crons[k], slot);
    });
  }
  return longest;
}
