// Interfaces of the distributed stores under DAGU_HOME/data/cluster: the dispatch store (tasks waiting
// for, or claimed by, a worker), worker presence, and cancel requests for runs on workers. File-backed
// implementations and in-memory fakes pass the same contract suites.

import type { CoordinatorBeat } from '../core/coordinatorPresence';
import type { Labels } from '../core/distributed';
import type { TaskOperation } from '../core/dispatcherApi';
import type { StepRetry } from '../core/retryPath';
import type { DagSpec, RunStatus, TriggerType } from '../core/types';
import type { EventLog, InlineEvent } from './types';

/** A run handed to the workers. The run record (status `queued`) exists before the task does. */
export interface DispatchTask {
  version: 1;
  /** `<enqueued ms, 13 digits>-<run_id>-<attempt>`: name order is FIFO order. */
  task_id: string;
  run_id: string;
  dag_name: string;
  attempt: number;
  operation: TaskOperation;
  trigger_type: TriggerType;
  /** Exact-match AND over worker labels; `{}` matches any worker. */
  worker_selector: Labels;
  /** The parsed DAG the worker runs (its `file` is only informative on the worker). */
  dag: DagSpec;
  params: string[];
  schedule_time: string | null;
  /** For `retry`/`resume`: the status of the attempt being retried. */
  previous: RunStatus | null;
  /** For a sub-DAG run: the run and step that called it. */
  parent: { run_id: string; dag_name: string; step: string } | null;
  /** For `retry`: the one step retried in place (absent or null: what did not succeed runs again). */
  step_retry?: StepRetry | null;
  enqueued_at_ms: number;
  /** Set on a held task: claimable until then; afterwards listed but not claimable until deleted. */
  hold_until_ms: number | null;
  /** The wait that was granted, for the error text when it runs out. */
  wait_ms: number | null;
  /** Set when a worker claims the task (the task then lives under claims/). */
  claim: { worker_id: string; token: string; claimed_at_ms: number } | null;
}

/** The part of a pending task that listings and metrics need. */
export type PendingSummary = Pick<
  DispatchTask,
  'task_id' | 'run_id' | 'worker_selector' | 'hold_until_ms' | 'enqueued_at_ms'
>;

export type NewDispatchTask = Omit<DispatchTask, 'version' | 'task_id' | 'claim'>;

export type AckResult =
  { ok: true; task: DispatchTask } | { ok: false; reason: 'not_found' | 'wrong_worker' };

/**
 * Tasks for workers. A claim is one atomic step in storage (of several coordinators or pollers, exactly one
 * gets a task); a claim not acknowledged within the reservation TTL goes back to pending.
 */
