// What the overview needs to turn server-measured ages into ages that tick between polls.

import { formatAge } from '../durationText';
import { liveAgeMs, liveAgeSince } from '../liveAge';

/** The answer's server time, when it arrived (browser clock) and the ticking browser time (null before hydration). */
export interface LiveClock {
  generatedAt: string;
  fetchedAtMs: number;
  nowMs: number | null;
}

/** An age the server measured, advanced to now and written as text; `fallback` when unknown. */
export function ageText(clock: LiveClock, ageMs: number | null, fallback = '—'): string {
  const age = liveAgeMs(ageMs, clock.fetchedAtMs, clock.nowMs);
  return age === null ? fallback : formatAge(age);
}

/** The age of a server timestamp, advanced to now and written as text; `fallback` when unknown. */
export function ageSinceText(clock: LiveClock, iso: string | null, fallback = '—'): string {
  const age = liveAgeSince(iso, clock.generatedAt, clock.fetchedAtMs, clock.nowMs);
  return age === null ? fallback : formatAge(age);
}
