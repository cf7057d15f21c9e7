// The control plane on PostgreSQL (storage.backend: postgres). One pool serves the stores; the scheduler lock
// has its own small pool whose statements time out on the client at the renewal deadline (I/4), so a renewal
// stuck on a dead connection is abandoned and its connection thrown away rather than holding the lease
// keeper past its deadline (research: a dedicated renewal connection). The active scheduler's run, queue and
// tick-state writes go through a fenced writer: each checks, in its own transaction, that the lease row still
// carries this instance's token and epoch, and the database refuses the write of a deposed instance.

import { PgArtifactStore } from './pgArtifactStore';
import pg from 'pg';
import type { Config } from '../../config/types';
import { leaseTiming } from '../../core/lease/timing';
import type { Clock, Logger, Timers } from '../../core/ports';
import type { ControlPlane, LeaseHold } from '../controlPlane';
import { dagMirrorDir } from '../dagMirror';
import { LogEventFeed } from '../eventFeed';
import { openPgPool, withoutStatementBounds, type PgPoolOptions } from './connect';
import { nameStatements } from './namedStatements';
import { pgDagMirror } from './pgDagMirror';
import { PgDispatchStore } from './pgDispatchStore';
import { PgEventLog } from './pgEventLog';
import { PgQueueStore } from './pgQueueStore';
import { PgRunLogStore } from './pgRunLogStore';
import { PgRunStore } from './pgRunStore';
import { LeaseFenceError, PgSchedulerLock } from './pgSchedulerLock';
import { PgWakeupHub } from './pgWakeupHub';
import { PgInstanceRegistry, PgSchedulerStateCell, readInstallationId } from './pgSchedulerStores';
import { PgCancelRequests, PgCoordinatorRegistry, PgSuspendFlags, PgWorkerRegistry } from './pgSmallStores';
import { PgStateStore } from './pgStateStore';
import { fencedWriter } from './writer';

/**
 * Opens the database (migrating or checking its schema); throws StorageConfigError when it cannot be used.
 * `queryTimeoutMs` bounds the statements of the stores' pool (see PgPoolOptions); the scheduler lock's pool
 * has its own deadline either way.
 */
