// The failover history the overview shows: every `scheduler.lock.acquired` event (see SchedulerService), with
// where the lock came from and why it changed hands. Kept per process and fed the role events as the event
// feed delivers them, so a request never reads the whole log.

import type { EventRecord } from '../store/types';

/** Event types of role changes (the values of SchedulerService's ROLE_EVENTS). */
export const LOCK_ACQUIRED = 'scheduler.lock.acquired';
export const LOCK_LOST = 'scheduler.lock.lost';
export const LOCK_EVENT_PREFIX = 'scheduler.lock.';

/** One acquisition of the scheduler lock, newest first in the overview. */
export interface FailoverView {
  event_id: string;
  time: string;
  to_instance: string;
  to_host: string | null;
  from_instance: string | null;
  from_host: string | null;
  /**
   * released: clean handover; stale: taken over from a holder that stopped renewing; lock_lost: the holder
   * recorded losing the lock before this takeover; initial: the first acquisition (no previous holder).
   */
  cause: 'released' | 'stale' | 'lock_lost' | 'initial';
  /** The previous holder's last renewal to this acquisition (wall clocks of two hosts), null if unknown. */
  gap_ms: number | null;
  /** The same gap as the new holder timed it on its own clock, null if unknown. */
  observed_gap_ms: number | null;
  epoch: number | null;
}

/** Acquisitions remembered; older ones drop out (the overview shows 50). */
const MAX_KEPT = 5000;

export class FailoverHistory {
  /** Acquisitions, oldest first by event ID. */
  private acquired: EventRecord[] = [];
  /** Per instance, the IDs of its `lost` events, oldest first. */
  private readonly losses = new Map<string, string[]>();
  private readonly seen = new Set<string>();

  /** Takes any event; keeps the lock's acquisitions and losses (each once, whatever order they come in). */
  add(e: EventRecord): void {
    if (e.type !== LOCK_ACQUIRED && e.type !== LOCK_LOST) return;
    if (this.seen.has(e.id)) return;
    this.seen.add(e.id);
    if (e.type === LOCK_ACQUIRED) {
      insertSorted(this.acquired, e, (x) => x.id);
      if (this.acquired.length > MAX_KEPT)
        this.forget(this.acquired.splice(0, this.acquired.length - MAX_KEPT));
      return;
    }
    const instance = text(e.data.instance);
    if (instance === null) return;
    const ids = this.losses.get(instance) ?? [];
    insertSorted(ids, e.id, (x) => x);
    this.losses.set(instance, ids);
  }

  /** The newest `limit` acquisitions, newest first. */
  list(limit = 50): FailoverView[] {
    const out: FailoverView[] = [];
    for (let i = this.acquired.length - 1; i >= 0 && out.length < limit; i--) {
      out.push(this.view(this.acquired[i], i));
    }
    return out;
  }

  private view(e: EventRecord, index: number): FailoverView {
    const d = e.data;
    const from = text(d.previous_instance);
    return {
      event_id: e.id,
      time: e.time,
      to_instance: text(d.instance) ?? '',
      to_host: text(d.host),
      from_instance: from,
      from_host: text(d.previous_host),
      cause: this.cause(e, index, from),
      gap_ms: count(d.gap_ms),
      observed_gap_ms: count(d.observed_gap_ms),
      epoch: count(d.epoch),
    };
  }

  /**
   * `fresh` (no lock record existed) is the initial acquisition. A stale takeover is `lock_lost` when the
   * previous holder recorded losing the lock after its own last acquisition and before this one: it knew,
   * rather than having died or hung without a word.
   */
  private cause(e: EventRecord, index: number, from: string | null): FailoverView['cause'] {
    const how = e.data.how;
    if (how === 'released') return 'released';
    if (how === 'fresh' || from === null) return 'initial';
    let since = '';
    for (let i = index - 1; i >= 0; i--) {
      if (this.acquired[i].data.instance === from) {
        since = this.acquired[i].id;
        break;
      }
    }
    const lost = (this.losses.get(from) ?? []).some((id) => id > since && id < e.id);
    return lost ? 'lock_lost' : 'stale';
  }

  private forget(dropped: EventRecord[]) {
    for (const e of dropped) this.seen.delete(e.id);
  }
}

function insertSorted<T>(list: T[], item: T, key: (x: T) => string): void {
  // Events arrive almost always in order: search from the end.
  let i = list.length;
  while (i > 0 && key(list[i - 1]) > key(item)) i--;
  list.splice(i, 0, item);
}

function text(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : null;
}
