// Interfaces of the stores under DAGU_HOME/data. File-backed implementations live beside them;
// in-memory fakes pass the same contract suites. Expected outcomes are return values, not exceptions.

import type { RunState, RunStatus, TriggerType } from '../core/types';

/** What the run list shows of a run without reading more than its latest status. */
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
  /** The run's labels (RunStatus.labels); absent when it has none, or its record is corrupt. */
  labels?: string[];
}

export interface RunListQuery {
  dag?: string;
  status?: RunState;
  /** Only runs started this way (the latest attempt's trigger). */
  trigger?: TriggerType;
  /** Only runs created at or after this time (wall-clock ms). */
  createdFromMs?: number;
  /** Only runs created at or before this time (wall-clock ms). */
  createdToMs?: number;
  /** Max items (default 50, at most 500). */
  limit?: number;
  /** Opaque cursor from a previous page's `next_cursor`. */
  cursor?: string;
}

export interface RunListPage {
  items: RunSummary[];
  next_cursor: string | null;
}

/**
 * The outcome of reading a run's latest status. A corrupt file is reported, never thrown. `incomplete`: the
 * run (or its latest attempt) has no status file at all, long after it was made: its creator stopped midway.
 */
export type ReadStatusResult =
  | { kind: 'ok'; status: RunStatus }
  | { kind: 'missing' }
  | { kind: 'corrupt'; error: string; path: string; incomplete?: boolean };

/** What claimQueued answers. */
export type ClaimQueuedResult = { kind: 'ok'; status: RunStatus; claimed: boolean } | { kind: 'missing' };

/**
 * What a run process leaves behind when its final status could not be written: the state the run reached and
 * the error code of the write (`ENOSPC`, `EIO`, ...), so that the dead-run check can say why the run fails.
 */
export interface UnwrittenFinalStatus {
  state: RunState;
  error_code: string;
}

export type CreateRunResult = { created: true } | { created: false; reason: 'exists' };

/**
 * The outcome of deleting a run from the history. Only an ended run is deleted: `live` means it is queued or
 * running (or still marked active), `unreadable` that its status cannot be read, so nothing is known of it.
 */
export type DeleteRunResult =
  { deleted: true } | { deleted: false; reason: 'missing' | 'live' | 'unreadable' };

/** A run of the history as the run list indexes it: enough to apply a retention policy. */
export interface HistoryEntry {
  run_id: string;
  /** Creation time, wall-clock ms. */
  created_ms: number;
}

/**
 * Durable run records. A run directory is created exclusively (the at-most-once guarantee);
 * every status write replaces the attempt's status file atomically.
 */
/** What a status write may carry besides the status. */
/** An event a store appends in the same write as its record (see eventsInStatusWrites, eventsInEnqueue). */
export interface InlineEvent {
  type: string;
  data: Record<string, unknown>;
}

export interface WriteStatusOptions {
  /** Also record this (clock ms) as the attempt's heartbeat. */
  heartbeatMs?: number;
  /**
   * Also append this event to the store's `eventsInStatusWrites` log, in the same write and only if the
   * status is written. Only for a store that has that log.
   */
  event?: InlineEvent;
}

