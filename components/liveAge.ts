// Ages that stay right between two polls. The server measures an age on its own clock when it answers;
// the browser then adds the time passed since the answer arrived on its own clock. Neither clock is compared
// with the other, so a browser whose clock is off still shows the right age.

/** `ageMs` as measured at `fetchedAtMs`, advanced to `nowMs` (both browser time); null stays null. */
export function liveAgeMs(ageMs: number | null, fetchedAtMs: number, nowMs: number | null): number | null {
  if (ageMs === null) return null;
  if (nowMs === null) return ageMs;
  // A browser clock set back between fetch and now must not make an age shrink.
  return ageMs + Math.max(0, nowMs - fetchedAtMs);
}

/**
 * The age of a server timestamp `iso`, measured against the server's own `generatedAtIso` (when it wrote the
 * answer), then advanced like liveAgeMs. Null when either time is missing or unreadable.
 */
export function liveAgeSince(
  iso: string | null,
  generatedAtIso: string,
  fetchedAtMs: number,
  nowMs: number | null,
): number | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  const generatedAt = Date.parse(generatedAtIso);
  if (Number.isNaN(at) || Number.isNaN(generatedAt)) return null;
  return liveAgeMs(generatedAt - at, fetchedAtMs, nowMs);
}
