// History retention: which ended runs of a DAG are old enough to delete, by Dagu's rules. `hist_retention_runs`
// keeps the newest N runs; otherwise `hist_retention_days` keeps N days (30 when it is unset or 0).

import { DAY } from './units';

export const DEFAULT_RETENTION_DAYS = 30;

export type RetentionPolicy = { kind: 'runs'; keep: number } | { kind: 'days'; days: number };

/** The policy of a DAG from its two keys (the parser refuses both set at once; runs wins if they are). */
export function retentionPolicy(dag: {
  hist_retention_days?: number | null;
  hist_retention_runs?: number | null;
}): RetentionPolicy {
  const runs = dag.hist_retention_runs ?? 0;
  if (runs > 0) return { kind: 'runs', keep: runs };
  const days = dag.hist_retention_days ?? 0;
  return { kind: 'days', days: days > 0 ? days : DEFAULT_RETENTION_DAYS };
}

/**
 * Run IDs to delete from a history given newest first. Only their age or rank decides here; the store refuses
 * to delete a run that has not ended, so a long-running old run is kept until it ends.
 */
export function runsPastRetention(
  history: ReadonlyArray<{ run_id: string; created_ms: number }>,
  policy: RetentionPolicy,
  nowMs: number,
): string[] {
  if (policy.kind === 'runs') return history.slice(policy.keep).map((e) => e.run_id);
  const cutoff = nowMs - policy.days * DAY;
  return history.filter((e) => e.created_ms < cutoff).map((e) => e.run_id);
}
