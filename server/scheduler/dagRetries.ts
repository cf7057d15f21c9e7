// DAG-level retry_policy, as Dagu carries it out: the active scheduler looks for root runs whose latest
// attempt failed within scheduler.retry_failure_window, and once interval × backoff^n (capped) has passed
// since that attempt finished, starts the next attempt of the same run (trigger `retry`): a `dagu retry`
// process for a local DAG, a dispatch to the workers for a DAG that runs there. The run process itself
// never waits to retry (`dagu start` returns after the first attempt, as Dagu's does), so a retry survives
// the process that failed, the scheduler that saw it fail (its successor finds the same failed run) and the
// coordinator that dispatched it.
//
// A run is retried at most `limit` times, counted by auto_retry_count (the retries made so, Dagu's
// AutoRetryCount: a `dagu retry` by hand does not count). A retry is started only while this instance may dispatch (the lease), and one started
// is not started again while its attempt has not appeared yet (RETRY_START_GRACE_MS); two schedulers that
// both start it make one attempt between them, since creating attempt n + 1 fails for the second.

import { backoffDelayMs } from '../core/backoff';
import { formatDuration } from '../core/duration';
import { autoRetriesOf } from '../core/runStatus';
import type { Clock, Logger } from '../core/ports';
import type { DagSpec, RunStatus } from '../core/types';
import type { RunStore } from '../store/types';

/** How long a retry that was started may take to create its attempt before it is started again. */
export const RETRY_START_GRACE_MS = 60_000;

/** The most failed runs of one DAG looked at in one pass (newest first). */
const PAGE = 500;

export interface DagRetriesDeps {
  runs: Pick<RunStore, 'listRuns' | 'readStatus'>;
  /** The DAGs as the scheduler reads them; only those with a retry_policy are looked at. */
  dags: () => Promise<DagSpec[]>;
  /** The names of suspended DAGs (their failed runs are not retried while suspended). */
  suspended: () => Promise<Set<string>>;
  clock: Clock;
  logger: Logger;
  /** scheduler.retry_failure_window: only runs created this recently are retried; 0 turns retries off. */
  windowMs: number;
  /** Whether this instance may start runs now (it holds the lease). */
  canDispatch: () => boolean;
  /** Starts attempt n + 1 of `previous`. */
  retry: (dag: DagSpec, previous: RunStatus) => Promise<void>;
}

export class DagRetries {
  /** Retries started by this instance: the attempt they follow, and when (monotonic ms). */
  private readonly started = new Map<string, { after: number; atMono: number }>();
  /**
   * Failed runs that will not be retried as they stand (their retries are spent, or they are child runs),
   * by the attempt that said so and the limit it was judged by: not read again while both still hold.
   */
  private settled = new Map<string, string>();

  constructor(private readonly d: DagRetriesDeps) {}

  /**
   * One pass: starts every retry that is due. Answers how long until the next known retry falls due (ms),
   * or null when none is waiting.
   */
  async scan(): Promise<number | null> {
    if (this.d.windowMs <= 0 || !this.d.canDispatch()) return null;
    const withPolicy = (await this.d.dags()).filter((dag) => dag.retry_policy !== null);
    if (withPolicy.length === 0) return null;
    const now = this.d.clock.nowMs();
    let suspended: Set<string> | null = null;
    let nextDueMs: number | null = null;
    const settled = new Map<string, string>();
    for (const dag of withPolicy) {
      const page = await this.d.runs.listRuns({
        dag: dag.name,
        status: 'failed',
        createdFromMs: now - this.d.windowMs,
        limit: PAGE,
      });
      for (const item of page.items) {
        const verdict = `${item.attempt}/${dag.retry_policy!.limit}`;
        if (this.settled.get(item.run_id) === verdict) {
          settled.set(item.run_id, verdict);
          continue;
        }
        const due = await this.dueIn(dag, item.run_id, now);
        if (due === 'never') settled.set(item.run_id, verdict);
        if (due === null || due === 'never') continue;
        if (due.ms > 0) {
          nextDueMs = nextDueMs === null ? due.ms : Math.min(nextDueMs, due.ms);
          continue;
        }
        suspended ??= await this.d.suspended();
        if (suspended.has(dag.name)) continue;
        if (!this.d.canDispatch()) return null;
        await this.start(dag, due.status);
      }
    }
    // Only what this pass listed: a run that left the window, or was retried by hand, is forgotten.
    this.settled = settled;
    this.forgetOld();
    return nextDueMs;
  }

  /**
   * When the run's next attempt falls due (ms from now, ≤ 0: now); `never` when this attempt will not be
   * retried, null when it is not to be retried now (unreadable, no longer failed, just started).
   */
  private async dueIn(
    dag: DagSpec,
    runId: string,
    now: number,
  ): Promise<{ ms: number; status: RunStatus } | 'never' | null> {
    const policy = dag.retry_policy!;
    const r = await this.d.runs.readStatus(runId);
    if (r.kind !== 'ok') return null;
    const s = r.status;
    if (s.status !== 'failed') return null;
    // A child run is retried by its parent's step, if at all.
    const retries = autoRetriesOf(s);
    if (s.parent || s.dag_name !== dag.name || retries >= policy.limit) return 'never';
    const mine = this.started.get(runId);
    if (mine && mine.after === s.attempt && this.d.clock.monoMs() - mine.atMono < RETRY_START_GRACE_MS)
      return null;
    const finished = s.finished_at ? Date.parse(s.finished_at) : Date.parse(s.created_at);
    if (!Number.isFinite(finished)) return null;
    return { ms: finished + backoffDelayMs(policy, retries) - now, status: s };
  }

  private async start(dag: DagSpec, previous: RunStatus): Promise<void> {
    const log = this.d.logger.child({ dag: dag.name, run_id: previous.run_id });
    this.started.set(previous.run_id, { after: previous.attempt, atMono: this.d.clock.monoMs() });
    log.info('Retrying the failed run (retry_policy)', {
      next_attempt: previous.attempt + 1,
      retry: autoRetriesOf(previous) + 1,
      limit: dag.retry_policy!.limit,
      waited: formatDuration(backoffDelayMs(dag.retry_policy!, autoRetriesOf(previous))),
    });
    try {
      await this.d.retry(dag, previous);
    } catch (err) {
      // The next pass tries again.
      this.started.delete(previous.run_id);
      log.error('Could not start the retry of a failed run', { error: (err as Error).message });
    }
  }

  private forgetOld(): void {
    const now = this.d.clock.monoMs();
    for (const [runId, s] of this.started) {
      if (now - s.atMono >= RETRY_START_GRACE_MS) this.started.delete(runId);
    }
  }
}
