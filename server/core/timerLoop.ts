// The loop every periodic service runs on: a pass, then a timer for the next one. Passes never overlap (the
// next timer is armed only once a pass has ended), each pass says how long to wait before the next, and
// stop() is final. Time comes in through the Timers port, so the loops run on a fake clock in tests.

import type { TimerHandle, Timers } from './ports';

export interface TimerLoopOptions {
  timers: Timers;
  /** One pass; resolves to the delay in ms before the next pass starts. */
  pass: () => Promise<number>;
  /** Called with what a pass threw (to log it); returns the delay in ms before the next pass. */
  onError: (err: unknown) => number;
}

/** Runs `pass` on the timers until `stop()`: one pass at a time, each after the delay its predecessor chose. */
export class TimerLoop {
  private timer: TimerHandle | null = null;
  private running: Promise<void> | null = null;
  private state: 'idle' | 'started' | 'stopped' = 'idle';
  /** A wake() came during a pass: the next pass starts as soon as this one ends. */
  private wokenDuringPass = false;

  constructor(private readonly o: TimerLoopOptions) {}

  /**
   * Runs the first pass after `firstDelayMs`. Does nothing on a loop already started or stopped: a service
   * stopped while it was still starting (a scheduler that lost its lock meanwhile) must not start passes.
   */
  start(firstDelayMs = 0): void {
    if (this.state !== 'idle') return;
    this.state = 'started';
    this.arm(firstDelayMs);
  }

  /** No pass starts after this; resolves once the pass in progress, if any, has ended. */
  async stop(): Promise<void> {
    this.state = 'stopped';
    if (this.timer) this.o.timers.clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * Starts the next pass now rather than after its delay (something it waits for has happened, e.g. a
   * wake-up from another host); during a pass, the next one starts as soon as it ends. No pass is ever
   * started twice at once, and a loop not started (or stopped) is left alone.
   */
  wake(): void {
    if (this.state !== 'started') return;
    if (this.running) {
      this.wokenDuringPass = true;
      return;
    }
    if (this.timer) {
      this.o.timers.clearTimeout(this.timer);
      this.timer = null;
      this.arm(0);
    }
  }

  /** Whether `stop()` was called (a pass in progress may use it to end early). */
  get stopped(): boolean {
    return this.state === 'stopped';
  }

  private arm(ms: number): void {
    if (this.state === 'stopped') return;
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = null;
      this.wokenDuringPass = false;
      this.running = this.runPass().then((nextMs) => {
        this.running = null;
        this.arm(this.wokenDuringPass ? 0 : nextMs);
      });
    }, ms);
  }

  private async runPass(): Promise<number> {
    try {
      return await this.o.pass();
    } catch (err) {
      return this.o.onError(err);
    }
  }
}