export async function pgControlPlane(
  config: Config,
  logger: Logger,
  clock: Clock,
  opts: { by: string; timers: Timers } & PgPoolOptions,
): Promise<ControlPlane> {
  const { timers } = opts;
  const log = logger.child({ component: 'postgres' });
  let lastPoolWarnMs = Number.NEGATIVE_INFINITY;
  const onPoolError = (err: Error) => {
    // A restarted server drops every idle connection at once: say so once a minute, not once per connection.
    const now = clock.monoMs();
    if (now - lastPoolWarnMs < 60_000) return;
    lastPoolWarnMs = now;
    log.warn('A PostgreSQL connection was lost; the next query opens a new one', { error: err.message });
  };
  const { pool, settings, opening } = await openPgPool(config, {
    by: opts.by,
    onPoolError,
    queryTimeoutMs: opts.queryTimeoutMs,
    clientMarginMs: opts.clientMarginMs,
  });
  const schema = settings.schema;
  let installationId: string;
  try {
    // Usually read with the schema check already: one round trip fewer for every run process.
    installationId = opening?.installationId ?? (await readInstallationId(pool, schema));
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const events = new PgEventLog(pool, schema, clock);
  // A run's status write appends its run event in the same statement (withRunEvents asks for it).
  const runs = new PgRunStore(pool, schema, config.paths.log_dir, undefined, events);
  const queue = new PgQueueStore(pool, schema);
  const { connectionString, password, connectionTimeoutMillis } = settings.connection;
  const wakeups = new PgWakeupHub({
    connection: { connectionString, password, connectionTimeoutMillis, application_name: 'dagu-wakeups' },
    timers,
    logger: log,
  });
  const logs = new PgRunLogStore(pool, schema);
  let lockPool: pg.Pool | null = null;
  // The process reads DAGs from its copy of the table, which the CLI makes its paths.dags_dir (cli/context.ts).
  const dagMirror = pgDagMirror({
    pool,
    schema,
    wakeups,
    dir: dagMirrorDir(config.paths),
    openedRevision: opening?.dagRevision,
    clock,
    timers,
    logger,
  });

  const artifacts = new PgArtifactStore(pool, schema);
  return {
    backend: 'postgres',
    where: settings.safeUrl,
    runs,
    queue,
    events,
    eventFeed: () => new LogEventFeed(events),
    tasks: new PgDispatchStore(pool, schema, events),
    workers: new PgWorkerRegistry(pool, schema),
    cancels: new PgCancelRequests(pool, schema),
    coordinators: new PgCoordinatorRegistry(pool, schema),
    suspendFlags: new PgSuspendFlags(pool, schema),
    state: new PgStateStore(pool, schema),
    artifacts,
    // A run process writes its artifacts on its own disk (scratch) and copies them here after each step.
    artifactShipping: artifacts,
    instances: new PgInstanceRegistry(pool, schema),
    wakeups,
    // A run process writes its logs on its own disk (scratch) and ships them here as they grow.
    logs,
    logShipping: logs,
    dags: dagMirror.dags,
    syncDags: () => dagMirror.sync(),
    followDags: () => dagMirror.follow(),
    // Rows are typed by the schema: there is no corrupt record to skip.
    onCorrupt: () => undefined,
    forScheduler(holding: () => LeaseHold | null) {
      const t = leaseTiming(
        config.scheduler.lock_stale_threshold_ms,
        config.scheduler.lock_retry_interval_ms,
      );
      const deadline = Math.max(50, Math.floor(t.deadlineMs));
      if (!lockPool) {
        // Its deadline alone bounds it: the stores' statement bounds, if any, are left out.
        lockPool = new pg.Pool({
          ...withoutStatementBounds(settings.connection),
          max: 2,
          connectionTimeoutMillis: deadline,
          query_timeout: deadline,
        });
        // Once per pool: a second scheduler view must not add a second listener.
        lockPool.on('error', onPoolError);
        if (settings.namedStatements) nameStatements(lockPool);
      }
      // A fenced write left waiting on its client for longer than I is ended by the server, so that a holder
      // stopped mid-write cannot hold a takeover back past T + 2R; a live holder's writes take milliseconds.
      const lock = new PgSchedulerLock(lockPool, schema, { fenceIdleTimeoutMs: t.renewEveryMs });
      const held = () => {
        const hold = holding();
        if (hold === null) throw new LeaseFenceError('this instance', 0, 'it does not hold the lock now');
        return hold;
      };
      const refused = (epoch: number) =>
        log.error('The database refused a write: this scheduler no longer holds the lock', { epoch });
      const writer = fencedWriter(
        pool,
        async (c) => {
          const hold = held();
          try {
            await lock.guard(c, hold.holder, hold.epoch);
          } catch (err) {
            if (err instanceof LeaseFenceError) refused(hold.epoch);
            throw err;
          }
        },
        (first) => {
          const hold = held();
          return {
            ...lock.fenceSelect(hold.holder, hold.epoch, first),
            refused: () => {
              refused(hold.epoch);
              return new LeaseFenceError(hold.holder, hold.epoch);
            },
          };
        },
      );
      return {
        lock,
        runs: new PgRunStore(pool, schema, config.paths.log_dir, writer, events),
        queue: new PgQueueStore(pool, schema, writer),
        tickState: new PgSchedulerStateCell(pool, schema, writer),
        slotNamespace: slotNamespaceOf(installationId),
        // The database announces runs' changes and queue items (wakeups) to every host.
        slotWakeups: null,
      };
    },
    async close() {
      await dagMirror.stop();
      await wakeups.close();
      await Promise.all([pool.end(), lockPool?.end()].map((p) => p?.catch(() => undefined)));
    },
  };
}

/**
 * What names the database's slots in their run IDs: its installation ID, or, for a database filled by
 * `dagu storage migrate` before any scheduler ran on it, the data directory it came from (`path:<dir>`), so
 * that slots keep the run IDs they had on the files.
 */
export function slotNamespaceOf(installationId: string): string {
  return installationId.startsWith('path:')
    ? installationId.slice('path:'.length)
    : `postgres:${installationId}`;
}
