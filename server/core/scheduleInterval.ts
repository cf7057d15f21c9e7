// The expected interval between a DAG's runs, for the "has not succeeded within its expected interval" alert:
// the longest gap between consecutive slots over its cron schedules' coming slots, so that a weekday schedule
// expects three days over a weekend and a twice-a-day one its longer gap, not its average.

import { slotsAfter } from './schedule';
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
  // Each schedule's coming slots, merged: the first `samples` of the union (a slot two share counts once).
  const merged = [...new Set(crons.flatMap((s) => slotsAfter(s, fromMs, samples)))].sort((a, b) => a - b);
  let longest: number | null = null;
  for (let i = 1; i < Math.min(merged.length, samples); i++)
    longest = Math.max(longest ?? 0, merged[i] - merged[i - 1]);
  return longest;
}
