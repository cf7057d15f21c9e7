// `dagu coordinator`: the worker-facing API, the dispatch store's detector, until SIGINT/SIGTERM.

import type { Config } from '../../config/types';
import type { Logger } from '../../core/ports';
import type { CoordinatorService } from '../../coordinator/coordinatorService';
import { composeCoordinator } from '../composeCoordinator';
import { cliContext, type GlobalOptions } from '../context';
import { UsageError } from '../exit';
import { initHome } from '../initHome';
import { untilSignal } from './untilSignal';
import { closeCliControlPlanes, serviceControlPlane } from '../openControlPlane';

export interface CoordinatorCommandOptions extends GlobalOptions {
  coordinatorHost?: string;
  coordinatorPort?: string;
}

/** Builds and starts the coordinator; a busy port or an unreadable TLS file fails startup (exit 1). */
export async function startCoordinator(config: Config, logger: Logger): Promise<CoordinatorService> {
  const service = composeCoordinator(config, logger, await serviceControlPlane(config, logger));
  try {
    await service.start();
  } catch (err) {
    throw new UsageError((err as Error).message, 1);
  }
  return service;
}

export async function coordinatorCommand(opts: CoordinatorCommandOptions): Promise<number> {
  const { config, logger } = cliContext(
    opts,
    { component: 'coordinator' },
    { 'coordinator.host': opts.coordinatorHost, 'coordinator.port': opts.coordinatorPort },
  );
  await initHome(config, logger);
  const service = await startCoordinator(config, logger);
  await untilSignal(logger);
  await service.stop();
  // Connections to a database (and its wake-up listener) would keep the process alive.
  await closeCliControlPlanes();
  return 0;
}
