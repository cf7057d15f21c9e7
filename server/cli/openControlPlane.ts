// The one place a process chooses its storage backend (storage.backend): every composition root opens its
// control plane here. The PostgreSQL code and the `pg` library are loaded only when the backend is postgres.

import { hostname } from 'node:os';
import { createServices, type Services } from '../api/services';
import type { Config } from '../config/types';
import { systemClock, systemTimers } from '../core/clock';
import type { Clock, Logger } from '../core/ports';
import type { ControlPlane } from '../store/controlPlane';
import { fileControlPlane } from '../store/fileControlPlane';
import { processPorts } from './processPorts';

/**
 * Opens the configured backend. On postgres this connects, migrates or checks the schema and checks that the
 * user may write, so a misconfigured process stops here with one clear line (StorageConfigError, exit 2).
 */
export async function openControlPlane(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ControlPlane> {
  if (config.storage.backend === 'file') return fileControlPlane(config, logger, clock);
  const { pgControlPlane } = await import('../store/postgres/pgControlPlane');
  return pgControlPlane(config, logger, clock, { by: `${hostname()}:${process.pid}`, timers: systemTimers });
}

const opened = new Map<Config, Promise<ControlPlane>>();

/** Closes every control plane this process opened (a long-running command, at its end). */
export async function closeCliControlPlanes(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  await Promise.all(all.map((p) => p.then((cp) => cp.close()).catch(() => undefined)));
}

/**
 * The control plane of this command's process, opened once per config: every store a command uses comes
 * from it. Its connections never keep the process alive (allowExitOnIdle), so a command need not close it.
 */
export function cliControlPlane(config: Config, logger: Logger): Promise<ControlPlane> {
  let cp = opened.get(config);
  if (!cp) {
    cp = openControlPlane(config, logger);
    opened.set(config, cp);
    // A failed open is not kept: the next caller gets the error again, not a settled rejection forever.
    cp.catch(() => opened.delete(config));
  }
  return cp;
}

/** The API's services over this process's control plane, for the commands that run one operation. */
export async function cliServices(config: Config, logger: Logger): Promise<Services> {
  return createServices(config, logger, { ...processPorts(), stores: await cliControlPlane(config, logger) });
}
