// The collaborators every operation needs, built once per process from the compiled config.

import { systemClock } from '../core/clock';
import { silentLogger, type Clock, type Logger } from '../core/ports';
import type { Config } from '../config/types';
import { FileEventLog } from '../store/fileEventLog';
import { FileQueueStore } from '../store/fileQueueStore';
import { FileRunStore } from '../store/fileRunStore';
import type { CorruptFileReport } from '../store/fsutil';
import type { EventLog, QueueStore, RunStore } from '../store/types';

/** What an operation in server/api receives: config, stores, time and a logger. */
export interface Services {
  config: Config;
  runs: RunStore;
  queue: QueueStore;
  events: EventLog;
  clock: Clock;
  logger: Logger;
}

export function createServices(config: Config, logger: Logger = silentLogger): Services {
  const { data_dir: dataDir, log_dir: logDir } = config.paths;
  const onCorrupt = (report: CorruptFileReport) =>
    logger.warn('Skipped a corrupt file', { path: report.path, error: report.error });
  return {
    config,
    runs: new FileRunStore({ dataDir, logDir, onCorrupt }),
    queue: new FileQueueStore({ dataDir, onCorrupt }),
    events: new FileEventLog({ dataDir, onCorrupt }),
    clock: systemClock,
    logger,
  };
}
