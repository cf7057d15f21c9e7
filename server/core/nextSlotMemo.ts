// Remembers the slots each schedule has coming, so that a scheduler tick over many DAGs (every few seconds)
// works a schedule's slots out once each rather than at every tick: each time parses the cron expression and
// walks its dates, about a millisecond, which a thousand DAGs turn into a second of every tick. The slot after
// the next is worked out ahead (`nextAhead`, when a tick ends), so the tick at a slot computes nothing before
// it creates the slot's runs.

import { nextSlot } from './schedule';
import type { ScheduleSpec } from './types';

/** Where slot planning gets a schedule's next slots from. */
export interface SlotLookup {
  /** The first slot of `s` strictly after `afterMs`, or null when it has none (as `nextSlot`). */
  next(s: ScheduleSpec, afterMs: number): number | null;
  /** As `next`, and gets ready to answer for the slot after that one too. */
  nextAhead(s: ScheduleSpec, afterMs: number): number | null;
}

/** Works every answer out afresh. */
export const computeSlots: SlotLookup = { next: nextSlot, nextAhead: nextSlot };

/** The slots of one schedule in (fromMs, last of `slots`], all of them; `ended`: none after the last. */
interface Known {
  fromMs: number;
  slots: number[];
  ended: boolean;
}

export class NextSlotMemo implements SlotLookup {
  /** Per schedule object: the catalog keeps an unchanged DAG's objects, an edited DAG gets new ones. */
  private readonly known = new WeakMap<ScheduleSpec, Known>();

  constructor(private readonly compute: (s: ScheduleSpec, afterMs: number) => number | null = nextSlot) {}

  next(s: ScheduleSpec, afterMs: number): number | null {
    const k = this.known.get(s);
    if (k && afterMs >= k.fromMs) {
      // Slots at or before afterMs are past for good (a clock going back starts afresh, above).
      while (k.slots.length > 0 && k.slots[0] <= afterMs) k.fromMs = k.slots.shift()!;
      if (k.slots.length > 0) return k.slots[0];
      if (k.ended) return null;
    }
    const next = this.compute(s, afterMs);
    this.known.set(s, { fromMs: afterMs, slots: next === null ? [] : [next], ended: next === null });
    return next;
  }

  nextAhead(s: ScheduleSpec, afterMs: number): number | null {
    const next = this.next(s, afterMs);
    const k = this.known.get(s)!;
    if (next !== null && k.slots.length === 1 && !k.ended) {
      const after = this.compute(s, next);
      if (after === null) k.ended = true;
      else k.slots.push(after);
    }
    return next;
  }
}
