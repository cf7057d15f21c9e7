// Gives an active marker back to queued or running runs that lost theirs. The dead-run check looks only at
// marked runs, so a run whose marker was removed while its status still said `running` (by an older version
// that unmarked a run whose final status could not be written, or by hand) would stay `running` for ever.

import type { RunState } from '../core/types';
import type { RunStore } from '../store/types';

/** How many of the newest runs of each state are looked at: more than can be queued or running at once. */
const SCANNED_PER_STATE = 500;

/** A run that was marked active again. */
export interface RemarkedRun {
  run_id: string;
  dag_name: string;
  status: RunState;
}

/**
 * Marks active each queued or running run among the newest of the run list that has no marker, and returns
 * them. The markers are listed after the runs, and each candidate's status is read again before it is
 * marked: a run created, or ended, while this looks is left alone.
 */
export async function markUnmarkedLiveRuns(
  runs: Pick<RunStore, 'listRuns' | 'listActive' | 'readStatus' | 'markActive'>,
): Promise<RemarkedRun[]> {
  const listed = [];
  for (const state of ['running', 'queued'] as const)
    listed.push(...(await runs.listRuns({ status: state, limit: SCANNED_PER_STATE })).items);
  const marked = new Set((await runs.listActive()).map((a) => a.run_id));
  const remarked: RemarkedRun[] = [];
  for (const run of listed) {
    if (marked.has(run.run_id)) continue;
    const now = await runs.readStatus(run.run_id);
    if (now.kind !== 'ok' || (now.status.status !== 'running' && now.status.status !== 'queued')) continue;
    const { run_id, dag_name, queue, status } = now.status;
    await runs.markActive({ run_id, dag_name, queue });
    remarked.push({ run_id, dag_name, status });
  }
  return remarked;
}
