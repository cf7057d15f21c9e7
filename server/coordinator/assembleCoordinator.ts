// Wires the parts of one coordinator over a set of stores: the dispatcher, the detector, the worker reports,
// the long poll and the HTTP server, sharing one per-run lock. CoordinatorService builds the file stores for
// it; tests pass in-memory ones.

import type { Clock, Logger, Timers } from '../core/ports';
import type { LoadDagResult } from '../store/dagCatalog';
import type { CancelRequests, DispatchStore, WorkerRegistry } from '../store/dispatchTypes';
import type { RunLogStore } from '../store/runLogStore';
import type { ArtifactStore } from '../store/artifactStore';
import type { StateStore } from '../store/stateStore';
import type { RunStore } from '../store/types';
import { CoordinatorServer } from './coordinatorServer';
import { CoordinatorDetector } from './detector';
import { Dispatcher } from './dispatcher';
import { LogChunks } from './logChunks';
import { RunLocks } from './runLocks';
import { TaskPoller } from './taskPoller';
import { WorkerReports } from './workerReports';
import { WorkerSightings } from './workerSightings';
import { WorkerArtifacts } from './workerArtifacts';
import { WorkerState } from './workerState';

/** The stores a coordinator works on (shared with the scheduler, the CLI and the web server). */
export interface CoordinatorStores {
  runs: RunStore;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  /** Where the logs workers ship go (the run log store of the backend). */
  logs: Pick<RunLogStore, 'append'>;
  /** The state store of the backend, for `state.*` steps of runs on workers; absent: they are refused. */
  state?: StateStore;
  /** The artifact store of the backend, for the artifacts of runs on workers; absent: they are refused. */
  artifacts?: ArtifactStore;
}

/** The coordinator's settings, from `config.coordinator` and `paths.log_dir`. */
export interface CoordinatorSettings {
  host: string;
  port: number;
  token: string | null;
  tls: { cert_file: string | null; key_file: string | null };
  waitMs: number;
  staleMs: number;
  detectionIntervalMs: number;
  reservationTtlMs: number;
  /** `coordinator.worker_retention`; 0 or unset keeps the records of silent workers for ever. */
  workerRetentionMs?: number;
  /** `paths.log_dir`. */
  logsRoot: string;
  /** How often a waiting poll looks at the store (default POLL_TICK_MS). */
  pollTickMs?: number;
}

export interface AssembleCoordinatorDeps {
  stores: CoordinatorStores;
  settings: CoordinatorSettings;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** Loads a DAG of the catalogue by name, for sub-DAG dispatches from workers. */
  loadDag: (name: string) => Promise<LoadDagResult>;
}

export interface CoordinatorParts {
  dispatcher: Dispatcher;
  detector: CoordinatorDetector;
  reports: WorkerReports;
  poller: TaskPoller;
  server: CoordinatorServer;
}

export function assembleCoordinator(d: AssembleCoordinatorDeps): CoordinatorParts {
  const { runs, tasks, workers, cancels } = d.stores;
  const s = d.settings;
  const locks = new RunLocks();
  const sightings = new WorkerSightings();
  const poller = new TaskPoller({ tasks, clock: d.clock, timers: d.timers, tickMs: s.pollTickMs });
  const dispatcher = new Dispatcher({
    runs,
    tasks,
    workers,
    cancels,
    clock: d.clock,
    logger: d.logger,
    waitMs: s.waitMs,
    staleMs: s.staleMs,
    onEnqueued: () => poller.notify(),
    locks,
  });
  const detector = new CoordinatorDetector({
    runs,
    tasks,
    workers,
    cancels,
    clock: d.clock,
    timers: d.timers,
    logger: d.logger,
    intervalMs: s.detectionIntervalMs,
    staleMs: s.staleMs,
    reservationTtlMs: s.reservationTtlMs,
    workerRetentionMs: s.workerRetentionMs ?? 0,
    locks,
    sightings,
  });
  const logs = new LogChunks({ runs, logs: d.stores.logs });
  const reports = new WorkerReports({
    runs,
    tasks,
    workers,
    cancels,
    clock: d.clock,
    logger: d.logger,
    logsRoot: s.logsRoot,
    locks,
    sightings,
    logs,
  });
  const server = new CoordinatorServer({
    host: s.host,
    port: s.port,
    token: s.token,
    tls: s.tls,
    dispatcher,
    reports,
    logs,
    state: d.stores.state ? new WorkerState({ runs, state: d.stores.state }) : null,
    artifacts: d.stores.artifacts ? new WorkerArtifacts({ runs, artifacts: d.stores.artifacts }) : null,
    poller,
    runs,
    workers,
    loadDag: d.loadDag,
    clock: d.clock,
    logger: d.logger,
    staleMs: s.staleMs,
  });
  return { dispatcher, detector, reports, poller, server };
}