export interface RunStore {
  /**
   * Creates the run and its first attempt with `initial` (attempt 1), marked active if it is queued or
   * running. Fails with `exists` if the ID is taken. A write that fails throws RunCreateError after what was
   * written is removed again (best effort): the run was not created, and nothing of it is listed or active.
   * `opts.event` (only for a store with `eventsInStatusWrites`) is appended by the same write, only if the
   * run was created.
   */
  createRun(initial: RunStatus, opts?: Pick<WriteStatusOptions, 'event'>): Promise<CreateRunResult>;
  /**
   * Finishes creating a run whose directory exists without a status (its creator died between the two):
   * writes `initial` as attempt 1 (marked active as createRun does) unless a status appeared meanwhile. False
   * when there was nothing to do.
   */
  completeRun(initial: RunStatus): Promise<boolean>;
  /**
   * Removes run directories whose creator died after claiming the run ID and before listing the run, which
   * nothing would ever show: only those empty and unchanged for `olderThanMs` whose ID `mayRemove`
   * accepts. Returns the IDs removed. Absent where creating a run is one transaction (nothing is left
   * half-made).
   */
  removeAbandonedCreations?(olderThanMs: number, mayRemove: (runId: string) => boolean): Promise<string[]>;
  /**
   * Writes the run's entries in the run list again; idempotent. For a run found by its ID whose creator may
   * have died after writing its status and before listing it (the list would never show it otherwise).
   */
  ensureIndexed(status: RunStatus): Promise<void>;
  /**
   * Starts attempt `status.attempt` (must be latest+1) of an existing run, marked active as createRun does; a
   * write that fails throws RunCreateError once the new attempt is removed again (best effort).
   */
  createAttempt(status: RunStatus): Promise<void>;
  /**
   * Atomically replaces the status of the attempt `status.attempt`. `replaces`: the stored status the caller
   * read just before and decided on, given so that a decorator (run events) need not read it again; stores
   * ignore it. `opts.heartbeatMs`: the attempt's heartbeat (writeHeartbeat) is written too, in the same
   * write where the store can, after the status otherwise.
   */
  writeStatus(status: RunStatus, replaces?: RunStatus, opts?: WriteStatusOptions): Promise<void>;
  /**
   * Whether writing an ended status (not queued or running) of a run's latest attempt removes the run's
   * active mark in the same atomic write. Then a writer of an end has no unmarkActive left to make.
   */
  readonly unmarksEnded: boolean;
  /**
   * Whether that write also removes the run's cancel request (CancelRequests of the same backend), so that
   * a writer of an end has no clear left to make.
   */
  readonly clearsCancelsOnEnd: boolean;
  /**
   * Notes that the attempt's final status could not be written. Written so that it needs no free space on a
   * full disk (where it can), and read by the dead-run check, which marks the run failed with the reason.
   */
  recordUnwrittenFinalStatus(runId: string, attempt: number, note: UnwrittenFinalStatus): Promise<void>;
  /** The note recordUnwrittenFinalStatus left for the attempt, or null. */
  readUnwrittenFinalStatus(runId: string, attempt: number): Promise<UnwrittenFinalStatus | null>;
  /** Latest attempt's status. */
  readStatus(runId: string): Promise<ReadStatusResult>;
  /**
   * readStatus and readClaim of the latest attempt in one read, where the store reads both at the cost of
   * one (a row on PostgreSQL): what the dead-run check asks of every queued run at each sweep.
   */
  readStatusAndClaim?(runId: string): Promise<{ read: ReadStatusResult; claim: string | null }>;
  /**
   * readStatus, and whether a cancel request waits for the run, in one read where the store keeps both (a
   * statement on PostgreSQL): what the coordinator asks before it takes a worker's ack or status report.
   */
  readStatusAndCancel?(runId: string): Promise<{ read: ReadStatusResult; cancelRequested: boolean }>;
  /**
   * readStatusAndClaim of many runs in one read (a statement on PostgreSQL), each run in the answer (an
   * unknown one as missing): the dead-run check's sweep over a backlog of queued runs then costs a read per
   * batch rather than per run.
   */
  readStatusesAndClaims?(
    runIds: readonly string[],
  ): Promise<Map<string, { read: ReadStatusResult; claim: string | null }>>;
  /** Newest first, across all DAGs or one; reads status only for the page it returns. */
  listRuns(query: RunListQuery): Promise<RunListPage>;
  /** Runs currently marked active (queued or running), without scanning history. */
  listActive(): Promise<Array<{ run_id: string; dag_name: string; queue: string }>>;
  /** Marks/unmarks a run as active; the runner and the queue call these on state changes. */
  markActive(run: { run_id: string; dag_name: string; queue: string }): Promise<void>;
  unmarkActive(runId: string): Promise<void>;
  /**
   * Claims an attempt for the one process that will execute it (exclusive create): of several processes
   * told to start the same queued run, exactly one gets true.
   */
  claimAttempt(runId: string, attempt: number, owner: string): Promise<boolean>;
  /**
   * readStatus and claimAttempt of its latest attempt in one step, where the store can make them one: the
   * run's latest status (`missing`: no such run) and whether `owner` now holds the claim, which it takes only
   * while that attempt is `queued` and nobody claimed it. Of several concurrent claimants, at most one gets
   * `claimed: true`, as with claimAttempt.
   */
  claimQueued?(runId: string, owner: string): Promise<ClaimQueuedResult>;
  /** Whether a process has claimed the attempt (claimAttempt returned true to someone). */
  isClaimed(runId: string, attempt: number): Promise<boolean>;
  /** Who claimed the attempt (the `owner` given to claimAttempt), or null when nobody did. */
  readClaim(runId: string, attempt: number): Promise<string | null>;
  /**
   * Whether a claim can be released (releaseClaim) atomically against the claimant's start
   * (beginClaimedAttempt). Then a run process runs nothing until its start is recorded, and a claim whose
   * claimant never began is given back rather than failed. Files cannot make the two exclusive.
   */
  readonly releasesClaims: boolean;
  /**
   * Writes the first `running` status of an attempt `owner` claimed, only while the claim is still `owner`'s;
   * false, with nothing written, when it was released meanwhile. Where claims are never released, the same
   * as writeStatus (and true).
   */
  beginClaimedAttempt(status: RunStatus, owner: string, opts?: WriteStatusOptions): Promise<boolean>;
  /**
   * The event log that createRun, writeStatus and beginClaimedAttempt can append an event to in the same write
   * (WriteStatusOptions.event): one round trip where two would be, on PostgreSQL. Absent: none.
   */
  readonly eventsInStatusWrites?: EventLog;
  /**
   * Gives back `owner`'s claim of an attempt that is still `queued` (its claimant never began it), so that
   * another process may claim it; true when released. Of this and the claimant's beginClaimedAttempt,
   * exactly one takes effect. Always false where releasesClaims is false.
   */
  releaseClaim(runId: string, attempt: number, owner: string): Promise<boolean>;
  /** Writes the run process's heartbeat (wall-clock ms) for the attempt. */
  writeHeartbeat(runId: string, attempt: number, nowMs: number): Promise<void>;
  /**
   * writeHeartbeat of several attempts in one write (a statement on PostgreSQL): what a coordinator writes
   * for the runs a worker heartbeats about. An attempt that is not there (any more) is passed over.
   */
  writeHeartbeats?(
    attempts: ReadonlyArray<{ run_id: string; attempt: number }>,
    nowMs: number,
  ): Promise<void>;
  /** Last heartbeat time in wall-clock ms, or null if none was written. */
  readHeartbeat(runId: string, attempt: number): Promise<number | null>;
  /** Directory of the attempt's step logs, absolute. */
  logDir(dagName: string, runId: string, attempt: number): string;
  /**
   * The DAG's runs, newest first, from the run list (no status is read): what history retention goes by.
   */
  history(dagName: string): Promise<HistoryEntry[]>;
  /**
   * Removes an ended run for good: its record, its list entries, its logs and its work directory. A crash
   * midway leaves nothing listed that cannot be read; the rest is finished by `purgeDeleted`.
   */
  deleteRun(runId: string): Promise<DeleteRunResult>;
  /** Finishes deletions that a crash interrupted; returns how many it finished. */
  purgeDeleted(): Promise<number>;
}

