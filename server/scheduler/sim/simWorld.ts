// One simulated timeline ("true time") with nodes whose clocks run at their own rates and can be paused
// (SIGSTOP-like: nothing of the node runs, then everything due fires late) or crashed (nothing ever again).

import type { Clock, TimerHandle, Timers } from '../../core/ports';

interface SimEvent {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** The event queue of one simulated run. Callbacks run in time order, then pending promise jobs drain. */
export class SimWorld {
  now = 0;
  private heap: SimEvent[] = [];
  private seq = 0;
  /** Called after every event, with its promise jobs drained: where invariants are checked. */
  afterEvent: (() => void) | null = null;

  at(time: number, fn: () => void): SimEvent {
    const ev: SimEvent = { at: Math.max(time, this.now), seq: this.seq++, fn, cancelled: false };
    this.push(ev);
    return ev;
  }

  /** Runs every event due up to `until`, draining promise jobs after each, and leaves `now` at `until`. */
  async runUntil(until: number): Promise<void> {
    // Work started outside any event (a call made just before runUntil) schedules its events here.
    await drainPromiseJobs();
    for (;;) {
      const top = this.heap[0];
      if (top === undefined || top.at > until) break;
      this.pop();
      if (top.cancelled) continue;
      this.now = top.at;
      top.fn();
      await drainPromiseJobs();
      this.afterEvent?.();
    }
    this.now = Math.max(this.now, until);
  }

  private push(ev: SimEvent): void {
    const h = this.heap;
    h.push(ev);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && before(h[l]!, h[m]!)) m = l;
      if (r < h.length && before(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

const before = (a: SimEvent, b: SimEvent) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** Promise continuations chain a few levels deep per storage answer; this drains far more than they need. */
async function drainPromiseJobs(): Promise<void> {
  for (let i = 0; i < 12; i++) await undefined;
}

/** A simulated process: its own monotonic clock rate, wall-clock offset, pauses and crash. */
export class SimNode {
  crashed = false;
  pausedUntil = 0;
  /** Added to the wall clock only: a host whose clock is set wrong or jumps. */
  wallOffsetMs = 0;
  readonly clock: Clock;
  readonly timers: Timers;

  constructor(
    readonly world: SimWorld,
    readonly name: string,
    readonly rate: number,
    readonly monoOffsetMs: number,
  ) {
    this.clock = {
      monoMs: () => this.monoOffsetMs + this.rate * this.world.now,
      nowMs: () => Date.UTC(2026, 10, 30) + this.wallOffsetMs + this.rate * this.world.now,
    };
    this.timers = {
      setTimeout: (fn, ms) => ({
        id: this.world.at(this.world.now + Math.max(0, ms) / this.rate, () => this.deliver(fn)),
      }),
      clearTimeout: (h: TimerHandle) => {
        (h.id as SimEvent).cancelled = true;
      },
    };
  }

  get paused(): boolean {
    return this.world.now < this.pausedUntil;
  }

  /** Runs `fn` in this process: never after a crash, and not before a pause ends. */
  deliver(fn: () => void): void {
    if (this.crashed) return;
    if (this.paused) {
      this.world.at(this.pausedUntil, () => this.deliver(fn));
      return;
    }
    fn();
  }
}
