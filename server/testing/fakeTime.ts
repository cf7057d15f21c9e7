// A fake clock and timers for the scheduling loops' unit tests: time moves only when a test advances it,
// and the promise chains the loops run on in-memory stores settle before the next timer fires.

import type { Clock, TimerHandle, Timers } from '../core/ports';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * Wall clock and monotonic clock driven by `advance`. The wall clock can also be stepped on its own
 * (`shiftWall`), as NTP or an operator does, while monotonic time only moves forwards.
 *
 * Not the lease simulation's SimWorld: that drains a fixed number of promise turns per event, which the
 * loops' longer chains of store calls exceed; a macrotask turn settles any chain of in-memory calls.
 */
export class FakeTime implements Clock, Timers {
  private elapsedMs = 0;
  private wallShiftMs = 0;
  private seq = 0;
  private readonly pending = new Map<number, PendingTimer>();

  constructor(private readonly startWallMs: number) {}

  nowMs(): number {
    return this.startWallMs + this.elapsedMs + this.wallShiftMs;
  }

  monoMs(): number {
    return this.elapsedMs;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { at: this.elapsedMs + Math.max(0, ms), seq: this.seq++, fn };
    this.pending.set(timer.seq, timer);
    return { id: timer.seq };
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle.id as number);
  }

  /** Steps the wall clock by `deltaMs` (negative: backwards); monotonic time and timers are unaffected. */
  shiftWall(deltaMs: number): void {
    this.wallShiftMs += deltaMs;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting each one's work settle. */
  async advance(ms: number): Promise<void> {
    const until = this.elapsedMs + ms;
    await settle();
    for (let next = this.nextDue(until); next; next = this.nextDue(until)) {
      this.pending.delete(next.seq);
      this.elapsedMs = next.at;
      next.fn();
      await settle();
    }
    this.elapsedMs = until;
  }

  /** Advances until the wall clock reads `wallMs`. */
  async advanceToWall(wallMs: number): Promise<void> {
    await this.advance(Math.max(0, wallMs - this.nowMs()));
  }

  private nextDue(until: number): PendingTimer | null {
    let best: PendingTimer | null = null;
    for (const t of this.pending.values()) {
      if (t.at > until) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** In-memory stores answer through promise jobs only, which all run before the next macrotask. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