/** One queued run: a pointer to the run record, which holds the truth (`status: queued`). */
export interface QueueItem {
  queue: string;
  run_id: string;
  dag_name: string;
  enqueued_at: string;
  /** Opaque identity of the item file, used to dequeue exactly this item. */
  item_id: string;
}

export interface QueueStore {
  enqueue(item: Omit<QueueItem, 'item_id'>): Promise<QueueItem>;
  /** Items of one queue, oldest first. */
  list(queue: string): Promise<QueueItem[]>;
  /** Names of queues that have at least one item. */
  queues(): Promise<string[]>;
  /**
   * Every non-empty queue with its items (oldest first), by queue name in the order of queues(): what
   * queues() and list() of each give, in one read where the store can make it one.
   */
  listAll(): Promise<Map<string, QueueItem[]>>;
  /** Removes the item of `runId` from its queue; false if there was none. */
  dequeue(queue: string, runId: string): Promise<boolean>;
  /** Finds the queue item of a run across queues. */
  find(runId: string): Promise<QueueItem | null>;
}

/** An entry of the event log (issue 4 extends the types). */
export interface EventRecord {
  id: string;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

/** How an append may be written. */
export interface AppendOptions {
  /**
   * False: the event may be lost if the host loses power right after (it is not flushed to the disk before
   * `append` resolves); a process that crashes loses nothing. For events whose loss is harmless, such as a run
   * entering `running` (its status file is the record, and its end is announced durably). Default true.
   */
  durable?: boolean;
}

export interface EventLog {
  append(type: string, data: Record<string, unknown>, opts?: AppendOptions): Promise<EventRecord>;
  /** Events after `afterId` (exclusive), oldest first, optionally of some types. */
  list(query: { afterId?: string; types?: string[]; limit?: number }): Promise<EventRecord[]>;
}
