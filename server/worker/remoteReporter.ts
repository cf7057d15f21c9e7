// The StatusReporter of a run on a worker: every status goes to the coordinator, which writes it into the
// run store. A rejected status or a cancel in the reply stops the run (it is no longer this worker's).

import type { Clock, Logger, Timers } from '../core/ports';
import { TERMINAL_RUN_STATES, type RunState, type RunStatus } from '../core/types';
import { errorText, type StatusReporter } from '../runner/statusReporter';
import type { CoordinatorApi } from './coordinatorClient';
import type { FinalLogs } from './logShipper';
import { retryBackoffMs, sleep } from './retryBackoff';

/** Why the coordinator wants the run stopped. */
export interface Rejection {
  /** True when an operator cancelled the run (its status is still taken); false when it is not ours any more. */
  cancel: boolean;
  error: string | null;
}

export interface RemoteReporterOptions {
  client: Pick<CoordinatorApi, 'reportStatus'>;
  workerId: string;
  clock: Clock;
  logger: Logger;
  /** Called once, when a reply rejects a status or asks for the run to stop. */
  onRejected: (why: Rejection) => void;
  /** Awaited before each attempt to send a terminal status: the step logs must reach the coordinator first. */
  beforeFinal?: () => Promise<unknown>;
  /**
   * Awaited before each attempt to send a terminal status, after `beforeFinal`: the rest of the run's logs,
   * sent with the status (the coordinator writes them first), or null when they went on their own. Its
   * `done` gets the coordinator's answer once it took the status.
   */
  finalLogs?: () => Promise<FinalLogs | null>;
  random?: () => number;
  /**
   * How long a change of the run's steps only waits before it is sent, gathering the changes that follow
   * (as a run process writes its status; see storeReporter). So does the run's start: a run that ends
   * within this time reports its start and its end in one status (on PostgreSQL, four statements and a
   * request fewer for each short run). Any other change of the run's own state (it ended) is sent at
   * once, with whatever waits. 0 (the default): every change is sent at once.
   */
  settleMs?: number;
  /** Needed with `settleMs`. */
  timers?: Timers;
}

/** How the last status ended up: taken, refused (the run is not ours), or not delivered in time. */
export type Delivery = 'delivered' | 'rejected' | 'undelivered';

/** A StatusReporter that can also be waited on until the coordinator has the latest status. */
export interface RemoteReporter extends StatusReporter {
  /** Keeps sending the latest status (with backoff) until it was taken or refused, or `timeoutMs` passed. */
  settle(timeoutMs: number, timers: Timers): Promise<Delivery>;
}

const RETRY_BASE_MS = 500;
const RETRY_MAX_MS = 10_000;

/**
 * Coalesces like storeReporter: only the latest snapshot is sent, one request at a time, and a status that
 * arrives while one is in flight is sent right after it (with `settleMs`, a change of steps only waits for
 * it). A failed send is retried on the next change or heartbeat once its backoff has passed. `heartbeat`
 * sends nothing of its own: the worker's heartbeat lists its runs.
 */
