// `dagu worker`: executes runs the coordinator hands out to workers whose labels match, until SIGINT or
// SIGTERM, then stops its runs (they end `aborted`) and leaves.

import { mkdir } from 'node:fs/promises';
import { systemClock, systemTimers } from '../../core/clock';
import type { Logger } from '../../core/ports';
import { DAY, SECOND } from '../../core/units';
import { CoordinatorClient } from '../../worker/coordinatorClient';
import { executeTask } from '../../worker/taskExecutor';
import { pruneWorkDirs } from '../../worker/workDirs';
import { WorkerService } from '../../worker/workerService';
import { cliContext, type GlobalOptions } from '../context';
import { UsageError } from '../exit';

export interface WorkerCommandOptions extends GlobalOptions {
  /** `key=value,key2=value2` */
  labels?: string;
  maxActiveRuns?: string;
  /** Coordinator base URL. */
  coordinator?: string;
  token?: string;
  id?: string;
}

/** Run directories untouched for this long are removed when a worker starts. */
const KEEP_RUN_DIRS_MS = DAY;
/** Beyond the kill grace: the runs' last reports, the last heartbeat, then a hard exit. */
const STOP_SLACK_MS = 20 * SECOND;

export async function workerCommand(opts: WorkerCommandOptions): Promise<number> {
  const { config, logger } = cliContext(
    opts,
    { component: 'worker' },
    {
      'worker.labels': opts.labels,
      'worker.max_active_runs': opts.maxActiveRuns,
      'coordinator.url': opts.coordinator,
      'coordinator.token': opts.token,
      'worker.id': opts.id,
    },
  );
  const client = CoordinatorClient.fromConfig(config);
  try {
    await mkdir(config.worker.work_dir, { recursive: true });
  } catch (err) {
    throw new UsageError(
      `worker.work_dir: cannot create ${JSON.stringify(config.worker.work_dir)}: ${(err as Error).message}`,
      1,
    );
  }
  await pruneWorkDirs(config.worker.work_dir, systemClock.nowMs(), KEEP_RUN_DIRS_MS, logger);

  // The worker's environment as it started, read once: every run builds its steps' environment from it,
  // and each read of process.env itself is a walk through the C++ environment (~30 µs for 40 variables).
  const env = Object.freeze({ ...process.env });
  const service = new WorkerService({
    config,
    client,
    clock: systemClock,
    timers: systemTimers,
    logger,
    executeTask: (task, ctx) =>
      executeTask({ config, client, clock: systemClock, timers: systemTimers, env, logger }, task, ctx),
  });
  logger.info('Worker starting', {
    worker_id: service.id,
    url: client.url,
    work_dir: config.worker.work_dir,
  });
  service.start();
  await untilSignal(logger, config.run.kill_grace_ms + STOP_SLACK_MS);
  await service.stop();
  client.close();
  // Everything is stopped; a poll socket the coordinator never answered must not keep the process alive.
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
  return 0;
}

/** Resolves on the first SIGINT or SIGTERM and arms a hard exit in case stopping hangs. */
function untilSignal(logger: Logger, deadlineMs: number): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      logger.info('Stopping', { signal: sig });
      setTimeout(() => {
        logger.error(`Could not stop within ${Math.round(deadlineMs / SECOND)}s; exiting`);
        process.exit(1);
      }, deadlineMs).unref();
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}
