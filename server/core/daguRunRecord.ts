// One attempt of a run as Dagu (1.30.2 or 2.x) recorded it (the last line of its `status.jsonl`), turned into
// this product's run status for `dagu migrate --history`. Dagu writes numbers for statuses, camelCase keys,
// absolute log paths and empty texts for "never"; this keeps what has a place here and says why a record that
// cannot be a finished run of ours is left out.

import type { RunState, RunStatus, StepState, StepStatus, TriggerType } from './types';

/** Dagu's run status numbers (core.Status): index = number. */
const RUN_STATES = [
  'not_started',
  'running',
  'failed',
  'aborted',
  'succeeded',
  'queued',
  'partially_succeeded',
  'waiting',
  'rejected',
] as const;

/** Dagu's node status numbers (core.NodeStatus): index = number; what a finished run's step becomes here. */
const STEP_STATES: readonly StepState[] = [
  'not_started',
  'aborted', // running: only in a run that did not finish, which is not imported
  'failed',
  'aborted',
  'succeeded',
  'skipped',
  'partially_succeeded',
  'aborted', // waiting for an approval that never came
  'rejected',
];

const TRIGGERS = new Set<TriggerType>(['manual', 'scheduler', 'catchup', 'retry', 'subdag', 'queue']);

/** Dagu's handler fields and the events this product records them under. */
const HANDLERS = [
  ['onInit', 'init'],
  ['onSuccess', 'success'],
  ['onFailure', 'failure'],
  ['onCancel', 'abort'],
  ['onAbort', 'abort'],
  ['onExit', 'exit'],
] as const;

/** A log file of Dagu's to copy, and the step (or handler) status whose field gets the copy's path. */
export interface DaguLogCopy {
  from: string;
  step: StepStatus;
  field: 'stdout' | 'stderr';
}

/** Where one step's copied logs go: paths relative to the logs root (runner/logFiles.ts LogFileNames). */
export type LogNames = (stepName: string) => { stdoutRelative: string; stderrRelative: string };

