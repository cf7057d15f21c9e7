// Waits for a storage call for at most a deadline, using a plain timer: a stalled mount can block a file call
// forever (and fill the thread pool), but it cannot stop a timer. The call itself is left to settle later.

import type { Clock, Timers } from '../core/ports';

/** How a call ended from the caller's point of view; `timeout` also covers an answer that came too late. */
export type DeadlineOutcome<T> =
  { kind: 'done'; value: T } | { kind: 'error'; error: unknown } | { kind: 'timeout' };

export function runWithDeadline<T>(
  call: Promise<T>,
  deadlineMs: number,
  startMono: number,
  clock: Clock,
  timers: Timers,
): Promise<DeadlineOutcome<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: DeadlineOutcome<T>) => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(handle);
      // A paused process may see the answer and the timer together: the local clock decides which was first.
      resolve(o.kind !== 'timeout' && clock.monoMs() - startMono > deadlineMs ? { kind: 'timeout' } : o);
    };
    const handle = timers.setTimeout(
      () => finish({ kind: 'timeout' }),
      startMono + deadlineMs - clock.monoMs(),
    );
    call.then(
      (value) => finish({ kind: 'done', value }),
      (error: unknown) => finish({ kind: 'error', error }),
    );
  });
}
