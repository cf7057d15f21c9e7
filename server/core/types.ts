// The shared vocabulary of dagu: DAG definitions as parsed, and run records as persisted and served.
// Field names of persisted/served records are snake_case; states are string unions shown verbatim.

/** How a run came to be. Shown verbatim in the API and the console. */
export type TriggerType = 'scheduler' | 'manual' | 'catchup' | 'retry' | 'subdag' | 'queue';

/** Life-cycle of one run attempt. `queued` runs have a queue item; the others are terminal except `running`. */
export type RunState = 'queued' | 'running' | 'succeeded' | 'partially_succeeded' | 'failed' | 'aborted';

/** Life-cycle of one step inside a run. */
export type StepState =
  'not_started' | 'running' | 'retrying' | 'succeeded' | 'failed' | 'skipped' | 'aborted';

export const TERMINAL_RUN_STATES: readonly RunState[] = [
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
];

export type OverlapPolicy = 'skip' | 'all' | 'latest';

/** A step-level retry policy. Intervals are in seconds as in the DAG file. */
export interface StepRetryPolicy {
  limit: number;
  interval_sec: number;
  /** Multiplier applied to the interval after each attempt; 1 (or false) means a constant interval. */
  backoff: number;
  max_interval_sec: number | null;
}

/** One step of a DAG, after parsing and defaulting. */
export interface StepSpec {
  name: string;
  /** The command; a list runs its entries one after another, stopping at the first failure. */
  command: string[] | null;
  /** A multi-line script run by the shell; exclusive with `command`. */
  script: string | null;
  shell: string | null;
  dir: string | null;
  env: Record<string, string>;
  /** Names of steps this step waits for; empty for the first step of a chain. */
  depends: string[];
  timeout_sec: number | null;
  retry_policy: StepRetryPolicy | null;
  continue_on: { failure: boolean };
  /** Name of a variable that receives the step's trimmed stdout for later steps. */
  output: string | null;
  /** Run another DAG as a sub-run (issue 4). */
  call: string | null;
  /** Parameters passed to the `call`ed DAG; the parser always fills it (empty when none). */
  params?: ParamSpec[];
  worker_selector: Record<string, string> | null;
}

/** A DAG-level retry policy used by the scheduler to re-run failed runs. */
export interface DagRetryPolicy {
  limit: number;
  interval_sec: number;
  backoff: number;
  max_interval_sec: number | null;
}

/** A schedule entry: the expression as written plus what the parser understood of it. */
export interface ScheduleSpec {
  /** The expression as written, including any `CRON_TZ=` prefix. */
  expression: string;
  /** The cron fields without prefix (5 or 6 fields). */
  cron: string;
  /** IANA time zone from `CRON_TZ=`, or null for UTC. */
  timezone: string | null;
  /** True when the expression has a leading seconds field. */
  has_seconds: boolean;
}

export interface ParamSpec {
  /** Null for a positional parameter. */
  name: string | null;
  value: string;
}

export interface HandlerSpecs {
  success: StepSpec | null;
  failure: StepSpec | null;
  abort: StepSpec | null;
  exit: StepSpec | null;
}

/** A DAG as parsed from its YAML file, with defaults applied. */
export interface DagSpec {
  name: string;
  description: string;
  tags: string[];
  schedule: ScheduleSpec[];
  steps: StepSpec[];
  params: ParamSpec[];
  env: Record<string, string>;
  /** Queue name; defaults to the DAG name. */
  queue: string;
  max_active_runs: number;
  overlap_policy: OverlapPolicy;
  /** Milliseconds, or 0 when catch-up is off. */
  catchup_window_ms: number;
  retry_policy: DagRetryPolicy | null;
  timeout_sec: number | null;
  worker_selector: Record<string, string> | null;
  handler_on: HandlerSpecs;
  signal_handling: { enable_propagation: boolean };
  /** Path of the file the DAG was loaded from, or null when it came from elsewhere. */
  file: string | null;
}

/** A condition on a queued run, as in seed 002 (`Runnable=False`, `WorkerReady=False`, ...). */
export interface RunCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** RFC 3339 time the condition was observed. */
  checked_at: string;
}

export interface StepStatus {
  name: string;
  status: StepState;
  started_at: string | null;
  finished_at: string | null;
  exit_code: number | null;
  error: string | null;
  /** Retries done so far (0 on the first try). */
  retry_count: number;
  /** Log file paths, relative to the logs directory. */
  stdout: string | null;
  stderr: string | null;
  /** Captured output variable, when the step declares `output`. */
  output: Record<string, string> | null;
  /**
   * The steps this one waited for, as the run's DAG had them when the attempt began (a chain DAG's steps
   * depend on the one before); absent on records written by older versions.
   */
  depends?: string[];
}

/** The status of one attempt of a run; written atomically as a whole on every change. */
export interface RunStatus {
  version: 1;
  dag_name: string;
  run_id: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  status: RunState;
  trigger_type: TriggerType;
  /** RFC 3339 UTC slot time of a scheduled or catch-up run; null otherwise. */
  schedule_time: string | null;
  queue: string;
  /** Parameters as `KEY=value` or positional values, in order. */
  params: string[];
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  pid: number | null;
  host: string | null;
  worker_id: string | null;
  error: string | null;
  steps: StepStatus[];
  handlers: Partial<Record<'success' | 'failure' | 'abort' | 'exit', StepStatus>>;
  /** Only while `queued`; cleared when the run leaves the queue. */
  conditions: RunCondition[];
  worker_selector: Record<string, string> | null;
  /** Directory of this attempt's logs, relative to the logs directory. */
  log_dir: string;
  /** Scheduler instance that created this run of a slot (scheduler and catch-up runs), else absent/null. */
  dispatched_by?: string | null;
}
