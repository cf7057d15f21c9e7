// The collaborators every operation needs, built once per process from the compiled config. Run status
// writes go through the run-events decorator, so API writes emit `dag.run.*` like every other writer.

import { silentLogger, type Clock, type Logger } from '../core/ports';
import type { Config } from '../config/types';
import { fileDispatcher } from '../coordinator/dispatcher';
import { createFileStores } from '../store/fileStores';
import { FileQueueStore } from '../store/fileQueueStore';
import { FileSuspendFlags } from '../store/fileSuspendFlags';
import type { SuspendFlags } from '../store/suspendFlags';
import { FileWorkerRegistry } from '../store/fileWorkerRegistry';
import type { EventLog, QueueStore, RunStore } from '../store/types';
import type { DispatcherApi } from '../core/dispatcherApi';
import type { CoordinatorRegistry, DispatchStore, WorkerRegistry } from '../store/dispatchTypes';
import { FileCoordinatorRegistry } from '../store/fileCoordinatorRegistry';
import { InstanceRegistry } from '../store/instanceRegistry';
import { ConsoleCache } from './consoleCache';
import { FileEventFeed } from './eventFeed';
import type { ListenAddress } from './security';

/** What an operation in server/api receives: config, stores, time and a logger. */
export interface Services {
  config: Config;
  /** Every status write appends a `dag.run.<state>` event. */
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
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
  instances: Pick<InstanceRegistry, 'list'>;
  /** Failover history and waiting runs' records, kept between the console's requests. */
  consoleCache: ConsoleCache;
  /** Where the web server listens (config.host/port unless the server says otherwise). */
  listen: ListenAddress;
  clock: Clock;
  /** The process environment runs this server starts inherit, and the one `log_dir` expansions read. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

export interface CreateServicesOptions {
  /** The process's clock and environment, from its composition root (server/cli). */
  clock: Clock;
  env: NodeJS.ProcessEnv;
  /** The web server's address, when it is not config.host/config.port (a port picked at start). */
  listen?: ListenAddress;
}

export function createServices(
  config: Config,
  logger: Logger = silentLogger,
  opts: CreateServicesOptions,
): Services {
  const { clock } = opts;
  const dataDir = config.paths.data_dir;
  const { events, runs, tasks, onCorrupt } = createFileStores(config, logger, clock);
  const workers = new FileWorkerRegistry({ dataDir, logger });
  return {
    config,
    runs,
    queue: new FileQueueStore({ dataDir, onCorrupt }),
    events,
    suspendFlags: new FileSuspendFlags(config.paths.suspend_flags_dir, onCorrupt),
    dispatcher: fileDispatcher(config, { runs, tasks, workers }, logger, clock),
    tasks,
    workers,
    coordinators: new FileCoordinatorRegistry({ dataDir, logger }),
    instances: new InstanceRegistry(dataDir, onCorrupt),
    consoleCache: new ConsoleCache(new FileEventFeed(dataDir), logger),
    listen: opts.listen ?? { host: config.host, port: config.port },
    clock,
    env: opts.env,
    logger,
  };
}
