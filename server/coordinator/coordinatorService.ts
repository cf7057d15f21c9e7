// One `dagu coordinator` process: the dispatcher, the detector, the worker-facing HTTP(S) server and the
// liveness record that tells every other process a coordinator is alive, over the stores its composition root
// gives it (server/cli/composeCoordinator.ts: the file stores under DAGU_HOME/data, run writes with events).

import { hostname } from 'node:os';
import type { Config } from '../config/types';
import type { Clock, Logger, Timers } from '../core/ports';
import { loadDag } from '../store/dagCatalog';
import { coordinatorIdOf } from '../store/distributedDir';
import type { CoordinatorRegistry } from '../store/dispatchTypes';
import { assembleCoordinator, type CoordinatorParts, type CoordinatorStores } from './assembleCoordinator';
import { CoordinatorBeacon } from './coordinatorBeacon';

export interface CoordinatorServiceDeps {
  config: Config;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The runs, tasks, workers and cancel requests the coordinator serves. */
  stores: CoordinatorStores;
  /** Where its liveness record goes. */
  registry: CoordinatorRegistry;
}

export class CoordinatorService {
  readonly parts: CoordinatorParts;
  private beacon: CoordinatorBeacon | null = null;
  private started = false;

  constructor(private readonly d: CoordinatorServiceDeps) {
    const c = d.config.coordinator;
    const logger = d.logger.child({ component: 'coordinator' });
    this.parts = assembleCoordinator({
      stores: d.stores,
      settings: {
        host: c.host,
        port: c.port,
        token: c.token,
        tls: { cert_file: c.tls.cert_file, key_file: c.tls.key_file },
        waitMs: c.worker_wait_timeout_ms,
        staleMs: c.worker_stale_threshold_ms,
        detectionIntervalMs: c.detection_interval_ms,
        reservationTtlMs: c.reservation_ttl_ms,
        workerRetentionMs: c.worker_retention_ms,
        logsRoot: d.config.paths.log_dir,
      },
      clock: d.clock,
      timers: d.timers,
      logger,
      loadDag: (name) => loadDag(d.config.paths.dags_dir, name),
    });
  }

  /** The URL the server is bound to (after `start`). */
  get url(): string {
    return this.parts.server.url;
  }

  /** Listens (throws naming the key on a bad port or TLS file) and starts the detector. */
  async start(): Promise<void> {
    const { server, detector } = this.parts;
    await server.start();
    this.started = true;
    detector.start();
    const c = this.d.config.coordinator;
    const log = this.d.logger.child({ component: 'coordinator' });
    const host = hostname();
    this.beacon = new CoordinatorBeacon({
      registry: this.d.registry,
      clock: this.d.clock,
      timers: this.d.timers,
      logger: log,
      identity: { coordinator_id: coordinatorIdOf(host, server.port), host, pid: process.pid },
      freshForMs: c.worker_stale_threshold_ms,
    });
    // Recorded alive once it serves: a dispatch it lets through finds a coordinator to hand the run over.
    await this.beacon.start(c.port === 0 ? server.url : c.url);
    if (c.token === null && !isLoopback(c.host)) {
      // Anyone who can reach the port could register as a worker and receive DAGs (and their env).
      log.warn(
        'The coordinator listens beyond this host without a token: set coordinator.token (DAGU_COORDINATOR_TOKEN)',
        {
          host: c.host,
          port: c.port,
        },
      );
    }
    log.info('Coordinator listening', {
      url: server.url,
      tls: server.tls,
      auth: c.token !== null ? 'token' : 'off',
      worker_wait_timeout_ms: c.worker_wait_timeout_ms,
    });
  }

  /**
   * Stops the detector after its current pass, then serving (waiting polls end, handled requests finish). The
   * detector goes first: once the server stops, no worker can heartbeat, and a detector still judging them
   * would fail the runs of every healthy worker as silent.
   */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    // Gone for every other process first: dispatches are refused rather than handed to a stopping coordinator.
    await this.beacon?.stop();
    await this.parts.detector.stop();
    await this.parts.server.stop();
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
