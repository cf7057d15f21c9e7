// Builds the first status record of a run attempt, so every producer (scheduler, queue, API, runner)
// writes the same shape.

import type { DagSpec, RunState, RunStatus, StepStatus, TriggerType } from './types';
import { isoTime } from './isoTime';
import { dagLabels } from './runLabels';

export interface NewRunStatusInput {
  dag: DagSpec;
  runId: string;
  attempt?: number;
  status: RunState;
  triggerType: TriggerType;
  scheduleTime: string | null;
  params: string[];
  nowIso: string;
  /** Attempt log directory relative to the logs root. */
  logDir?: string;
  /** Scheduler instance creating the run (slot and catch-up runs). */
  dispatchedBy?: string | null;
  /** The caller's params as one JSON text (RunStatus.params_json); kept on the record only when given. */
  paramsJson?: string | null;
  /** `--no-reuse`: a build DAG's steps execute even where a committed output matches (RunStatus.no_reuse). */
  noReuse?: boolean;
  /** The call step that started this run (a sub-DAG), kept on every attempt of it. */
  parent?: RunStatus['parent'];
}

export function newRunStatus(i: NewRunStatusInput): RunStatus {
  const attempt = i.attempt ?? 1;
  const labels = dagLabels(i.dag);
  return {
    version: 1,
    dag_name: i.dag.name,
    run_id: i.runId,
    attempt,
    status: i.status,
    trigger_type: i.triggerType,
    schedule_time: i.scheduleTime,
    queue: i.dag.queue,
    params: i.params,
    created_at: i.nowIso,
    queued_at: i.status === 'queued' ? i.nowIso : null,
    started_at: null,
    finished_at: null,
    pid: null,
    host: null,
    worker_id: null,
    error: null,
    steps: i.dag.steps.map((s) => ({
      ...freshStepStatus(s.name),
      // Kept on the record so the console draws the graph the run had, even after the DAG file changes.
      // A spec built by hand or by an older version may lack the list.
      depends: [...(s.depends ?? [])],
    })),
    handlers: {},
    conditions: [],
    worker_selector: i.dag.worker_selector,
    log_dir: i.logDir ?? `${i.dag.name}/${i.runId}/${attempt}`,
    dispatched_by: i.dispatchedBy ?? null,
    ...(i.paramsJson != null ? { params_json: i.paramsJson } : {}),
    // The DAG's labels as the run was made (with any `--labels` already in `dag`), as Dagu records them.
    ...(labels.length > 0 ? { labels: [...labels] } : {}),
    ...(i.noReuse ? { no_reuse: true as const } : {}),
    ...(i.parent ? { parent: { ...i.parent } } : {}),
  };
}

/** RFC 3339 UTC without milliseconds when they are zero (slot times read `2026-11-30T01:15:00Z`). */
/** A step's status before it runs. */
export function freshStepStatus(name: string): StepStatus {
  return {
    name,
    status: 'not_started',
    started_at: null,
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
  };
}

export function isoUtc(ms: number): string {
  const s = isoTime(ms);
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}

/** The retries the scheduler made of this run under its DAG-level retry_policy (auto_retry_count). */
export function autoRetriesOf(s: Pick<RunStatus, 'auto_retry_count'>): number {
  return s.auto_retry_count ?? 0;
}

/**
 * The auto_retry_count of the attempt after `previous`: one more when the scheduler's retry_policy starts it
 * (`auto`), the same for a retry or resume by hand; undefined while it is 0 (the field stays absent).
 */
export function nextAutoRetryCount(previous: RunStatus, auto: boolean): number | undefined {
  const n = autoRetriesOf(previous) + (auto ? 1 : 0);
  return n > 0 ? n : undefined;
}
