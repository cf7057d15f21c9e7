// The deterministic run ID of a schedule slot: the at-most-once key of the scheduler. Apart from runId.ts (manual
// run IDs) so that a run process, which never derives one, does not load the hash function.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

const SLOT_PREFIX = 'sched-';
const HASH_LENGTH = 12;
const SLOT_ID = /^sched-([0-9a-f]{12})-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})?Z$/;

/** A slot run ID taken apart. */
export interface SlotRunId {
  /** First 12 hex digits of sha256(dataDir + "\0" + dagName). */
  hash: string;
  slotMs: number;
}

/** A slot time in UTC: `20261130T0115Z`, or `20261130T011530Z` when it is not on a whole minute. */
export function formatSlot(slotMs: number): string {
  const d = new Date(slotMs);
  const date = `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
  return d.getUTCSeconds() === 0 ? `${date}T${time}Z` : `${date}T${time}${pad(d.getUTCSeconds())}Z`;
}

/**
 * The run ID of one schedule slot: `sched-<hash>-<slot>`. The data directory is part of the hash so that two
 * installations sharing nothing never collide, and every scheduler of one installation (same absolute path on
 * every host) derives the same ID, which is what makes the exclusive create of the run directory the
 * at-most-once guarantee. Milliseconds of `slotMs` are dropped: slots are whole seconds.
 */
export function slotRunId(dataDir: string, dagName: string, slotMs: number): string {
  return `${SLOT_PREFIX}${slotHash(dataDir, dagName)}-${formatSlot(slotMs)}`;
}

/** The hash part of a slot run ID, to tell which DAG (and installation) a slot run ID belongs to. */
export function slotHash(dataDir: string, dagName: string): string {
  return bytesToHex(sha256(utf8ToBytes(`${dataDir}\0${dagName}`))).slice(0, HASH_LENGTH);
}

/** Takes a slot run ID apart, or returns null when `id` is not one. */
export function parseSlotRunId(id: string): SlotRunId | null {
  const m = SLOT_ID.exec(id);
  if (!m) return null;
  const [, hash, year, month, day, hour, minute, second] = m;
  const parts = [year, month, day, hour, minute, second ?? '00'].map(Number);
  const slotMs = Date.UTC(parts[0], parts[1] - 1, parts[2], parts[3], parts[4], parts[5]);
  // Only the canonical spelling counts: `...T011500Z` (zero seconds written out) or 20261332T2599Z do not round-trip.
  if (formatSlot(slotMs) !== id.slice(SLOT_PREFIX.length + HASH_LENGTH + 1)) return null;
  return { hash, slotMs };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
