// `skip_if_successful`, as Dagu decides it: a scheduled slot is skipped when the DAG's latest run succeeded
// (a partial success does not count) at or after the previous slot, by its schedule time or, for a run
// started by hand, by its start time. So a manual run between two slots stands in for the next one.

import { dueSlots } from './schedule';
import type { DagSpec, RunState } from './types';

/** What the rule needs of the DAG's latest run. */
export interface LatestRun {
  run_id: string;
  status: RunState | 'corrupt';
  schedule_time: string | null;
  started_at: string | null;
}

/** The newest slot of any of the DAG's schedules strictly before `slotMs`, or null. */
export function previousSlot(dag: Pick<DagSpec, 'schedule'>, slotMs: number): number | null {
  let best: number | null = null;
  for (const s of dag.schedule) {
    const [prev] = dueSlots(s, 0, slotMs - 1, 1);
    if (prev !== undefined && (best === null || prev > best)) best = prev;
  }
  return best;
}

/** Whether the slot at `slotMs` is skipped because `latest` already succeeded since the previous slot. */
export function skipsAsSucceeded(
  dag: Pick<DagSpec, 'schedule' | 'skip_if_successful'>,
  slotMs: number,
  latest: LatestRun | null,
): boolean {
  if (!dag.skip_if_successful || latest === null || latest.status !== 'succeeded') return false;
  const at = latest.schedule_time ?? latest.started_at;
  if (at === null) return false;
  const atMs = Date.parse(at);
  const prev = previousSlot(dag, slotMs);
  return prev !== null && atMs >= prev && atMs < slotMs;
}
