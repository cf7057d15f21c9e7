// Time-sortable manual run IDs (the IDs of schedule slots are in slotRunId.ts).

import { RUN_ID_PATTERN } from './names';

/**
 * A manual run ID that sorts by creation time: `20261130-011530-1a2b3c4d` (UTC). The random part comes from
 * the caller because the core has no randomness; two runs created in the same second sort by it.
 */
export function newRunId(nowMs: number, randomHex: string): string {
  if (!/^[0-9a-f]{8,}$/i.test(randomHex)) {
    throw new RangeError(
      `newRunId needs at least 8 hex digits of randomness, got ${JSON.stringify(randomHex)}`,
    );
  }
  const d = new Date(nowMs);
  const stamp =
    `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-` +
    `${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
  const id = `${stamp}-${randomHex.slice(0, 8).toLowerCase()}`;
  if (!RUN_ID_PATTERN.test(id)) throw new RangeError(`newRunId: time ${nowMs} gives an invalid run ID ${id}`);
  return id;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
