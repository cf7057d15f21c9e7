// The composition root of a scheduler process (`dagu scheduler`, and the scheduler inside `dagu start-all`):
// the real clock and timers, the file stores under the data directory, the run launcher, the dispatcher and
// the hold expiry for DAGs that run on workers. Nothing below server/cli builds these for the scheduler.

import { hostname } from 'node:os';
import path from 'node:path';
import { createServices, type Services } from '../api/services';
import { requestStop } from '../api/stopRun';
import type { Config } from '../config/types';
import { Dispatcher } from '../coordinator/dispatcher';
import { systemClock, systemTimers } from '../core/clock';
import type { Clock, Logger } from '../core/ports';
import { HoldExpiry } from '../scheduler/holdExpiry';
import { processLauncher } from '../scheduler/launcher';
import type { SchedulerDistributedFactory } from '../scheduler/scheduler';
import { SchedulerService } from '../scheduler/schedulerService';
import { isLocalProcessAlive } from '../scheduler/zombieReaper';
import { FileCancelRequests } from '../store/fileCancelRequests';
import { FileCoordinatorRegistry } from '../store/fileCoordinatorRegistry';
import { FileDispatchStore } from '../store/fileDispatchStore';
import { FileEventLog } from '../store/fileEventLog';
import { FileQueueStore } from '../store/fileQueueStore';
import { FileRunStore } from '../store/fileRunStore';
import { FileSchedulerLock } from '../store/fileSchedulerLock';
import { FileWorkerRegistry } from '../store/fileWorkerRegistry';
import { InstanceRegistry } from '../store/instanceRegistry';
import { randomHex } from '../store/randomHex';
import { buildOnDisk } from './buildOnDisk';
import { cliDagSpecCache } from './loadDagOrThrow';
import { processPorts } from './processPorts';

/** One scheduler instance over the files of `config`; `onLost` is called once if it loses the lock. */
export function composeScheduler(
  config: Config,
  logger: Logger,
  onLost: (reason: string) => void,
): SchedulerService {
  const host = hostname();
  const executable = process.env.DAGU_EXECUTABLE ?? process.argv[1];
  const onCorrupt = (r: { path: string; error: string }) => logger.warn('Skipped a corrupt file', { ...r });
  const clock = systemClock;
  return new SchedulerService({
    config,
    clock,
    timers: systemTimers,
    logger,
    runs: new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir, onCorrupt }),
    queue: new FileQueueStore({ dataDir: config.paths.data_dir, onCorrupt }),
    events: new FileEventLog({ dataDir: config.paths.data_dir, onCorrupt, clock }),
    launch: processLauncher({
      executable,
      env: process.env,
      spares: config.run.prestart
        ? {
            // A name no DAG can have (DAG names never start with a dot): a spare's output until it has a run.
            logDir: path.join(config.paths.log_dir, '.spare'),
            currentBuild: () => buildOnDisk(executable),
            logger,
          }
        : null,
    }),
    lock: new FileSchedulerLock({ dataDir: config.paths.data_dir }),
    registry: new InstanceRegistry(config.paths.data_dir, onCorrupt),
    identity: {
      instance_id: `${host.replace(/[^A-Za-z0-9_.-]/g, '_')}-${process.pid}-${randomHex(3)}`,
      host,
      pid: process.pid,
    },
    newToken: () => randomHex(16),
    onLost,
    isProcessAlive: isLocalProcessAlive,
    dagSpecCache: cliDagSpecCache(config),
    stopRun: stopper(config, logger),
    distributed: fileDistributed(config, logger, clock),
  });
}

/** `dagu stop` for the scheduler's stop and restart schedules; its services are built on first use. */
function stopper(config: Config, logger: Logger): (runId: string) => Promise<void> {
  let services: Services | null = null;
  return async (runId) => {
    services ??= createServices(config, logger, processPorts());
    await requestStop(services, runId);
  };
}

/** The dispatcher and the hold expiry over the files under `paths.data_dir`, writing runs through `runs`. */
function fileDistributed(config: Config, logger: Logger, clock: Clock): SchedulerDistributedFactory {
  return (runs, canDispatch) => {
    const dataDir = config.paths.data_dir;
    const c = config.coordinator;
    const tasks = new FileDispatchStore({ dataDir, logger });
    const workers = new FileWorkerRegistry({ dataDir, logger });
    const cancels = new FileCancelRequests({ dataDir });
    const coordinators = new FileCoordinatorRegistry({ dataDir, logger });
    const dispatcher = new Dispatcher({
      runs,
      tasks,
      workers,
      cancels,
      coordinators,
      clock,
      logger: logger.child({ component: 'dispatcher' }),
      waitMs: c.worker_wait_timeout_ms,
      staleMs: c.worker_stale_threshold_ms,
    });
    const holdExpiry = new HoldExpiry({
      runs,
      tasks,
      cancels,
      workers,
      coordinators,
      clock,
      logger: logger.child({ component: 'hold-expiry' }),
      canDispatch,
      detectionIntervalMs: c.detection_interval_ms,
      reservationTtlMs: c.reservation_ttl_ms,
      staleMs: c.worker_stale_threshold_ms,
    });
    return { dispatcher, tasks, holdExpiry };
  };
}