export type ConvertedAttempt =
  { ok: true; status: RunStatus; logs: DaguLogCopy[] } | { ok: false; reason: string };

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** An RFC 3339 text of Dagu's as ours (UTC), or null for "" and what is not a time. */
function time(v: unknown): string | null {
  const t = text(v);
  if (t === null) return null;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** Dagu's output variables (`{"N": "N=3"}`) as ours (`{"N": "3"}`), without Dagu's own `DAGU_*` entries. */
function outputOf(node: Json): Record<string, string> | null {
  if (!isObject(node.outputVariables)) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(node.outputVariables)) {
    if (k.startsWith('DAGU_')) continue;
    const s = String(v);
    out[k] = s.startsWith(`${k}=`) ? s.slice(k.length + 1) : s;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function exitCodeOf(node: Json, status: StepState): number | null {
  if (typeof node.exitCode === 'number') return node.exitCode;
  const m = /exit status (\d+)/.exec(text(node.error) ?? '');
  if (m) return Number(m[1]);
  return status === 'succeeded' ? 0 : null;
}

/** One node (step or handler) of Dagu's record; its logs are added to `logs` to copy. */
function stepOf(node: Json, names: LogNames, logs: DaguLogCopy[], subRuns: SubRunInfo): StepStatus | null {
  const step = isObject(node.step) ? node.step : {};
  const name = text(step.name);
  if (name === null) return null;
  const status = STEP_STATES[typeof node.status === 'number' ? node.status : 0] ?? 'not_started';
  const s: StepStatus = {
    name,
    status,
    started_at: time(node.startedAt),
    finished_at: time(node.finishedAt),
    exit_code: exitCodeOf(node, status),
    error: text(node.error),
    retry_count: typeof node.retryCount === 'number' ? node.retryCount : 0,
    stdout: null,
    stderr: null,
    output: outputOf(node),
    depends: Array.isArray(step.depends)
      ? step.depends.filter((d): d is string => typeof d === 'string')
      : [],
  };
  if (node.repeated === true && typeof node.doneCount === 'number' && node.doneCount > 1)
    s.repeat_count = node.doneCount - 1;
  if ((status === 'skipped' || status === 'aborted') && s.started_at === null && s.error)
    s.skip_reason = s.error;
  const children = Array.isArray(node.children) ? node.children.filter(isObject) : [];
  if (children.length > 0) {
    s.sub_runs = children.flatMap((c) => {
      const id = text(c.dagRunId);
      if (id === null) return [];
      const known = subRuns(id);
      return [{ dag_name: known?.dag_name ?? name, run_id: id, status: known?.status ?? null }];
    });
  }
  const files = names(name);
  const out = text(node.stdout);
  const err = text(node.stderr);
  if (out) {
    s.stdout = files.stdoutRelative;
    logs.push({ from: out, step: s, field: 'stdout' });
  }
  if (err) {
    s.stderr = files.stderrRelative;
    logs.push({ from: err, step: s, field: 'stderr' });
  }
  return s;
}

/** What the importer knows of a sub-run by its ID: its DAG and how it ended. */
export type SubRunInfo = (runId: string) => { dag_name: string; status: RunState | null } | null;

export interface ConvertOptions {
  /** 1 for Dagu's first attempt of the run, and so on in the order Dagu made them. */
  attempt: number;
  /** The attempt's log directory relative to the logs root (RunStatus.log_dir). */
  logDir: string;
  logNames: LogNames;
  subRuns: SubRunInfo;
  /** For a sub-run: the parent run and its step that started it. */
  parent: RunStatus['parent'];
}

/** The run state a Dagu record's status number stands for, or null when it is not one of Dagu's. */
export function daguRunState(record: unknown): (typeof RUN_STATES)[number] | null {
  if (!isObject(record) || typeof record.status !== 'number') return null;
  return RUN_STATES[record.status] ?? null;
}

/** Converts one attempt; refuses a run that has not finished (Dagu may still be running or queueing it). */
export function fromDaguAttempt(record: unknown, o: ConvertOptions): ConvertedAttempt {
  if (!isObject(record)) return { ok: false, reason: 'its status record is not a JSON object' };
  const name = text(record.name);
  const runId = text(record.dagRunId);
  if (name === null || runId === null)
    return { ok: false, reason: 'its status record has no name or dagRunId' };
  const state = daguRunState(record);
  if (state === null) return { ok: false, reason: `unknown status ${JSON.stringify(record.status)}` };
  if (
    state !== 'succeeded' &&
    state !== 'failed' &&
    state !== 'aborted' &&
    state !== 'partially_succeeded' &&
    state !== 'rejected'
  )
    return { ok: false, reason: `it is ${state.replace('_', ' ')} in Dagu; only finished runs are imported` };
  return finished(record, o, name, runId, state);
}

function finished(
  record: Json,
  o: ConvertOptions,
  name: string,
  runId: string,
  state: RunState,
): ConvertedAttempt {
  const logs: DaguLogCopy[] = [];
  const steps = (Array.isArray(record.nodes) ? record.nodes.filter(isObject) : [])
    .map((n) => stepOf(n, o.logNames, logs, o.subRuns))
    .filter((s): s is StepStatus => s !== null);
  const handlers: RunStatus['handlers'] = {};
  for (const [field, event] of HANDLERS) {
    const node = record[field];
    // A handler that never ran is recorded by Dagu with status 0; it did not run here either.
    if (!isObject(node) || node.status === 0 || node.status === undefined) continue;
    const h = stepOf(node, o.logNames, logs, o.subRuns);
    if (h) handlers[event] = h;
  }
  const created =
    typeof record.createdAt === 'number' ? new Date(record.createdAt).toISOString() : time(record.startedAt);
  const trigger = text(record.triggerType) as TriggerType | null;
  const params = Array.isArray(record.paramsList)
    ? record.paramsList.filter((p): p is string => typeof p === 'string')
    : [];
  const status: RunStatus = {
    version: 1,
    dag_name: name,
    run_id: runId,
    attempt: o.attempt,
    status: state,
    trigger_type: o.parent
      ? 'subdag'
      : o.attempt > 1
        ? 'retry'
        : trigger && TRIGGERS.has(trigger)
          ? trigger
          : 'manual',
    schedule_time: time(record.scheduleTime),
    queue: text(record.queue) ?? name,
    params,
    created_at: created ?? time(record.finishedAt) ?? new Date(0).toISOString(),
    queued_at: time(record.queuedAt),
    started_at: time(record.startedAt),
    finished_at: time(record.finishedAt),
    pid: null,
    host: null,
    worker_id: text(record.workerId),
    error: text(record.error),
    steps,
    handlers,
    conditions: [],
    worker_selector: null,
    log_dir: o.logDir,
    parent: o.parent,
  };
  return { ok: true, status, logs };
}
