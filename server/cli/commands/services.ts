// `dagu scheduler`, `dagu server` and `dagu start-all`: the long-running services, with clean shutdown on
// SIGINT/SIGTERM and a hard exit if stopping takes longer than 10 seconds.

import type { Logger } from '../../core/ports';
import { SECOND } from '../../core/units';
import type { SchedulerService } from '../../scheduler/schedulerService';
import { composeScheduler } from '../composeScheduler';
import type { Config } from '../../config/types';
import { cliContext, type GlobalOptions } from '../context';
import { initHome } from '../initHome';
import { UsageError } from '../exit';
import { untilSignal } from './untilSignal';
import type { CoordinatorService } from '../../coordinator/coordinatorService';
import { exposureWarning, securityView } from '../../api/security';
import { createServices, processEnv } from '../../api/services';
import { findRelayTools, LaunchRelay } from '../../runner/launchRelay';
import { processPorts } from '../processPorts';
import { closeCliControlPlanes, serviceControlPlane } from '../openControlPlane';

const STOP_DEADLINE_MS = 10 * SECOND;

/** Exits non-zero after a lost lock (the service logged why): servers closed, ended anyway after 10 s. */
function exitOnLoss(closers: Array<() => Promise<void>>) {
  return () => {
    process.exitCode = 1;
    setTimeout(() => process.exit(1), STOP_DEADLINE_MS).unref();
    void Promise.allSettled(closers.map((c) => c())).then(() => process.exit(1));
  };
}

async function startWeb(config: Config, logger: Logger) {
  const dir = process.env.DAGU_PROJECT_ROOT ?? process.cwd();
  // Imported here, so that only the commands that serve the console load the web server and the API router
  // (esbuild keeps them in the main bundle, initialised on this first call).
  const { startWebServer } = await import('../../api/webServer');
  // The API and the pages' data use these services: the only ones of the web server.
  const listen = { host: config.host, port: config.port };
  // React and Next pick their production builds from NODE_ENV when they load, so it is set before the web
  // server loads them. (Next's typings make NODE_ENV read-only, hence Object.assign.)
  if (!process.env.NODE_ENV) Object.assign(process.env, { NODE_ENV: 'production' });
  process.env.NEXT_TELEMETRY_DISABLED ??= '1';
  const ports = processPorts();
  // The runs the API starts go through a launch relay, started before the storage is touched: a fork of
  // this process would wait on every file of a stalled data volume it has open (see launchRelay.ts).
  const tools = findRelayTools();
  const relay = tools ? new LaunchRelay({ env: processEnv(config, ports.env), tools, logger }) : null;
  relay?.start();
  const stores = await serviceControlPlane(config, logger);
  const services = createServices(config, logger, { ...ports, listen, stores, relay });
  const server = await startWebServer({ services, logger, dir, host: config.host, port: config.port });
  logger.info(`Console listening on http://${config.host}:${server.port}`, { port: server.port });
  if (securityView(config.auth, services.listen).exposed_without_auth) {
    logger.warn(exposureWarning(services.listen), { host: config.host, port: server.port, auth: 'none' });
  }
  return server;
}

/** Starts the scheduler service; a storage error on the first attempt at the lock fails startup. */
async function startScheduler(config: Config, logger: Logger, onLost: (reason: string) => void) {
  const service = composeScheduler(config, logger, await serviceControlPlane(config, logger), onLost);
  try {
    await service.start();
  } catch (err) {
    // SchedulerLockStartError names the data directory; a busy health port names the port.
    throw new UsageError((err as Error).message, 1);
  }
  return service;
}

export async function schedulerCommand(opts: GlobalOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'scheduler' });
  await initHome(config, logger);
  // The health endpoint keeps answering (503 for ?role=active) until the process is gone; the `lost` event
  // gets a moment to reach the event log.
  const closers: Array<() => Promise<void>> = [];
  const service = await startScheduler(config, logger, exitOnLoss(closers));
  closers.push(() => service.flushEvents(1000));
  const signal = await untilSignal(logger);
  await service.stop(signal);
  // Connections to a database (and its wake-up listener) would keep the process alive.
  await closeCliControlPlanes();
  return 0;
}

export async function serverCommand(opts: GlobalOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'server' });
  await initHome(config, logger);
  const web = await startWeb(config, logger);
  await untilSignal(logger);
  await web.close();
  // Connections to a database (and its wake-up listener) would keep the process alive.
  await closeCliControlPlanes();
  return 0;
}

export async function startAllCommand(opts: GlobalOptions & { coordinator?: boolean }): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'start-all' });
  await initHome(config, logger);
  let coordinator: CoordinatorService | null = null;
  if (opts.coordinator) {
    const { startCoordinator } = await import('./coordinator');
    coordinator = await startCoordinator(config, logger);
  }
  const web = await startWeb(config, logger.child({ component: 'server' }));
  // Losing the lock takes the web server down too, rather than leaving a console with no scheduler.
  const closers: Array<() => Promise<void>> = [() => web.close()];
  const service: SchedulerService = await startScheduler(
    config,
    logger.child({ component: 'scheduler' }),
    exitOnLoss(closers),
  );
  closers.push(() => service.flushEvents(1000));

  if (coordinator) closers.push(() => coordinator.stop());

  const signal = await untilSignal(logger);
  await service.stop(signal);
  await web.close();
  await coordinator?.stop();
  // Connections to a database (and its wake-up listener) would keep the process alive.
  await closeCliControlPlanes();
  return 0;
}
