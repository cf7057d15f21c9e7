// Names of the claims that make a takeover a compare-and-swap: one name per observed epoch and attempt, so
// every record of an epoch (renewals, a release, a late write) shares the single claim that ends the epoch.

import type { LockRead, LockRecord } from './types';

const MARKER_PATTERN = /^takeover-(\d+)-(\d+)$/;

/** The claim a takeover of `observed` by `next` must win. */
export function takeoverMarkerName(observed: LockRead, next: LockRecord, attempt = 0): string {
  if (observed.kind === 'record') {
    return `takeover-${observed.record.epoch}-${Math.max(0, next.epoch - observed.record.epoch - 1)}`;
  }
  // Contenders may disagree on the next epoch (it depends on what each has seen), so a corrupt record's claim
  // is named by its bytes and the attempt only.
  if (observed.kind === 'corrupt') return `takeover-corrupt-${fnv1a(observed.raw)}-${attempt}`;
  // Creating a missing lock is its own exclusive create; this name is only for completeness.
  return `takeover-none-${next.epoch}`;
}

/** The observed epoch a marker name claims, or null for markers of corrupt records and foreign names. */
export function markerEpoch(name: string): number | null {
  const m = MARKER_PATTERN.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * Markers that can no longer matter: epochs more than two below the highest marker. The highest marker's
 * epoch always stays, and a taker checks for higher markers after its claim (see `supersededBy`), so a write
 * that lands arbitrarily late still cannot be taken over twice.
 */
export function obsoleteMarkers(names: readonly string[]): string[] {
  const epochs = names.map(markerEpoch).filter((e): e is number => e !== null);
  if (epochs.length === 0) return [];
  const highest = Math.max(...epochs);
  return names.filter((n) => {
    const e = markerEpoch(n);
    return e !== null && e < highest - 2;
  });
}

/** A claim on epoch `observedEpoch` is void when a marker of a higher epoch exists: that epoch was superseded. */
export function supersededBy(names: readonly string[], observedEpoch: number): string | null {
  for (const n of names) {
    const e = markerEpoch(n);
    if (e !== null && e > observedEpoch) return n;
  }
  return null;
}

/** A short, stable hash of a corrupt record's raw text (FNV-1a, 32 bits, hex). */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
