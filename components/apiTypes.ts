// The shapes of the REST API's answers as the console uses them. CONTRACT, first version: written by hand so
// that the console and the API can be built side by side; the OpenAPI work replaces every body below with a
// type derived from server/api/openapi.yaml (keeping these names), so the console compiles against the file.

export type RunState = 'queued' | 'running' | 'succeeded' | 'partially_succeeded' | 'failed' | 'aborted';
export type StepState =
  'not_started' | 'running' | 'retrying' | 'succeeded' | 'failed' | 'skipped' | 'aborted';
export type TriggerType = 'scheduler' | 'manual' | 'catchup' | 'retry' | 'subdag' | 'queue';
export type Labels = Record<string, string>;

/** Every error answer: `{ error: { code, message } }`. */
export interface ErrorBody {
  error: { code: string; message: string };
}

export interface RunCondition {
  type: string; // 'Runnable' | 'WorkerReady' | ...
  status: 'True' | 'False' | 'Unknown';
  reason: string; // 'NoMatchingWorker' | 'NoAvailableWorker' | ...
  message: string;
  checked_at: string;
}

export interface StepStatus {
  name: string;
  status: StepState;
  started_at: string | null;
  finished_at: string | null;
  exit_code: number | null;
  error: string | null;
  retry_count: number;
  stdout: string | null;
  stderr: string | null;
  output: Record<string, string> | null;
  /** The steps this one waited for, as the run's DAG declared them; absent on records of older versions. */
  depends?: string[];
}

/** GET /api/v1/runs/:id */
export interface RunStatus {
  version: 1;
  dag_name: string;
  run_id: string;
  attempt: number;
  status: RunState;
  trigger_type: TriggerType;
  schedule_time: string | null;
  queue: string;
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
  conditions: RunCondition[];
  worker_selector: Labels | null;
  log_dir: string;
  dispatched_by?: string | null;
}

export interface RunSummary {
  dag_name: string;
  run_id: string;
  attempt: number;
  status: RunState | 'corrupt';
  trigger_type: TriggerType | null;
  schedule_time: string | null;
  queue: string | null;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
}

/** GET /api/v1/runs?dag=&status=&cursor=&limit= */
export interface RunListPage {
  items: RunSummary[];
  next_cursor: string | null;
}

/** GET /api/v1/dags → { dags: DagSummary[] } */
export interface DagSummary {
  name: string;
  file: string;
  description: string;
  tags: string[];
  schedule: string[];
  next_run: string | null;
  queue: string | null;
  last_run: RunSummary | null;
  errors: string[];
  warnings: string[];
}

/** GET /api/v1/dags/:name. `dag` is the parsed definition (an object; null when the file has errors). */
export interface DagDetail extends DagSummary {
  dag: DagDefinition | null;
  recent_runs: RunSummary[];
}

/** The parts of a parsed DAG the console reads. */
export interface DagDefinition {
  name: string;
  params?: unknown;
  worker_selector?: Labels | null;
  steps: Array<{ name: string; depends?: string[] | null; command?: unknown }>;
  [key: string]: unknown;
}

/** POST /api/v1/dags/:name/start  body { params?: string[] } */
export interface StartResult {
  run_id: string;
  dag_name: string;
  outcome: 'started' | 'dispatched' | 'held';
  pid: number | null;
  status: RunStatus | null;
  process_log: string | null;
}

/** POST /api/v1/runs/:id/stop (200, or 202 when a worker will stop it) */
export interface StopResult {
  outcome: 'dequeued' | 'aborted' | 'signalled' | 'requested';
  status: RunStatus;
}

/** POST /api/v1/runs/:id/retry (202): a new attempt of a finished run, started like a start of its DAG. */
export interface RetryResult {
  run_id: string;
  dag_name: string;
  /** The attempt number the retry will write. */
  attempt: number;
  outcome: 'started' | 'dispatched' | 'held';
}

/** GET /api/v1/runs/:id/logs/:step?stream=stdout|stderr&tail=N */
export interface StepLog {
  run_id: string;
  step: string;
  stream: 'stdout' | 'stderr';
  exists: boolean;
  size: number;
  truncated: boolean;
  content: string;
}

// ---- Queue (GET /api/v1/queue?queue=&dag=&selector=&reason=) ----

/** One run that waits: in a local queue (`queued`), or handed to the workers and not yet claimed. */
export interface WaitingRun {
  run_id: string;
  dag_name: string;
  /** `queued`: an item of a local queue; `held`: a dispatch task waiting for a matching worker (has a hold);
   *  `dispatched`: a dispatch task a healthy matching worker has not claimed yet. */
  kind: 'queued' | 'held' | 'dispatched';
  /** The local queue's name (`queued` only), else null. */
  queue: string | null;
  /** 1 = next to start in its queue (`queued` only), else null. */
  position: number | null;
  /** The run record's state (normally `queued`); null when the record is missing or unreadable. */
  status: RunState | null;
  trigger_type: TriggerType | null;
  schedule_time: string | null;
  params: string[];
  /** Null for runs that do not go to workers; `{}` means any worker. */
  worker_selector: Labels | null;
  /** The selector as the error texts write it: `{zone: b}`; `{}` for any worker; null without one. */
  selector_text: string | null;
  /** Why the run waits, as last recorded on the run (`Runnable`, `WorkerReady`, ...). */
  conditions: RunCondition[];
  /** The reason of the first condition with status False, e.g. `NoMatchingWorker`; null when none. */
  reason: string | null;
  /** When it started waiting (queued_at, or the task's enqueue time). */
  waiting_since: string;
  waited_ms: number;
  /** When a held run's wait runs out (it then fails), else null. */
  hold_until: string | null;
  /** Milliseconds left until hold_until (negative once expired), else null. */
  hold_remaining_ms: number | null;
  /** Error text when the run record is missing or unreadable. */
  problem: string | null;
}

