// The file stores over DAGU_HOME/data as every process wires them: a corrupt file is logged once, and every
// status write of the run store appends its `dag.run.*` event. The API's services and the run commands both
// start from here; the run commands stop here (a run process needs no console caches).

import type { Config } from '../config/types';
import type { Clock, Logger } from '../core/ports';
import { FileDispatchStore } from './fileDispatchStore';
import { FileEventLog } from './fileEventLog';
import { FileRunStore } from './fileRunStore';
import type { CorruptFileReport } from './fsutil';
import { withRunEvents } from './runEvents';
import type { EventLog, RunStore } from './types';

export interface FileStores {
  events: EventLog;
  /** Every status write appends a `dag.run.<state>` event. */
  runs: RunStore;
  /** Tasks waiting for, or claimed by, a worker. */
  tasks: FileDispatchStore;
  /** Logs a file a read skipped because it is corrupt. */
  onCorrupt: (report: CorruptFileReport) => void;
}

export function createFileStores(config: Config, logger: Logger, clock: Clock): FileStores {
  const { data_dir: dataDir, log_dir: logDir } = config.paths;
  const onCorrupt = (report: CorruptFileReport) =>
    logger.warn('Skipped a corrupt file', { path: report.path, error: report.error });
  const events = new FileEventLog({ dataDir, onCorrupt, clock });
  const runs = withRunEvents(new FileRunStore({ dataDir, logDir, onCorrupt }), events, { logger });
  return { events, runs, tasks: new FileDispatchStore({ dataDir, logger }), onCorrupt };
}
