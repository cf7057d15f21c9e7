// The collaborators every operation needs, built once per process from the compiled config. Run status
// writes go through the run-events decorator, so API writes emit `dag.run.*` like every other writer.

import path from 'node:path';
import { silentLogger, type Clock, type Logger } from '../core/ports';
import type { Config } from '../config/types';
import { storeDispatcher } from '../coordinator/dispatcher';
import type { ControlPlane, Wakeups } from '../store/controlPlane';
import type { EventFeed } from '../store/eventFeed';
import { fileControlPlane } from '../store/fileControlPlane';
import { withRunEvents } from '../store/runEvents';
import type { RunLogStore } from '../store/runLogStore';
import type { ArtifactStore } from '../store/artifactStore';
import type { SuspendFlags } from '../store/suspendFlags';
import type { EventLog, QueueStore, RunStore } from '../store/types';
import type { DispatcherApi } from '../core/dispatcherApi';
import type { CoordinatorRegistry, DispatchStore, WorkerRegistry } from '../store/dispatchTypes';
import type { DagDefinitions } from '../store/dagDefinitions';
import { MirroredDagDefinitions } from '../store/mirroredDagDefinitions';
import type { InstanceStore } from '../store/instanceRegistry';
import { ConsoleCache } from './consoleCache';
import type { ListenAddress } from './security';
import type { LaunchRelay } from '../runner/launchRelay';
import { spawnDetachedRun } from '../runner/spawnDetached';
import { mkdir } from '../store/fileCalls';
import { daguExecutable } from './startDag';

/** What an operation in server/api receives: config, stores, time and a logger. */
export interface Services {
  config: Config;
  /** Every status write appends a `dag.run.<state>` event. */
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
  /** The DAGs' YAML texts: what the console's editor reads and writes (readers use the DAGs directory). */
  dags: DagDefinitions;
  /** Run logs: each step's stdout and stderr, the run's own log (files under `paths.log_dir`, or chunks). */
  logs: RunLogStore;
  /** Run artifacts: each run's artifacts folder in the data directory, or the database's rows. */
  artifacts: ArtifactStore;
  /** Which DAGs have their schedule suspended (the flag files under `paths.suspend_flags_dir`). */
  suspendFlags: SuspendFlags;
  /** Hands runs of DAGs that go to workers to the dispatch store (or holds them), and cancels them. */
  dispatcher: DispatcherApi;
  /** Tasks waiting for, or claimed by, a worker. */
  tasks: DispatchStore;
  /** Workers as their last heartbeat left them. */
  workers: WorkerRegistry;
  /** Coordinators' liveness records: whether one is alive to hand runs to workers. */
  coordinators: Pick<CoordinatorRegistry, 'list'>;
  /** Scheduler instances as each last described itself. */
  instances: Pick<InstanceStore, 'list'>;
  /** A new reader of the event log from its start (live views, history, metrics). */
  eventFeed: () => EventFeed;
  /** Wake-ups from other hosts (PostgreSQL NOTIFY), or null (files: polling alone). */
  wakeups: Wakeups | null;
  /** Failover history and waiting runs' records, kept between the console's requests. */
  consoleCache: ConsoleCache;
  /** Where the web server listens (config.host/port unless the server says otherwise). */
  listen: ListenAddress;
  clock: Clock;
  /** The process environment runs this server starts inherit, and the one `log_dir` expansions read. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /**
   * Starts a detached `dagu <args>` process of this installation, its output appended to `log`; resolves
   * to its pid. The web server's goes through its launch relay (runner/launchRelay.ts), so that a stalled
   * data volume never freezes it; a one-shot command forks it itself.
   */
  startProcess: (args: string[], log: string) => Promise<number>;
}

export interface CreateServicesOptions {
  /** The process's clock and environment, from its composition root (server/cli). */
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** The web server's address, when it is not config.host/config.port (a port picked at start). */
  listen?: ListenAddress;
  /** The process's control plane (server/cli/openControlPlane.ts); by default the files of the data directory. */
  stores?: ControlPlane;
  /**
   * Starts the processes this one starts (a long-running service's; made before its storage is touched),
   * with `processEnv(config, env)` as their environment.
   */
  relay?: LaunchRelay | null;
}

/** The environment of a `dagu` process an API call starts: this one's, with the same DAGU_HOME. */
export function processEnv(config: Config, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // The run must see the same DAGU_HOME as this server, even when it came from a flag.
  return { ...env, DAGU_HOME: config.home };
}

export function createServices(
  config: Config,
  logger: Logger = silentLogger,
  opts: CreateServicesOptions,
): Services {
  const { clock } = opts;
  const cp = opts.stores ?? fileControlPlane(config, logger, clock);
  const runs = withRunEvents(cp.runs, cp.events, { logger });
  return {
    config,
    runs,
    queue: cp.queue,
    events: cp.events,
    logs: cp.logs,
    artifacts: cp.artifacts,
    // The editor's writes refresh this host's DAGs directory before they answer (on a database backend).
    dags: new MirroredDagDefinitions(cp.dags, { sync: () => cp.syncDags() }, logger),
    suspendFlags: cp.suspendFlags,
    dispatcher: storeDispatcher(config, { ...cp, runs }, logger, clock),
    tasks: cp.tasks,
    workers: cp.workers,
    coordinators: cp.coordinators,
    instances: cp.instances,
    eventFeed: cp.eventFeed,
    wakeups: cp.wakeups,
    consoleCache: new ConsoleCache(cp.eventFeed(), logger),
    listen: opts.listen ?? { host: config.host, port: config.port },
    clock,
    env: opts.env,
    logger,
    startProcess: processStarter(config, opts.env, opts.relay ?? null),
  };
}

/** `Services.startProcess`: through `relay` when there is one, else forked from this process. */
export function processStarter(
  config: Config,
  env: NodeJS.ProcessEnv,
  relay: LaunchRelay | null,
): Services['startProcess'] {
  return async (args, log) => {
    // Made with an async call: a synchronous one on a stalled volume would freeze the web server.
    await mkdir(path.dirname(log), true);
    const executable = daguExecutable(env);
    if (relay) return relay.launch([process.execPath, executable, ...args], log);
    return spawnDetachedRun({ executable, args, env: processEnv(config, env), logFile: log }).pid;
  };
}
