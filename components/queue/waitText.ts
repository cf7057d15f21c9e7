// How long a waiting run has waited and when its hold runs out, as the queue page writes it ("fails in
// 1m 12s"). Whole seconds: the page ticks once a second between polls, and tenths would flicker.

import { DAY, HOUR, MINUTE, SECOND } from '@/server/core/units';

/** `0s`, `42s`, `1m 12s`, `2h 5m`, `3d 4h`; rounded up, so a countdown reaches `0s` only when it is over. */
export function formatCountdown(ms: number): string {
  const s = Math.max(0, Math.ceil((Number.isFinite(ms) ? ms : 0) / SECOND)) * SECOND;
  if (s < MINUTE) return `${s / SECOND}s`;
  if (s < HOUR) return `${Math.floor(s / MINUTE)}m ${Math.floor((s % MINUTE) / SECOND)}s`;
  if (s < DAY) return `${Math.floor(s / HOUR)}h ${Math.floor((s % HOUR) / MINUTE)}m`;
  return `${Math.floor(s / DAY)}d ${Math.floor((s % DAY) / HOUR)}h`;
}

/** `fails in 1m 12s` while the hold lasts; `hold ran out 3s ago` once past (the reaper fails it shortly). */
export function holdText(remainingMs: number): string {
  return remainingMs > 0
    ? `fails in ${formatCountdown(remainingMs)}`
    : `hold ran out ${formatCountdown(-remainingMs)} ago`;
}