export interface DispatchStore {
  /** False for a store that does not survive a restart: such a coordinator refuses instead of holding. */
  readonly durable: boolean;
  /**
   * Stores a new task. `opts.event` (only for a store with `eventsInEnqueue`) is appended to that log by the
   * same write.
   */
  enqueue(task: NewDispatchTask, opts?: { event?: InlineEvent }): Promise<DispatchTask>;
  /**
   * The event log that enqueue can append an event to in the same write: one round trip where two would
   * be, on PostgreSQL. Absent: none.
   */
  readonly eventsInEnqueue?: EventLog;
  /**
   * Claims the oldest pending task whose selector the labels match and that is claimable at `nowMs` (not a
   * held task past its `hold_until_ms`). Null when there is none.
   */
  claimNext(worker: { worker_id: string; labels: Labels }, nowMs: number): Promise<DispatchTask | null>;
  /** Turns a claim into the worker's: the claim is removed; the caller records the run as the worker's. */
  ack(taskId: string, workerId: string, token: string): Promise<AckResult>;
  /**
   * Pending tasks, oldest first, including held tasks whose wait has passed; with `where`, only those whose
   * summary passes (the file store decides from its index, without reading the other tasks).
   */
  listPending(where?: (t: PendingSummary) => boolean): Promise<DispatchTask[]>;
  /** What the store's index knows of every pending task, oldest first, without reading the tasks. */
  pendingSummaries(): Promise<PendingSummary[]>;
  listClaims(): Promise<DispatchTask[]>;
  /** The pending or claimed task of a run, if any. */
  findByRun(runId: string): Promise<DispatchTask | null>;
  /** Deletes a pending task; false when there was none. Claims are left alone. */
  delete(taskId: string): Promise<boolean>;
  /**
   * Takes a held task whose wait has passed (`hold_until_ms <= nowMs`) out of pending as a claim of `taker`,
   * for the one process that ends its run: the same atomic step as a worker's claim, so of several
   * coordinators, the active scheduler, a cancel and a worker exactly one gets the task. Null when it is not
   * pending, not held, or its wait has not passed. The taker ends the run and then removes the claim with
   * `ack`; one that cannot write the run gives the claim back with `release`; one that dies before leaves a
   * claim `recycle` gives back after the TTL, to be taken again.
   */
  takeExpiredHold(taskId: string, taker: string, nowMs: number): Promise<DispatchTask | null>;
  /**
   * Gives the claim `claimant` holds with `token` back to pending at once, as the task was before it was
   * claimed (its place in line and its hold unchanged), for a claimant that cannot go on with it: a taker of
   * an expired hold whose run's failure could not be written, which would otherwise leave the task claimed
   * until `recycle` gives it back a TTL later. False when that claim is no longer there (acknowledged, given
   * back, or another's). On the file store it needs no free space (a rename).
   */
  release(taskId: string, claimant: string, token: string): Promise<boolean>;
  /**
   * Housekeeping at `nowMs`: claims older than `ttlMs` go back to pending (`returned`); pending tasks without
   * a hold that nobody claimed within `ttlMs` are removed and given back (`expired`) so the caller fails their
   * runs rather than lose them; `keep` spares such a task (the caller knows a healthy worker that matches it
   * is only busy). Held tasks are never touched here.
   */
  recycle(
    nowMs: number,
    ttlMs: number,
    keep?: (task: DispatchTask) => boolean,
  ): Promise<{ returned: DispatchTask[]; expired: DispatchTask[] }>;
  /** Drops any in-memory index and rebuilds it from storage (the files are the truth). */
  rebuildIndex(): Promise<void>;
}

/** A worker's last heartbeat as stored. */
export interface WorkerRecord {
  worker_id: string;
  labels: Labels;
  max_active_runs: number;
  /** Runs the worker reported executing in that heartbeat. */
  running: Array<{ run_id: string; attempt: number }>;
  host: string;
  pid: number;
  /** When the worker first registered (wall-clock ms of the coordinator). */
  registered_at_ms: number;
  /** Wall-clock ms of the coordinator when the heartbeat arrived. */
  last_heartbeat_ms: number;
}

export interface WorkerRegistry {
  /** Creates or replaces the worker's record. */
  put(record: WorkerRecord): Promise<void>;
  get(workerId: string): Promise<WorkerRecord | null>;
  list(): Promise<WorkerRecord[]>;
  remove(workerId: string): Promise<void>;
}

/** Cancel requests for runs that a worker executes (the coordinator passes them on in heartbeat replies). */
export interface CancelRequests {
  request(runId: string, nowMs: number): Promise<void>;
  has(runId: string): Promise<boolean>;
  list(): Promise<string[]>;
  clear(runId: string): Promise<void>;
}

/**
 * A coordinator's liveness record (data/cluster/coordinators/<coordinator_id>.json), refreshed while it
 * runs: dispatchers refuse, and the active scheduler fails expired holds itself, while no record is fresh.
 */
export interface CoordinatorRecord extends CoordinatorBeat {
  version: 1;
  host: string;
  pid: number;
  /** Where it serves workers. */
  url: string;
  started_at_ms: number;
}

export interface CoordinatorRegistry {
  /** Creates or replaces the coordinator's record. */
  put(record: CoordinatorRecord): Promise<void>;
  /** Every readable record (corrupt ones are reported and skipped), by ID. */
  list(): Promise<CoordinatorRecord[]>;
}
