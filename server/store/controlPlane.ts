// Every durable store of the control plane, as one bundle chosen by `storage.backend`: files under the data
// directory (the embedded default, shared storage between hosts) or a PostgreSQL database. Each process's
// composition root (server/cli) opens one and hands its parts to the services; nothing below server/cli
// chooses a backend. The active scheduler asks for its own view (`forScheduler`): the lock, the tick state
// and, on a database, run and queue stores whose every write is fenced by the lock.

import type { LockStorage } from '../core/lease/types';
import type { DagDefinitions } from './dagDefinitions';
import type { CancelRequests, CoordinatorRegistry, DispatchStore, WorkerRegistry } from './dispatchTypes';
import type { EventFeed } from './eventFeed';
import type { CorruptFileReport } from './fsutil';
import type { InstanceStore } from './instanceRegistry';
import type { RunLogStore } from './runLogStore';
import type { StateStore } from './stateStore';
import type { ArtifactStore } from './artifactStore';
import type { SuspendFlags } from './suspendFlags';
import type { EventLog, QueueStore, RunStore } from './types';

export type StorageBackend = 'file' | 'postgres';

/** The lock an active scheduler holds: what a fenced write checks against the lock record. */
export interface LeaseHold {
  holder: string;
  epoch: number;
}

/** A store of one JSON document: null before the first write. */
export interface JsonCell {
  read(): Promise<unknown>;
  write(value: unknown): Promise<void>;
}

/**
 * What a wake-up is about: a queue item stored, a dispatch task stored, an event appended, a DAG written, a
 * run's state changed (its hint: the run's ID).
 */
export type WakeupTopic = 'queue' | 'dispatch' | 'events' | 'dags' | 'runs';

/**
 * Hints from other hosts that something was written (PostgreSQL LISTEN/NOTIFY). A hint may be lost (while
 * disconnected, all subscribers are called once on reconnection), so a subscriber only looks sooner than its
 * polling would: polling stays the truth.
 */
export interface Wakeups {
  /**
   * Calls `fn` on every hint of `topic`, with what the hint names (`runs`: the run ID, then its attempt and
   * the state that attempt entered, space-separated: read with parseRunHint), or null when it names nothing
   * or when hints may have been lost (after a reconnection: look at everything). Returns the unsubscribe.
   */
  subscribe(topic: WakeupTopic, fn: (about: string | null) => void): () => void;
}

/** A change the queue consumer may look at sooner: a run's active marker came or went, a queue item was stored. */
export type SlotChange = { kind: 'run'; runId: string | null } | { kind: 'queue' };

/**
 * Changes of the active runs and the queues as this host sees them (files: the kernel's notifications),
 * where nothing announces them otherwise. Only while `live()` are they reported at all, and even then only
 * those made on this host: polling stays the truth.
 */
export interface SlotWakeups {
  live(): boolean;
  /** Starts watching at the first subscriber; the last unsubscribe stops it. */
  subscribe(fn: (change: SlotChange) => void): () => void;
}

/** What only a scheduler uses. */
export interface SchedulerStores {
  lock: LockStorage;
  /** The run store the scheduler writes through (fenced on a database). Plain: no run events. */
  runs: RunStore;
  /** The queue the scheduler hands runs over from (fenced on a database). */
  queue: QueueStore;
  /** Where the tick state is kept; null: the state file under the data directory. */
  tickState: JsonCell | null;
  /** Names this installation's slots in their run IDs: the same for every scheduler of the installation. */
  slotNamespace: string;
  /** Where nothing announces runs' ends and queue items (`wakeups` null): this host's view of them; else null. */
  slotWakeups: SlotWakeups | null;
}

export interface ControlPlane {
  readonly backend: StorageBackend;
  /** Where it is, for messages: the data directory, or the database URL without its password. */
  readonly where: string;
  /** Plain: callers add the run-events decorator (withRunEvents) where their writes must emit events. */
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
  /** A new reader of the event log, from its start. */
  eventFeed(): EventFeed;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  coordinators: CoordinatorRegistry;
  suspendFlags: SuspendFlags;
  /** Dagu's state store (the state.* actions): files under `<data_dir>/state`, or the database's table. */
  state: StateStore;
  /**
   * Run artifacts (DAG_RUN_ARTIFACTS_DIR) as the API serves them: each run's folder in the data directory,
   * or the database's rows, which a run process fills with `artifactShipping`.
   */
  artifacts: ArtifactStore;
  /** Where a run process copies its artifacts after each step (the database), or null: the files are it. */
  artifactShipping: ArtifactStore | null;
  instances: InstanceStore;
  /** Wake-ups across hosts, or null where there are none (files: polling alone). */
  wakeups: Wakeups | null;
  /** Run logs as the console reads them: the runner's files under `paths.log_dir`, or database chunks. */
  logs: RunLogStore;
  /**
   * Where a run process copies its log files while it writes them (the database), or null when the files
   * it writes under `paths.log_dir` are the store already.
   */
  logShipping: RunLogStore | null;
  /**
   * The DAG definitions: the files of the DAGs directory, or the database's table. On a database the
   * process reads DAGs from its DAGs directory, a local mirror of the table (dagMirror.ts): a writer calls
   * `syncDags` after writing, and a long-running process `followDags` once at start.
   */
  dags: DagDefinitions;
  /** Brings this host's DAGs directory in step with `dags` now; nothing on files (the directory is the truth). */
  syncDags(): Promise<void>;
  /**
   * Keeps this host's DAGs directory in step from now on: the first pass awaited (it throws when the
   * definitions cannot be copied), then polls and wake-ups until `close()`. Nothing on files; idempotent.
   */
  followDags(): Promise<void>;
  /** Logs a stored record a read skipped because it is corrupt. */
  onCorrupt: (report: CorruptFileReport) => void;
  /** A scheduler's stores; `holding` answers the lock it holds now, or null while it may not write. */
  forScheduler(holding: () => LeaseHold | null): SchedulerStores;
  /** Closes connections (nothing to do for files). */
  close(): Promise<void>;
}
