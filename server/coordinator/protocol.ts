// The worker-facing coordinator API (HTTP + JSON, long polling): paths and bodies shared by the
// coordinator's server and the client that workers (and sub-DAG steps on workers) use.
// Every request carries `Authorization: Bearer <coordinator.token>` when a token is configured.

import type { Labels } from '../core/distributed';
import type { StepRetry } from '../core/retryPath';
import type { RunStatus } from '../core/types';
import type { DispatchTask } from '../store/dispatchTypes';
import type { StateEntry, StateRef, StateScope, StateUpdateSource } from '../store/stateStore';

export const COORDINATOR_PATHS = {
  /** GET, no token needed: `{status: 'healthy'}`. */
  health: '/health',
  /** POST HeartbeatRequest → HeartbeatResponse. The first heartbeat registers the worker. */
  heartbeat: '/api/v1/workers/heartbeat',
  /**
   * POST LeaveRequest → LeaveReply: a worker stopping cleanly. Its record is removed unless runs are still
   * its own; those are settled by the silent-worker detection and the record is pruned after the retention.
   */
  leave: '/api/v1/workers/leave',
  /** GET → { workers: WorkerView[] }. */
  workers: '/api/v1/workers',
  /** POST PollRequest → 200 { task } or 204 when the wait passed with nothing to do. */
  poll: '/api/v1/tasks/poll',
  /** POST AckRequest → AckResponse (409 when the claim is gone or not this worker's). */
  ack: (taskId: string) => `/api/v1/tasks/${encodeURIComponent(taskId)}/ack`,
  /** POST StatusReport → StatusReply. */
  status: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/status`,
  /**
   * POST LogChunk → LogReply; or POST LogBatch → LogBatchReply (several files in one request; a coordinator
   * older than batches answers it 400, and the worker sends one chunk a request again).
   */
  logs: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/logs`,
  /** GET → { status: RunStatus } or 404. */
  run: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}`,
  /** POST → { cancelled: boolean, status }. */
  cancel: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/cancel`,
  /** POST DispatchRequest → DispatchReply (a worker starting a sub-DAG). */
  dispatch: '/api/v1/dispatch',
  /** POST StateRequest → StateReply: a `state.*` step of the worker's run reaching the state store. */
  state: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/state`,
  /** POST ArtifactRequest → ArtifactReply: the worker's run copying its artifacts to the backend's store. */
  artifacts: (runId: string) => `/api/v1/runs/${encodeURIComponent(runId)}/artifacts`,
} as const;

/** Longest a poll may wait; the server answers 204 after `wait_ms` (capped to this). */
export const MAX_POLL_WAIT_MS = 30_000;

export interface HeartbeatRequest {
  worker_id: string;
  labels: Labels;
  max_active_runs: number;
  running: Array<{ run_id: string; attempt: number }>;
  host: string;
  pid: number;
}

export interface HeartbeatResponse {
  /** Runs the worker must stop: cancelled by an operator, or no longer the worker's. */
  cancel: string[];
}

export interface LeaveRequest {
  worker_id: string;
}

export interface LeaveReply {
  /** False when the record is kept (runs still the worker's) or there was none. */
  removed: boolean;
  /** Runs the coordinator still counts as the worker's (the reason a record is kept). */
  run_ids: string[];
}

export interface PollRequest {
  worker_id: string;
  labels: Labels;
  /** How long the server may hold the request open waiting for a task (≤ MAX_POLL_WAIT_MS). */
  wait_ms: number;
}

export interface PollResponse {
  task: DispatchTask;
}

export interface AckRequest {
  worker_id: string;
  token: string;
}

/** `accepted: false` with a reason: the worker must not run the task. */
export interface AckResponse {
  accepted: boolean;
  error?: string;
}

export interface StatusReport {
  worker_id: string;
  status: RunStatus;
  /**
   * With a run's final status: the rest of its logs (a piece of each file, as a LogBatch carries them),
   * written before the status, so that a run seen ended has all of its logs and a short run needs no
   * request of its own for them. A coordinator older than this field ignores it and answers without `logs`;
   * the worker then ships them as a LogBatch.
   */
  logs?: LogBatch['chunks'];
}

/** `accepted: false`: the run is not (or no longer) this worker's, or was cancelled; the worker stops it. */
export interface StatusReply {
  accepted: boolean;
  cancel: boolean;
  error?: string;
  /** With `accepted` and a report that carried `logs`: the answer to each of its pieces, in order. */
  logs?: LogReply[];
}

/** A piece of a step log; `offset` is where `data` starts in the file, so a resend is harmless. */
export interface LogChunk {
  worker_id: string;
  attempt: number;
  /** File name inside the attempt's log directory, e.g. `extract.out.log` (no slashes). */
  file: string;
  offset: number;
  /** UTF-8 text or base64, as `encoding` says. */
  data: string;
  encoding: 'utf8' | 'base64';
}

export interface LogReply {
  accepted: boolean;
  /** Bytes the coordinator holds of that file: the worker resends from here if it differs. */
  next_offset: number;
}

/** A piece of each of several step logs of one attempt: a run's end ships them all in one request. */
export interface LogBatch {
  worker_id: string;
  attempt: number;
  chunks: Array<Pick<LogChunk, 'file' | 'offset' | 'data' | 'encoding'>>;
}

/** The answer to each chunk of a LogBatch, in its order. */
export interface LogBatchReply {
  replies: LogReply[];
}

/** A sub-DAG a step on a worker starts: the coordinator loads `dag_name` from its catalogue. */
export interface DispatchRequest {
  dag_name: string;
  run_id: string;
  params: string[];
  /** Overrides the called DAG's own selector when set (a `call:` step's `worker_selector`). */
  worker_selector: Labels | null;
  parent: { run_id: string; dag_name: string; step: string } | null;
  /**
   * `run_id` exists and attempt `attempt` of it ended: a new attempt retries `step` (and the path below it)
   * in place (a `retry --sub-run-id` path through a run on a worker). When the run is past that attempt, the
   * reply is `exists` (a resent request): the caller follows the attempt under way.
   */
  retry?: StepRetry & { attempt: number };
}

export type DispatchOutcome = 'dispatched' | 'held' | 'refused' | 'exists';

export interface DispatchReply {
  outcome: DispatchOutcome;
  run_id: string;
  /** For `refused`: why (the same text the CLI prints). */
  error?: string;
  status?: RunStatus;
}

export interface WorkerView {
  worker_id: string;
  labels: Labels;
  max_active_runs: number;
  running: Array<{ run_id: string; attempt: number }>;
  host: string;
  health: 'healthy' | 'unhealthy';
  registered_at: string;
  last_heartbeat_at: string;
}

/** One state store operation of a run's attempt on the worker that holds it. */
export type StateRequest = { worker_id: string; attempt: number } & (
  | { op: 'get'; ref: StateRef }
  | {
      op: 'put';
      ref: StateRef;
      /** Normalized JSON text, as StateStore.put takes it. */
      value: string;
      expected_version?: number;
      create_only?: boolean;
      updated_by?: StateUpdateSource | null;
    }
  | { op: 'delete'; ref: StateRef }
  | { op: 'list'; scope: StateScope; namespace: string; key_prefix: string; limit: number }
);

/**
 * The operation's answer, or why the store refused it (200 either way: the run goes on and its step fails
 * with the store's own message). A run that is not the worker's is refused with 409 `not_your_run`.
 */
export type StateReply =
  | { entry: StateEntry | null }
  | { deleted: boolean }
  | { entries: StateEntry[] }
  | { conflict: { ref: StateRef; expected: number | 'absent'; actual: number | null } }
  | { invalid: string };

/** One artifact store operation of a run's attempt on the worker that holds it; `data` is base64. */
export type ArtifactRequest = { worker_id: string; attempt: number } & (
  { op: 'list' } | { op: 'read'; path: string } | { op: 'put'; path: string; data: string }
);

/** The operation's answer, or why the store refused it (an artifact over the size cap, a path it refuses). */
export type ArtifactReply =
  | { entries: Array<{ path: string; size: number }> }
  | { data: string | null }
  | { stored: true }
  | { too_large: string }
  | { invalid: string };

/** Error body of every non-2xx reply. */
export type { ErrorBody } from '../core/httpError';
