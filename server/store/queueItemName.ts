// Names of queue items, shared by the file queue and its in-memory fake so both order items the same way:
// `<enqueued_ms13>_<seq6>_<rand6>_<run_id>`. Fixed-width fields make name order enqueue order (FIFO); the
// per-process sequence orders items enqueued within one millisecond, the random part keeps hosts apart.

import { randomHex } from './randomHex';
import { isValidRunId } from '../core/names';
import { formatMs13 } from './runList';

let sequence = 0;

/** A new item ID for `runId` enqueued at `enqueuedAt` (RFC 3339; an unparsable time sorts first). */
export function newQueueItemId(enqueuedAt: string, runId: string): string {
  const ms = Date.parse(enqueuedAt);
  sequence = (sequence + 1) % 1_000_000;
  const seq = String(sequence).padStart(6, '0');
  return `${formatMs13(Number.isFinite(ms) ? ms : 0)}_${seq}_${randomHex(3)}_${runId}`;
}

const ITEM_ID_PATTERN = /^\d{13}_\d{6}_[0-9a-f]{6}_([A-Za-z0-9_-]{1,64})$/;

/** The run ID inside an item ID, or null if the name is not an item ID. */
export function runIdOfItem(itemId: string): string | null {
  const match = ITEM_ID_PATTERN.exec(itemId);
  return match && isValidRunId(match[1]) ? match[1] : null;
}
