// The one place a process chooses its storage backend (storage.backend): every composition root opens its
// control plane here. The PostgreSQL code and the `pg` library are loaded only when the backend is postgres.

import { hostname } from 'node:os';
import type { Services } from '../api/services';
import type { Config } from '../config/types';
import { systemClock, systemTimers } from '../core/clock';
import type { Clock, Logger } from '../core/ports';
import type { ControlPlane } from '../store/controlPlane';
import { StorageConfigError } from '../store/errors';
import { fileControlPlane } from '../store/fileControlPlane';
import { errorMessage } from '../store/fsutil';
import { storeQueryTimeoutMs } from '../core/storeQueryTimeout';
import { processPorts } from './processPorts';

/**
 * Opens the configured backend. On postgres this connects, migrates or checks the schema and checks that the
 * user may write, so a misconfigured process stops here with one clear line (StorageConfigError, exit 2).
 * `boundedStatements`: every statement of the stores is given up after storeQueryTimeoutMs (commands and run
 * processes, whose statements are all short). Without it (long-running services) the bound is
 * storage.postgres.service_statement_timeout (see serviceStatementBound).
 */
export async function openControlPlane(
  config: Config,
  logger: Logger,
  clock: Clock = systemClock,
  opts: { boundedStatements?: boolean } = {},
): Promise<ControlPlane> {
  if (config.storage.backend === 'file') return fileControlPlane(config, logger, clock);
  const { pgControlPlane } = await import('../store/postgres/pgControlPlane');
  return pgControlPlane(config, logger, clock, {
    by: `${hostname()}:${process.pid}`,
    timers: systemTimers,
    ...(opts.boundedStatements
      ? { queryTimeoutMs: storeQueryTimeoutMs(config.run.heartbeat_stale_threshold_ms) }
      : serviceStatementBound(config)),
  });
}

/** The client waits this much longer than the server, whose cancellation names its reason. */
const SERVICE_CLIENT_MARGIN_MS = 1000;

/**
 * The bound of a long-running service's statements: storage.postgres.service_statement_timeout, long enough
 * for its heaviest statements (a console's page of runs, a retention sweep's history of a DAG, the DAG
 * definitions it copies), so that a statement stuck behind a lock or on a stalled server fails, is logged
 * by the loop that made it, and is tried again on its next pass instead of holding the store for ever.
 * Statements the server cancels report SQLSTATE 57014; the client gives up a moment later on a server that
 * does not answer. 0s leaves them unbounded.
 */
export function serviceStatementBound(config: Config): { queryTimeoutMs?: number; clientMarginMs?: number } {
  const ms = config.storage.postgres.service_statement_timeout_ms;
  return ms > 0 ? { queryTimeoutMs: ms, clientMarginMs: SERVICE_CLIENT_MARGIN_MS } : {};
}

/**
 * The control planes this process opened, by what they open: the backend and its place (not the size of the
 * pool), the paths, and whether statements are bounded. The runs of a run host each load the configuration
 * anew, and every one of them then uses the host's plane: on PostgreSQL, a burst of 200 runs in 7 hosts
 * holds a few connections per host rather than one per run (200 at once was more than a server's default
 * max_connections, and the runs past it failed).
 */
const opened = new Map<string, Promise<ControlPlane>>();

function planeKey(config: Config, opts: { boundedStatements: boolean }): string {
  const { pool_size: _pool, ...postgres } = config.storage.postgres;
  return JSON.stringify([config.storage.backend, postgres, config.paths, opts.boundedStatements]);
}

/** Closes every control plane this process opened (a long-running command, at its end). */
export async function closeCliControlPlanes(): Promise<void> {
  const all = [...opened.values()];
  opened.clear();
  await Promise.all(all.map((p) => p.then((cp) => cp.close()).catch(() => undefined)));
}

/**
 * The control plane of this command's process, opened once per config: every store a command uses comes
 * from it. Its connections never keep the process alive (allowExitOnIdle), so a command need not close it.
 * On a database, this host's DAGs directory is brought in step first (usually one query: the revision),
 * since the command may read a DAG by name; a failure leaves the last copy, with the mirror's warning.
 * Its statements are bounded (storeQueryTimeoutMs): a run process must not wait on a stalled database past
 * its final-status budget, nor leave a transaction open when it is cut off mid-way.
 */
