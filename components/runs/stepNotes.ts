// What the console writes beside a step's state: why a step did not run (a precondition, an upstream
// failure), how often it was retried or repeated, its child runs counted by state, and a build DAG step's
// reuse decision (buildNotes.ts). Text names every fact, so the colour of the state never has to carry it alone.

import { buildDecisionLabel, type StepBuildRef } from './buildNotes';

/** A child run a `call` or `parallel` step started, as the run record holds it. */
export interface SubRunRef {
  dag_name: string;
  run_id: string;
  /** Null until the child's state is known. */
  status: string | null;
  /** The parallel item this child ran for. */
  item?: string;
}

/** One item of a `foreach` step, as the run record holds it. */
export interface ForeachItemRef {
  index: number;
  key: string;
  label: string;
  status: string;
  error?: string;
}

/** What the notes need of a step status. */
export interface NotedStep {
  status: string;
  started_at?: string | null;
  error?: string | null;
  retry_count?: number;
  repeat_count?: number;
  skip_reason?: string | null;
  sub_runs?: readonly SubRunRef[];
  foreach_items?: readonly ForeachItemRef[];
  /** A build DAG's step: how it was satisfied (reused, executed, ...). */
  build?: StepBuildRef;
}

/**
 * Why the step did not run, or null when it ran or may still run. The recorded `skip_reason` first; a skipped
 * step, or one aborted before it started, written without one gives its error as the reason instead.
 */
export function notRunReason(step: NotedStep): string | null {
  if (step.skip_reason) return step.skip_reason;
  const neverStarted = !step.started_at;
  if (step.status === 'skipped') return step.error || 'no reason was recorded';
  if (step.status === 'aborted' && neverStarted && step.error) return step.error;
  return null;
}

/** `skipped: precondition not met: …` or `not run: upstream failed`; null when the step ran. */
export function notRunText(step: NotedStep): string | null {
  const reason = notRunReason(step);
  if (reason === null) return null;
  return `${step.status === 'skipped' ? 'skipped' : 'not run'}: ${reason}`;
}

/** `retried 2×`, `repeated 5×`: only the counts that are above zero. */
export function countTexts(step: NotedStep): string[] {
  const out: string[] = [];
  if ((step.retry_count ?? 0) > 0) out.push(`retried ${step.retry_count}×`);
  if ((step.repeat_count ?? 0) > 0) out.push(`repeated ${step.repeat_count}×`);
  return out;
}

/** Child run states in the order a summary lists them: what needs attention first. */
const SUB_RUN_STATE_ORDER = [
  'failed',
  'aborted',
  'running',
  'queued',
  'partially_succeeded',
  'succeeded',
] as const;

/** How the summary names a child whose state is not known yet. */
export const UNKNOWN_SUB_RUN_STATE = 'not started';

/** The label of a child's state, `not started` for null. */
export function subRunStateLabel(status: string | null): string {
  return status === null ? UNKNOWN_SUB_RUN_STATE : status.replaceAll('_', ' ');
}

/** The child runs counted by state, states with none left out; any state this console does not know last. */
export function countSubRuns(subRuns: readonly SubRunRef[]): Array<{ status: string | null; count: number }> {
  const counts = new Map<string | null, number>();
  for (const r of subRuns) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const rank = (s: string | null) => {
    const i = (SUB_RUN_STATE_ORDER as readonly (string | null)[]).indexOf(s);
    return i === -1 ? SUB_RUN_STATE_ORDER.length + (s === null ? 1 : 0) : i;
  };
  return [...counts.entries()]
    .map(([status, count]) => ({ status, count }))
    .sort((a, b) => rank(a.status) - rank(b.status) || String(a.status).localeCompare(String(b.status)));
}

/** `1 child run`, `1000 child runs`. */
export function childRunsText(count: number): string {
  return `${count} child run${count === 1 ? '' : 's'}`;
}

/** `3 child runs: 1 failed, 2 succeeded`; null when the step started none. */
export function subRunSummaryText(subRuns: readonly SubRunRef[] | undefined): string | null {
  if (!subRuns || subRuns.length === 0) return null;
  const parts = countSubRuns(subRuns).map((c) => `${c.count} ${subRunStateLabel(c.status)}`);
  return `${childRunsText(subRuns.length)}: ${parts.join(', ')}`;
}

/** `3 items: 1 failed, 2 succeeded` for a foreach step; null when it has no items (yet). */
export function foreachSummaryText(items: readonly ForeachItemRef[] | undefined): string | null {
  if (!items || items.length === 0) return null;
  const parts = countSubRuns(items.map((i) => ({ dag_name: '', run_id: '', status: i.status }))).map(
    (c) => `${c.count} ${subRunStateLabel(c.status)}`,
  );
  return `${items.length} item${items.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/**
 * The short second line of a step's graph node, most telling fact first: why it did not run, a build step's
 * decision (`reused`, `executed`; not `no decision`), its counts, its child runs, then `span` (its duration)
 * when given. Empty parts are left out; undefined when none.
 */
export function nodeDetail(step: NotedStep, span?: string): string | undefined {
  const parts: string[] = [];
  const reason = notRunReason(step);
  if (reason !== null) parts.push(reason);
  if (step.build && step.build.decision !== 'none') parts.push(buildDecisionLabel(step.build.decision));
  parts.push(...countTexts(step));
  if (step.sub_runs && step.sub_runs.length > 0) parts.push(childRunsText(step.sub_runs.length));
  const items = step.foreach_items?.length ?? 0;
  if (items > 0) parts.push(`${items} item${items === 1 ? '' : 's'}`);
  if (span && reason === null) parts.push(span);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}
