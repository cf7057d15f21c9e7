// Where a run's status and heartbeat go. The engine only sees this interface, so the same engine can
// write to the local run store or (issue 4) report to a coordinator from a remote worker.

import { silentLogger, type Logger } from '../core/ports';
import type { RunStatus } from '../core/types';
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

/**
 * A reporter writing through the run store. Status writes are serialized and coalesced: at most one write
 * is in flight, and a write that finds a newer status pending writes that one instead, so the latest state
 * always wins and an older snapshot can never overwrite a newer one. A failed write is logged and retried
 * on the next change or heartbeat.
 */
export function storeReporter(
  runStore: Pick<RunStore, 'writeStatus' | 'writeHeartbeat'>,
  logger: Logger = silentLogger,
): StatusReporter {
  let latest: RunStatus | null = null;
  let latestSeq = 0;
  let writtenSeq = 0;
  let chain: Promise<void> = Promise.resolve();
  let heartbeatInFlight = false;

  const flush = async (): Promise<void> => {
    if (latest === null || writtenSeq >= latestSeq) return;
    const seq = latestSeq;
    const snapshot = latest;
    try {
      await runStore.writeStatus(snapshot);
      writtenSeq = Math.max(writtenSeq, seq);
    } catch (err) {
      logger.warn('Failed to write run status; will retry on the next change', {
        run_id: snapshot.run_id,
        attempt: snapshot.attempt,
        error: errorText(err),
      });
    }
  };
  // Each call appends one flush to the chain; flushes that find nothing newer are no-ops, which is what
  // coalesces a burst of changes into one or two writes.
  const enqueueFlush = (): Promise<void> => {
    chain = chain.then(flush);
    return chain;
  };

  return {
    write(status) {
      latest = structuredClone(status);
      latestSeq += 1;
      return enqueueFlush();
    },
    async heartbeat(nowMs) {
      const retry = writtenSeq < latestSeq ? enqueueFlush() : Promise.resolve();
      if (latest === null || heartbeatInFlight) return retry;
      heartbeatInFlight = true;
      const { run_id, attempt } = latest;
      try {
        await runStore.writeHeartbeat(run_id, attempt, nowMs);
      } catch (err) {
        logger.warn('Failed to write run heartbeat', { run_id, error: errorText(err) });
      } finally {
        heartbeatInFlight = false;
      }
      await retry;
    },
  };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
