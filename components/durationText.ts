// Durations as the console writes them for operators: a failover gap with a tenth of a second ("3.4 s") and
// ages in whole seconds that tick once a second ("12 s", "2 min 5 s"). Pure, so it is unit-tested here.

import { DAY, HOUR, MINUTE, SECOND } from '@/server/core/units';

/** `850 ms`, `3.4 s`, `2 min 5 s`, `1 h 3 min`; `unknown` when the gap was not measured. */
export function formatGap(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return 'unknown';
  // Two hosts' wall clocks can disagree, so a measured gap may come out negative: keep the sign visible.
  if (ms < 0) return `-${formatGap(-ms)}`;
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const seconds = Math.round(ms / SECOND);
  if (seconds < HOUR / SECOND) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return formatAge(ms);
}

/** `0 s`, `12 s`, `2 min 5 s`, `1 h 3 min`, `2 d 4 h`: whole units, rounded down, never negative. */
export function formatAge(ms: number): string {
  const t = Math.max(0, Number.isFinite(ms) ? ms : 0);
  if (t < MINUTE) return `${Math.floor(t / SECOND)} s`;
  if (t < HOUR) return `${Math.floor(t / MINUTE)} min ${Math.floor((t % MINUTE) / SECOND)} s`;
  if (t < DAY) return `${Math.floor(t / HOUR)} h ${Math.floor((t % HOUR) / MINUTE)} min`;
  return `${Math.floor(t / DAY)} d ${Math.floor((t % DAY) / HOUR)} h`;
}
