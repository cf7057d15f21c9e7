// The active scheduler removes old runs of each DAG by its `hist_retention_days` / `hist_retention_runs`
// (30 days by default, as Dagu): their records, list entries, logs and work directories. Only ended runs go;
// a run that is still queued or running is kept until a later sweep finds it ended.

import type { Clock, Logger } from '../core/ports';
import { retentionPolicy, runsPastRetention } from '../core/retention';
import type { DagSpec } from '../core/types';
import type { RunStore } from '../store/types';

export interface HistoryRetentionDeps {
  runs: Pick<RunStore, 'history' | 'deleteRun' | 'purgeDeleted'>;
  catalog: { load(): Promise<DagSpec[]> };
  clock: Clock;
  logger: Logger;
  /** The fence: deleting is a write only the active scheduler makes, while it holds the lock. */
  canDispatch: () => boolean;
}

/** What one sweep removed, by DAG name (for the log and tests). */
export type RetentionSweep = Record<string, string[]>;

export class HistoryRetention {
  constructor(private readonly d: HistoryRetentionDeps) {}

  async sweep(): Promise<RetentionSweep> {
    const removed: RetentionSweep = {};
    if (!this.d.canDispatch()) return removed;
    const finished = await this.d.runs.purgeDeleted();
    if (finished > 0) this.d.logger.info('Finished interrupted run deletions', { count: finished });
    for (const dag of await this.d.catalog.load()) {
      const policy = retentionPolicy(dag);
      const victims = runsPastRetention(await this.d.runs.history(dag.name), policy, this.d.clock.nowMs());
      for (const runId of victims) {
        if (!this.d.canDispatch()) return removed;
        const result = await this.d.runs.deleteRun(runId).catch((err: Error) => {
          this.d.logger.warn('Could not delete an old run', {
            dag: dag.name,
            run_id: runId,
            error: err.message,
          });
          return null;
        });
        if (result?.deleted) (removed[dag.name] ??= []).push(runId);
      }
      if (removed[dag.name]) {
        const kept = policy.kind === 'runs' ? `newest ${policy.keep} runs` : `${policy.days} days`;
        this.d.logger.info('Removed old runs', { dag: dag.name, count: removed[dag.name].length, kept });
      }
    }
    return removed;
  }
}