export function remoteReporter(o: RemoteReporterOptions): RemoteReporter {
  let latest: RunStatus | null = null;
  let latestSeq = 0;
  let sentSeq = 0;
  let inFlight: Promise<void> | null = null;
  let failures = 0;
  let retryAtMono = 0;
  let rejected = false;
  let notified = false;
  /** The run state of the last status handed to the client (sent, being sent, or failed). */
  let sentState: RunState | null = null;
  /** A send of step changes waiting out `settleMs`: `hurry` sends at once instead. */
  let settling: { done: Promise<void>; hurry: () => void } | null = null;
  /** Set by a send that must not wait (a change of state, a heartbeat, settle, the wait's end). */
  let urgent = false;
  const settleMs = o.timers ? (o.settleMs ?? 0) : 0;
  /** Whether a send of `status` may wait out `settleMs`: a change of steps only, or the run's start. */
  const mayWait = (status: RunStatus) =>
    settleMs > 0 && (status.status === sentState || (status.status === 'running' && sentState !== 'running'));

  const notify = (why: Rejection) => {
    if (notified) return;
    notified = true;
    o.onRejected(why);
  };

  const sendPending = async (): Promise<void> => {
    while (!rejected && latest !== null && sentSeq < latestSeq) {
      // A change of steps only (or the start), after a send: it waits out `settleMs` (or a send that
      // cannot wait).
      if (!urgent && mayWait(latest)) {
        void sendSettled();
        return;
      }
      urgent = false;
      const seq = latestSeq;
      const snapshot = latest;
      sentState = snapshot.status;
      try {
        const final = TERMINAL_RUN_STATES.includes(snapshot.status);
        if (o.beforeFinal && final) await o.beforeFinal();
        const logs = final && o.finalLogs ? await o.finalLogs() : null;
        const reply = await o.client.reportStatus(snapshot.run_id, {
          worker_id: o.workerId,
          status: snapshot,
          ...(logs ? { logs: logs.chunks } : {}),
        });
        if (logs && reply.accepted) await logs.done(reply.logs);
        sentSeq = Math.max(sentSeq, seq);
        if (failures > 0)
          o.logger.info('Run status reaches the coordinator again', { run_id: snapshot.run_id });
        failures = 0;
        if (!reply.accepted) {
          rejected = true;
          o.logger.warn('The coordinator refused the run status; stopping the run', {
            run_id: snapshot.run_id,
            error: reply.error ?? null,
          });
          notify({ cancel: reply.cancel, error: reply.error ?? null });
        } else if (reply.cancel) {
          notify({ cancel: true, error: reply.error ?? null });
        }
      } catch (err) {
        failures += 1;
        retryAtMono = o.clock.monoMs() + retryBackoffMs(failures, RETRY_BASE_MS, RETRY_MAX_MS, o.random);
        if (failures === 1)
          o.logger.warn('Failed to report run status to the coordinator; will retry', {
            run_id: snapshot.run_id,
            attempt: snapshot.attempt,
            error: errorText(err),
          });
        return;
      }
    }
  };

  // The `finally` runs in the same turn as the loop's last check, so a write can never find a finished
  // request still marked in flight and miss being sent.
  const pump = (): Promise<void> => {
    if (inFlight) return inFlight;
    if (rejected || latest === null || sentSeq >= latestSeq) return Promise.resolve();
    if (failures > 0 && o.clock.monoMs() < retryAtMono) return Promise.resolve();
    inFlight = (async () => {
      try {
        await sendPending();
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  };

  /** Sends now what is pending, ending a wait of step changes (this send carries them). */
  const sendNow = (): Promise<void> => {
    urgent = true;
    const waiting = settling;
    if (!waiting) return pump();
    waiting.hurry();
    return waiting.done;
  };

  /** Sends after `settleMs`, or with a send that cannot wait, whichever comes first. */
  function sendSettled(): Promise<void> {
    if (settling) return settling.done;
    let hurry!: () => void;
    const done = new Promise<void>((resolve) => {
      const fire = () => {
        settling = null;
        urgent = true;
        pump().then(resolve, resolve);
      };
      const timer = o.timers!.setTimeout(fire, settleMs);
      hurry = () => {
        o.timers!.clearTimeout(timer);
        fire();
      };
    });
    settling = { done, hurry };
    return done;
  }

  return {
    write(status) {
      latest = structuredClone(status);
      latestSeq += 1;
      if (mayWait(status)) {
        // After a send in flight, the change is sent (or waits) as that send's loop decides.
        return inFlight ? inFlight.then(() => settling?.done) : sendSettled();
      }
      return sendNow();
    },
    heartbeat() {
      return sendNow();
    },
    async settle(timeoutMs, timers) {
      const deadline = o.clock.monoMs() + timeoutMs;
      for (;;) {
        await sendNow();
        if (rejected) return 'rejected';
        if (sentSeq >= latestSeq) return 'delivered';
        const now = o.clock.monoMs();
        if (now >= deadline) return 'undelivered';
        if (inFlight) continue;
        await sleep(timers, Math.max(1, Math.min(retryAtMono, deadline) - now));
      }
    },
  };
}
