// The long poll of a worker: claims the oldest task its labels match, looking again every tick (and at once
// when a dispatch in this process stores a task) until one is claimed, the wait passes or the client leaves.

import type { Labels } from '../core/distributed';
import type { Clock, Timers } from '../core/ports';
import type { DispatchStore, DispatchTask } from '../store/dispatchTypes';

/** How often a waiting poll looks at the store; tasks stored by another process are seen this late. */
export const POLL_TICK_MS = 100;

export interface TaskPollerDeps {
  tasks: DispatchStore;
  clock: Clock;
  timers: Timers;
  tickMs?: number;
}

export class TaskPoller {
  private readonly wakers = new Set<() => void>();

  constructor(private readonly d: TaskPollerDeps) {}

  /** Wakes every waiting poll: a task was just stored. */
  notify(): void {
    for (const wake of [...this.wakers]) wake();
  }

  /** Claims a task for the worker within `waitMs`; null when none came or `signal` aborted first. */
  async poll(
    worker: { worker_id: string; labels: Labels },
    waitMs: number,
    signal: AbortSignal,
  ): Promise<DispatchTask | null> {
    const deadline = this.d.clock.monoMs() + waitMs;
    for (;;) {
      if (signal.aborted) return null;
      const task = await this.d.tasks.claimNext(worker, this.d.clock.nowMs());
      if (task) return task;
      const left = deadline - this.d.clock.monoMs();
      if (left <= 0 || signal.aborted) return null;
      await this.sleep(Math.min(left, this.d.tickMs ?? POLL_TICK_MS), signal);
    }
  }

  private sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.d.timers.clearTimeout(timer);
        this.wakers.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.d.timers.setTimeout(done, ms);
      this.wakers.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