export function cliControlPlane(config: Config, logger: Logger): Promise<ControlPlane> {
  return controlPlaneOnce(config, logger, { boundedStatements: true });
}

function controlPlaneOnce(
  config: Config,
  logger: Logger,
  opts: { boundedStatements: boolean },
): Promise<ControlPlane> {
  const key = planeKey(config, opts);
  let cp = opened.get(key);
  if (!cp) {
    cp = openControlPlane(config, logger, systemClock, opts).then(async (plane) => {
      await plane.syncDags().catch(() => undefined);
      return plane;
    });
    opened.set(key, cp);
    // A failed open is not kept: the next caller gets the error again, not a settled rejection forever.
    cp.catch(() => {
      if (opened.get(key) === cp) opened.delete(key);
    });
  }
  return cp;
}

/** The most connections a run host's runs hold together (storage.postgres.pool_size, if lower). */
export const RUN_HOST_POOL_MAX = 4;

/**
 * Opens the control plane that every run of a run host then uses (cliControlPlane finds it by its settings),
 * with the host's own logger, so that what the stores log goes to the host's output and not into the log of
 * whichever run came first. On PostgreSQL its pool holds at most RUN_HOST_POOL_MAX connections: a host's
 * runs make short statements, and a burst spreads over many hosts. A failure is left to the runs, each of
 * which tries again and says why in its own log.
 */
export async function openRunHostControlPlane(config: Config, logger: Logger): Promise<void> {
  await controlPlaneOnce(runHostConfig(config), logger, { boundedStatements: true }).catch(() => undefined);
}

/**
 * Before a run lane's next run (cli/runLane.ts): on a database, this host's DAGs directory brought in step
 * again (usually one query), as a run process of its own does when it opens its control plane. A failure
 * leaves the last copy, with the mirror's warning; nothing on files.
 */
export async function syncRunHostDags(config: Config, logger: Logger): Promise<void> {
  if (config.storage.backend !== 'postgres') return;
  const cp = await controlPlaneOnce(runHostConfig(config), logger, { boundedStatements: true });
  await cp.syncDags().catch(() => undefined);
}

/** The configuration of a run host's control plane: its pool holds at most RUN_HOST_POOL_MAX connections. */
function runHostConfig(config: Config): Config {
  const postgres = config.storage.postgres;
  return {
    ...config,
    storage: {
      ...config.storage,
      postgres: { ...postgres, pool_size: Math.min(postgres.pool_size, RUN_HOST_POOL_MAX) },
    },
  };
}

/**
 * The control plane of a long-running process (scheduler, console, coordinator): on a database, its DAGs
 * directory is filled from the DAG definitions before it returns and kept in step from then on, so the
 * process never starts on an empty or stale copy. One that cannot be filled stops the process (exit 2).
 */
export async function serviceControlPlane(config: Config, logger: Logger): Promise<ControlPlane> {
  // A service's statements have a bound of their own (serviceStatementBound), far longer than a command's:
  // the console may page a long run list, a coordinator may wait on a row another host holds for a moment.
  // The scheduler's lock has its own deadline.
  const cp = await controlPlaneOnce(config, logger, { boundedStatements: false });
  try {
    await cp.followDags();
  } catch (err) {
    throw new StorageConfigError(
      `cannot copy the DAG definitions into ${config.paths.dags_dir}: ${errorMessage(err)}`,
    );
  }
  return cp;
}

/** The API's services over this process's control plane, for the commands that run one operation. */
export async function cliServices(config: Config, logger: Logger): Promise<Services> {
  // Loaded here, not at import: every run process imports this module, and the API layer it would bring in
  // (the dispatcher, the console's cache) is milliseconds of start-up that `dagu start` never uses.
  const { createServices } = await import('../api/services');
  return createServices(config, logger, { ...processPorts(), stores: await cliControlPlane(config, logger) });
}