export interface QueueSummary {
  name: string;
  max_concurrency: number | null;
  running: number;
  queued: number;
}

export interface QueueListing {
  enabled: boolean;
  /** Every known queue with its counts (unfiltered). */
  queues: QueueSummary[];
  /** The waiting runs that pass the filter: queued runs in queue order, then held/dispatched oldest first. */
  items: WaitingRun[];
  /** Number of items before `limit` cut the list. */
  total: number;
  /** Distinct values to offer in the filter controls (over all waiting runs, unfiltered). */
  facets: { queues: string[]; dags: string[]; selectors: string[]; reasons: string[] };
}

/** POST /api/v1/queue/cancel  body { run_ids: string[] } (1..500) */
export interface CancelResult {
  results: Array<{ run_id: string; ok: boolean; status: RunState | null; error: string | null }>;
}

// ---- Workers (GET /api/v1/workers) ----

export interface WorkerRunView {
  run_id: string;
  attempt: number;
  dag_name: string | null;
  status: RunState | null;
}

export interface WorkerSummary {
  worker_id: string;
  labels: Labels;
  max_active_runs: number;
  host: string;
  /** healthy: heard from within half of worker_stale_threshold; late: within the threshold (still dispatched
   *  to); lost: beyond it (its runs fail, nothing is dispatched to it). */
  state: 'healthy' | 'late' | 'lost';
  /** The dispatcher's view: healthy for healthy and late. */
  health: 'healthy' | 'unhealthy';
  registered_at: string;
  last_heartbeat_at: string;
  heartbeat_age_ms: number;
  running: WorkerRunView[];
}

export interface WorkerListing {
  workers: WorkerSummary[];
  stale_threshold_ms: number;
}

// ---- Overview (GET /api/v1/overview) ----

export interface SchedulerInstanceView {
  id: string;
  host: string;
  pid: number;
  /** `lost`: the record was not refreshed for longer than the takeover bound (the instance is gone). */
  role: 'starting' | 'standby' | 'active' | 'lost' | 'stopped';
  since: string;
  /** Health endpoint port, 0 when disabled. */
  port: number;
  lock_holder: string | null;
  last_renewal_seen: string | null;
  /** Now minus last_renewal_seen (server clock), null when none. */
  last_renewal_age_ms: number | null;
  updated_at: string;
  updated_age_ms: number;
}

export interface FailoverView {
  event_id: string;
  time: string;
  to_instance: string;
  to_host: string | null;
  from_instance: string | null;
  from_host: string | null;
  /** released: clean handover; stale: taken over from a holder that stopped renewing; lock_lost: the holder
   *  recorded losing the lock before this takeover; initial: the first acquisition (no previous holder). */
  cause: 'released' | 'stale' | 'lock_lost' | 'initial';
  /** The previous holder's last renewal to this acquisition (wall clocks of two hosts), null if unknown. */
  gap_ms: number | null;
  /** The same gap as the new holder timed it on its own clock, null if unknown. */
  observed_gap_ms: number | null;
  epoch: number | null;
}

export interface FailoverSettings {
  lock_stale_threshold: string; // T, Go duration text
  lock_stale_threshold_ms: number;
  lock_retry_interval: string; // R
  lock_retry_interval_ms: number;
  renewal_interval: string; // I = min(7s, T/4)
  renewal_interval_ms: number;
  takeover_bound: string; // T + 2R
  takeover_bound_ms: number;
  failover_recovery_window: string;
  failover_recovery_window_ms: number;
}

export interface SecurityView {
  auth: 'none' | 'basic' | 'token';
  /** True when the server listens beyond loopback without auth: the console shows a warning banner. */
  exposed_without_auth: boolean;
  listen: string;
}

export interface Overview {
  generated_at: string;
  instances: SchedulerInstanceView[];
  /** The id of the live active instance, null when there is none. */
  active_instance: string | null;
  settings: FailoverSettings;
  /** Newest first, at most 50. */
  failovers: FailoverView[];
  counts: {
    running: number;
    queued: number;
    held: number;
    workers: { healthy: number; late: number; lost: number };
  };
  security: SecurityView;
}

/** GET /api/v1/health */
export interface Health {
  status: 'ok';
  [key: string]: unknown;
}

/** GET /api/v1/session (never needs auth): how this server is protected and whether this browser is signed in.
 *  POST /api/v1/session body { token } (auth.token only): checks the token and sets the HttpOnly cookie
 *  `dagu_token`; 401 `unauthorized` when wrong. POST /api/v1/session/logout clears it. */
export interface SessionView {
  auth: 'none' | 'basic' | 'token';
  authenticated: boolean;
  exposed_without_auth: boolean;
  listen: string;
}
