// `dagu scheduler`, `dagu server` and `dagu start-all`: the long-running services, with clean shutdown on
// SIGINT/SIGTERM and a hard exit if stopping takes longer than 10 seconds.

import { systemClock, systemTimers } from '../../core/clock';
import type { Logger } from '../../core/ports';
import { SECOND } from '../../core/units';
import { processLauncher } from '../../scheduler/launcher';
import { Scheduler } from '../../scheduler/scheduler';
import { FileEventLog } from '../../store/fileEventLog';
import { FileQueueStore } from '../../store/fileQueueStore';
import { FileRunStore } from '../../store/fileRunStore';
import type { Config } from '../../config/types';
import { cliContext, type GlobalOptions } from '../context';
import { initHome } from '../initHome';

const STOP_DEADLINE_MS = 10 * SECOND;

function buildScheduler(config: Config, logger: Logger): Scheduler {
  return new Scheduler({
    config,
    clock: systemClock,
    timers: systemTimers,
    logger,
    runs: new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir }),
    queue: new FileQueueStore({ dataDir: config.paths.data_dir }),
    events: new FileEventLog({ dataDir: config.paths.data_dir }),
    launch: processLauncher({ executable: process.env.DAGU_EXECUTABLE ?? process.argv[1], env: process.env }),
  });
}

async function startWeb(config: Config, logger: Logger) {
  const { startWebServer } = await import('../../api/webServer');
  const dir = process.env.DAGU_PROJECT_ROOT ?? process.cwd();
  const web = await startWebServer({ config, logger, dir, host: config.host, port: config.port });
  logger.info(`Console listening on http://${config.host}:${web.port}`, { port: web.port });
  return web;
}

/** Resolves when SIGINT or SIGTERM arrives; arms the hard-exit deadline. */
function untilSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      logger.info('Stopping', { signal: sig });
      setTimeout(() => {
        logger.error('Could not stop within 10s; exiting');
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      resolve(sig);
    };
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
  });
}

export async function schedulerCommand(opts: GlobalOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'scheduler' });
  await initHome(config, logger);
  const scheduler = buildScheduler(config, logger);
  await scheduler.start();
  await untilSignal(logger);
  await scheduler.stop();
  return 0;
}

export async function serverCommand(opts: GlobalOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'server' });
  await initHome(config, logger);
  const web = await startWeb(config, logger);
  await untilSignal(logger);
  await web.close();
  return 0;
}

export async function startAllCommand(opts: GlobalOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'start-all' });
  await initHome(config, logger);
  const web = await startWeb(config, logger.child({ component: 'server' }));
  const scheduler = buildScheduler(config, logger.child({ component: 'scheduler' }));
  await scheduler.start();
  await untilSignal(logger);
  await scheduler.stop();
  await web.close();
  return 0;
}
