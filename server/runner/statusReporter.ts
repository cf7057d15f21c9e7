// Where a run's status and heartbeat go. The engine only sees this interface, so the same engine can
// write to the local run store or (issue 4) report to a coordinator from a remote worker.

import type { Logger, Timers } from '../core/ports';
import type { RunState, RunStatus } from '../core/types';
import type { RunStore } from '../store/types';

/**
 * Receives a run's status on every change and its heartbeat while it runs. Implementations must not keep a
 * reference to the object passed to `write` (the engine keeps mutating it) and should never reject:
 * a lost status write must not crash the run.
 */
export interface StatusReporter {
  /** Resolves once this status (or a newer one) has been written, or the attempt failed and was logged. */
  write(status: RunStatus): Promise<void>;
  heartbeat(nowMs: number): Promise<void>;
}

/** Whether the latest status reached the store in `settle`, and if not the last error writing it. */
export type SettleOutcome = { written: true } | { written: false; error: unknown };

/** A StatusReporter writing to the run store, which can also be waited on until the latest status is written. */
export interface StoreReporter extends StatusReporter {
  /**
   * Writes the latest status again until it is on disk, backing off (and refreshing the heartbeat) between
   * tries, for about `timeoutMs` at most (a try under way when it runs out is waited for: the store bounds it). A run's end is written this way: the run process must know whether
   * its final status is durable before it stops counting the run as active.
   */
  settle(timeoutMs: number): Promise<SettleOutcome>;
}

export interface StoreReporterOptions {
  /**
   * How long a change of a step waits before it is written, gathering the changes that follow. A change of
   * the run's own state (started, finished) is written at once, and so is anything waiting when one comes.
   * 0 (the default): every change is written one turn of the event loop after it was made.
   */
  settleMs?: number;
  /** The run's state in the status already on disk (`running` for a run created running), if known. */
  written?: RunState | null;
  timers: Timers;
  /** Wall-clock ms for the heartbeats `settle` writes between its tries. */
  nowMs: () => number;
}

/**
 * A reporter writing through the run store. Status writes are serialized and coalesced: at most one write
 * is in flight, and a write that finds a newer status pending writes that one instead, so the latest state
 * always wins and an older snapshot can never overwrite a newer one. A failed write is logged and retried
 * on the next change or heartbeat, or by `settle`. The logger should carry the run's `run_id` already.
 *
 * With `settleMs`, the steps of a run that changes only its steps are written at most once per `settleMs`:
 * a step that ends within it never causes a write of its own, and a run process whose steps are that short
 * writes its status twice, when it is created and when it ends.
 */
export function storeReporter(
  runStore: Pick<RunStore, 'writeStatus' | 'writeHeartbeat'>,
  logger: Logger,
  opts: StoreReporterOptions,
): StoreReporter {
  const settleMs = opts.settleMs ?? 0;
  const { timers, nowMs } = opts;
  let latest: RunStatus | null = null;
  let latestSeq = 0;
  let writtenSeq = 0;
  let writtenState: RunState | null = opts.written ?? null;
  let chain: Promise<void> = Promise.resolve();
  let heartbeatInFlight = false;
  let lastError: unknown = null;

  const flush = async (): Promise<void> => {
    if (latest === null || writtenSeq >= latestSeq) return;
    const seq = latestSeq;
    const snapshot = latest;
    try {
      await runStore.writeStatus(snapshot);
      writtenSeq = Math.max(writtenSeq, seq);
      writtenState = snapshot.status;
      lastError = null;
    } catch (err) {
      lastError = err;
      logger.warn('Failed to write run status; will retry on the next change', {
        attempt: snapshot.attempt,
        error: errorText(err),
      });
    }
  };
  // One flush waits on the chain at a time, and it starts one turn of the event loop after it was asked
  // for (or, for a change of steps only, `settleMs` later): the changes of one burst (a step ends, so does
  // the run, and its final status is written) go out as one write. A change made while a write is in
  // flight schedules the next flush after it.
  let scheduled: Promise<void> | null = null;
  let urgent = false;
  let hurry: (() => void) | null = null;
  const settle = (): Promise<void> =>
    new Promise<void>((resolve) => {
      if (urgent || settleMs <= 0) {
        nextTurn().then(resolve, resolve);
        return;
      }
      const timer = timers.setTimeout(resolve, settleMs);
      hurry = () => {
        timers.clearTimeout(timer);
        nextTurn().then(resolve, resolve);
      };
    });
  const enqueueFlush = (now: boolean): Promise<void> => {
    if (now) {
      urgent = true;
      hurry?.();
      hurry = null;
    }
    if (scheduled !== null) return scheduled;
    const next = chain.then(settle).then(() => {
      scheduled = null;
      hurry = null;
      urgent = false;
      return flush();
    });
    scheduled = next;
    chain = next;
    return next;
  };

  const writeHeartbeat = async (ms: number): Promise<void> => {
    if (latest === null || heartbeatInFlight) return;
    heartbeatInFlight = true;
    const { run_id, attempt } = latest;
    try {
      await runStore.writeHeartbeat(run_id, attempt, ms);
    } catch (err) {
      logger.warn('Failed to write run heartbeat', { attempt, error: errorText(err) });
    } finally {
      heartbeatInFlight = false;
    }
  };
  const sleep = (ms: number) => new Promise<void>((resolve) => timers.setTimeout(resolve, ms));

  const reporter: StoreReporter = {
    write(status) {
      latest = structuredClone(status);
      latestSeq += 1;
      return enqueueFlush(status.status !== writtenState);
    },
    async heartbeat(nowMs) {
      const retry = writtenSeq < latestSeq ? enqueueFlush(false) : Promise.resolve();
      await writeHeartbeat(nowMs);
      await retry;
    },
    async settle(timeoutMs) {
      const startedMs = nowMs();
      await enqueueFlush(true);
      let waitedMs = 0;
      // The time the tries themselves took counts too: a store that answers each try only at its own timeout
      // (a stalled database) must not stretch the budget by one timeout per try.
      const spent = () => Math.max(waitedMs, nowMs() - startedMs);
      for (let delayMs = SETTLE_FIRST_RETRY_MS; writtenSeq < latestSeq; delayMs *= 2) {
        if (spent() >= timeoutMs) return { written: false, error: lastError };
        const pause = Math.min(delayMs, SETTLE_MAX_RETRY_MS, timeoutMs - spent());
        await sleep(pause);
        waitedMs += pause;
        await enqueueFlush(true);
        // The heartbeat keeps the run from looking dead while its end is still being written.
        if (writtenSeq < latestSeq) await writeHeartbeat(nowMs());
      }
      return { written: true };
    },
  };
  return reporter;
}

/** Backoff of `settle`: the first retry soon (a burst of writes freeing space), then at most every 2 s. */
const SETTLE_FIRST_RETRY_MS = 100;
const SETTLE_MAX_RETRY_MS = 2000;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
