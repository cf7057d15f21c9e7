// `dagu storage migrate --to postgres [--verify] [--force]`: copies the data directory into the PostgreSQL
// database of storage.postgres.* (or, with --verify, compares the two). The copy refuses while a scheduler
// holds the data directory's lock, and into a database a scheduler has already used, unless forced; it
// never writes to the data directory. Exit 0: done and nothing differs; 1: records differ (or, verifying,
// any difference); 2: bad configuration, no database, or refused.

import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { leaseTiming } from '../../core/lease/timing';
import { SECOND } from '../../core/units';
import { FileSchedulerLock } from '../../store/fileSchedulerLock';
import { StorageConfigError, openPgPool, type OpenedPool } from '../../store/postgres/connect';
import { SchedulerStateFile } from '../../scheduler/schedulerState';
import { collectingLogger, openFileSource } from '../../store/transfer/fileSource';
import { checkSchedulerActivity } from '../../store/transfer/schedulerActivity';
import {
  CopyInProgressError,
  databaseSchedulerHolder,
  transferDataDir,
} from '../../store/transfer/transferDataDir';
import { hasDifferences } from '../../store/transfer/transferReport';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE } from '../exit';
import { processPorts } from '../processPorts';
import { formatTransferReport } from './storageReport';

export interface StorageMigrateOptions extends GlobalOptions {
  to: string;
  verify?: boolean;
  force?: boolean;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const warn = (line: string) => process.stderr.write(`dagu storage migrate: ${line}\n`);

export async function storageMigrateCommand(opts: StorageMigrateOptions): Promise<number> {
  // The DAG files to copy are those of paths.dags_dir, whichever backend the config already names.
  const { config } = cliContext(opts, { component: 'cli' }, {}, { dagsDir: 'configured' });
  const { clock } = processPorts();
  const {
    data_dir: dataDir,
    log_dir: logDir,
    suspend_flags_dir: suspendFlagsDir,
    dags_dir: dagsDir,
  } = config.paths;
  if (config.storage.postgres.url === null || config.storage.postgres.url.trim() === '') {
    warn('storage.postgres.url (DAGU_POSTGRES_URL) is not set: it names the database to copy into');
    return EXIT_USAGE;
  }
  if (!existsSync(dataDir)) {
    warn(`the data directory ${dataDir} (paths.data_dir) does not exist: there is nothing to copy`);
    return EXIT_USAGE;
  }
  const verify = opts.verify === true;

  if (!verify) {
    const timing = leaseTiming(
      config.scheduler.lock_stale_threshold_ms,
      config.scheduler.lock_retry_interval_ms,
    );
    const activity = await checkSchedulerActivity(new FileSchedulerLock({ dataDir }), {
      staleMs: timing.staleMs,
      // Longer than the holder's renewal interval, with room for a slow renewal.
      watchMs: timing.renewEveryMs + 1 * SECOND,
      clock,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      onWatch: (ms) =>
        warn(`watching the scheduler lock for ${Math.ceil(ms / SECOND)}s to see whether it is renewed`),
    });
    if (activity.active && opts.force !== true) {
      warn(
        `refusing to copy while a scheduler is active on ${dataDir}: ${activity.reason}. ` +
          'Stop every scheduler first, or pass --force to copy anyway',
      );
      return EXIT_USAGE;
    }
    if (activity.active) {
      warn(`warning: ${activity.reason}; copying anyway (--force): what it writes from now on is not copied`);
    }
  }

  let opened: OpenedPool;
  try {
    opened = await openPgPool(config, { by: `dagu storage migrate on ${hostname()}` });
  } catch (err) {
    if (!(err instanceof StorageConfigError)) throw err;
    warn(err.message);
    return EXIT_USAGE;
  }
  const { pool, settings } = opened;
  try {
    if (!verify) {
      const holder = await databaseSchedulerHolder(pool, settings.schema);
      if (holder !== null && opts.force !== true) {
        warn(
          `refusing to copy into a database a scheduler has already run on (${holder}): records it consumed ` +
            '(queue items, dispatch tasks) could come back. Pass --force to copy the missing records anyway',
        );
        return EXIT_USAGE;
      }
      if (holder !== null)
        warn(`warning: a scheduler has already run on this database (${holder}); copying anyway`);
    }
    say(
      `${verify ? 'Comparing' : 'Copying'} ${dataDir} (DAGs ${dagsDir}, logs ${logDir}, suspend flags ` +
        `${suspendFlagsDir}) ` +
        `${verify ? 'with' : 'into'} ${settings.safeUrl}, schema ${JSON.stringify(settings.schema)}`,
    );
    const files = openFileSource({ dataDir, logDir, suspendFlagsDir, dagsDir }, clock);
    const tickState = new SchedulerStateFile(dataDir, collectingLogger(files.reporter('scheduler state')));
    files.tickState = () => tickState.read();
    const report = await transferDataDir(
      files,
      { pool, schema: settings.schema },
      verify ? 'verify' : 'copy',
    );
    for (const line of formatTransferReport(report)) say(line);
    return hasDifferences(report) ? EXIT_RUN_FAILED : EXIT_OK;
  } catch (err) {
    if (!(err instanceof CopyInProgressError)) throw err;
    warn(err.message);
    return EXIT_USAGE;
  } finally {
    await pool.end();
  }
}
