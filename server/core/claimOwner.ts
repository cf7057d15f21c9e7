// Who claimed a run's attempt, as the claim records it: `<host>:<pid>@<UTC time>`. The dead-run check reads
// it back to say which process took an attempt and when, since a process that lost the database after its
// claim leaves nothing else behind. Claims written before the time was added read back without one.

import { isoUtc } from './runStatus';

/** A claim's owner, read back; every part the text does not give is null. */
export interface ClaimOwner {
  host: string | null;
  pid: number | null;
  /** Wall-clock ms of the claimant's clock when it claimed (display data: another host's clock). */
  claimedAtMs: number | null;
  /** The claim as stored. */
  text: string;
}

/** The owner text a process on `host` with `pid` claims an attempt with at `nowMs`. */
export function claimOwnerText(host: string, pid: number, nowMs: number): string {
  return `${host}:${pid}@${isoUtc(nowMs)}`;
}

/** Reads an owner text back; a text of another shape keeps only `text`. */
export function parseClaimOwner(text: string): ClaimOwner {
  const m = /^(.+):(\d+)(?:@(\S+))?$/.exec(text.trim());
  if (!m) return { host: null, pid: null, claimedAtMs: null, text };
  const at = m[3] === undefined ? NaN : Date.parse(m[3]);
  return { host: m[1], pid: Number(m[2]), claimedAtMs: Number.isNaN(at) ? null : at, text };
}
