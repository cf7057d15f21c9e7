// A DAG-level retry_policy for runs on workers: when a worker reports that an attempt failed, the coordinator
// waits interval × backoff^n (as a local run process would) and dispatches the next attempt of the same run,
// which any matching worker may take. Like a local run process waiting to retry, the wait lives in this
// process: a coordinator stopped during it leaves the run failed.

import { backoffDelayMs } from '../core/backoff';
import { formatDuration } from '../core/duration';
import type { Logger, TimerHandle, Timers } from '../core/ports';
import type { RunStatus } from '../core/types';
import type { LoadDagResult } from '../store/dagCatalog';
import { resolveSelector, type DispatcherApi } from '../core/dispatcherApi';

export interface DagRetriesDeps {
  dispatcher: DispatcherApi;
  loadDag: (name: string) => Promise<LoadDagResult>;
  timers: Timers;
  logger: Logger;
}

export class DagRetries {
  private readonly pending = new Map<string, TimerHandle>();
  private stopped = false;

  constructor(private readonly d: DagRetriesDeps) {}

  /** Called with every final status a worker reported; plans the next attempt when the policy allows. */
  async onRunEnded(s: RunStatus): Promise<void> {
    if (this.stopped || s.status !== 'failed' || this.pending.has(s.run_id)) return;
    const loaded = await this.d.loadDag(s.dag_name).catch(() => null);
    if (!loaded?.ok) return;
    const dag = loaded.dag;
    const policy = dag.retry_policy;
    // Attempt n is retry n-1: the limit counts retries, as runWithRetries does.
    if (!policy || s.attempt > policy.limit) return;
    const delayMs = backoffDelayMs(policy, s.attempt - 1);
    const log = this.d.logger.child({ dag: s.dag_name, run_id: s.run_id });
    log.info('Retrying the failed run (retry_policy)', {
      next_attempt: s.attempt + 1,
      limit: policy.limit,
      wait: formatDuration(delayMs),
    });
    const timer = this.d.timers.setTimeout(() => {
      this.pending.delete(s.run_id);
      this.d.dispatcher
        .dispatch({
          dag,
          runId: s.run_id,
          operation: 'retry',
          triggerType: 'retry',
          params: s.params,
          scheduleTime: s.schedule_time,
          selector: resolveSelector(dag),
          previous: s,
          parent: null,
          fromQueue: false,
        })
        .then((r) => {
          if (r.outcome === 'refused') log.warn('Could not retry the failed run', { error: r.error });
        })
        // A retry dispatched elsewhere meanwhile (dagu retry) is not an error worth more than a line.
        .catch((err: Error) => log.warn('Could not retry the failed run', { error: err.message }));
    }, delayMs);
    this.pending.set(s.run_id, timer);
  }

  /** Drops the waits (the coordinator is stopping). */
  stop(): void {
    this.stopped = true;
    for (const t of this.pending.values()) this.d.timers.clearTimeout(t);
    this.pending.clear();
  }
}
