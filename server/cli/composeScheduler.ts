// The composition root of a scheduler process (`dagu scheduler`, and the scheduler inside `dagu start-all`):
// the real clock and timers, the stores of the configured backend (files or PostgreSQL), the run launcher, the dispatcher and
// the hold expiry for DAGs that run on workers. Nothing below server/cli builds these for the scheduler.

import { hostname } from 'node:os';
import path from 'node:path';
import type { Services } from '../api/services';
import { requestStop } from '../api/stopRun';
import type { Config } from '../config/types';
import { Dispatcher } from '../coordinator/dispatcher';
import { systemClock, systemTimers } from '../core/clock';
import type { Clock, Logger } from '../core/ports';
import { HoldExpiry } from '../scheduler/holdExpiry';
import { processLauncher, RUN_HOST_LOG_DIR } from '../scheduler/launcher';
import type { SchedulerDistributedFactory } from '../scheduler/scheduler';
import { SchedulerService } from '../scheduler/schedulerService';
import { SchedulerStateCell } from '../scheduler/schedulerState';
import { isLocalProcessAlive } from '../scheduler/zombieReaper';
import type { ControlPlane } from '../store/controlPlane';
import { randomHex } from '../store/randomHex';
import { buildOnDisk } from './buildOnDisk';
import { cliDagSpecCache } from './loadDagOrThrow';
import { cliServices } from './openControlPlane';

/**
 * One scheduler instance over the control plane `cp` (files or a database); `onLost` is called once if it
 * loses the lock. On a database, every write only the active instance may make is fenced by the lock.
 */
export function composeScheduler(
  config: Config,
  logger: Logger,
  cp: ControlPlane,
  onLost: (reason: string) => void,
): SchedulerService {
  const host = hostname();
  const executable = process.env.DAGU_EXECUTABLE ?? process.argv[1];
  const clock = systemClock;
  // The fence asks the service which lock it holds; the service is made below, from these stores.
  const self: { service: SchedulerService | null } = { service: null };
  const mine = cp.forScheduler(() => self.service?.holding() ?? null);
  self.service = new SchedulerService({
    config,
    clock,
    timers: systemTimers,
    logger,
    runs: mine.runs,
    queue: mine.queue,
    events: cp.events,
    launch: processLauncher({
      executable,
      logger,
      // The runs use this scheduler's backend (their records are there), and bin/dagu picks the code cache
      // of a run on PostgreSQL from this variable, which a backend chosen in config.yaml does not set.
      env: { ...process.env, DAGU_STORAGE_BACKEND: config.storage.backend },
      spares: config.run.prestart
        ? {
            // A name no DAG can have (DAG names never start with a dot): a spare's output until it has a run.
            logDir: path.join(config.paths.log_dir, '.spare'),
            currentBuild: () => buildOnDisk(executable),
            logger,
          }
        : null,
      hosts: {
        maxRuns: config.run.host_max_runs,
        logDir: path.join(config.paths.log_dir, RUN_HOST_LOG_DIR),
      },
      lanes: {
        maxLanes: config.run.lanes,
        runsPerLane: Math.max(1, config.run.host_max_runs),
        logDir: path.join(config.paths.log_dir, RUN_HOST_LOG_DIR),
        currentBuild: () => buildOnDisk(executable),
      },
    }),
    lock: mine.lock,
    registry: cp.instances,
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
    distributed: storeDistributed(config, cp, logger, clock),
    suspended: cp.suspendFlags,
    stateStore: mine.tickState ? new SchedulerStateCell(mine.tickState, logger) : undefined,
    slotNamespace: mine.slotNamespace,
    wakeups: cp.wakeups,
    slotWakeups: mine.slotWakeups,
  });
  return self.service;
}

/** `dagu stop` for the scheduler's stop and restart schedules; its services are built on first use. */
function stopper(config: Config, logger: Logger): (runId: string) => Promise<void> {
  let services: Promise<Services> | null = null;
  return async (runId) => {
    services ??= cliServices(config, logger);
    await requestStop(await services, runId);
  };
}

/** The dispatcher and the hold expiry over the control plane's stores, writing runs through `runs`. */
function storeDistributed(
  config: Config,
  cp: ControlPlane,
  logger: Logger,
  clock: Clock,
): SchedulerDistributedFactory {
  return (runs, canDispatch) => {
    const c = config.coordinator;
    const { tasks, workers, cancels, coordinators, events } = cp;
    const dispatcher = new Dispatcher({
      runs,
      tasks,
      workers,
      cancels,
      coordinators,
      events,
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
