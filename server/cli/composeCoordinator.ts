// The composition root of a coordinator (`dagu coordinator`, and the one inside `dagu start-all
// --coordinator`): the real clock and timers and the file stores under DAGU_HOME/data, so a restart loses
// nothing, with run status writes that append run events.

import type { Config } from '../config/types';
import type { CoordinatorStores } from '../coordinator/assembleCoordinator';
import { CoordinatorService } from '../coordinator/coordinatorService';
import { systemClock, systemTimers } from '../core/clock';
import type { Clock, Logger } from '../core/ports';
import { FileCancelRequests } from '../store/fileCancelRequests';
import { FileCoordinatorRegistry } from '../store/fileCoordinatorRegistry';
import { FileDispatchStore } from '../store/fileDispatchStore';
import { FileEventLog } from '../store/fileEventLog';
import { FileRunStore } from '../store/fileRunStore';
import { FileWorkerRegistry } from '../store/fileWorkerRegistry';
import { withRunEvents } from '../store/runEvents';

/** A coordinator over the files of `config` (not started). */
export function composeCoordinator(config: Config, logger: Logger): CoordinatorService {
  const log = logger.child({ component: 'coordinator' });
  return new CoordinatorService({
    config,
    clock: systemClock,
    timers: systemTimers,
    logger,
    stores: fileCoordinatorStores(config, systemClock, log),
    registry: new FileCoordinatorRegistry({ dataDir: config.paths.data_dir, logger: log }),
  });
}

/** The file stores of a data directory, run writes emitting `dag.run.*` events. */
export function fileCoordinatorStores(config: Config, clock: Clock, logger: Logger): CoordinatorStores {
  const dataDir = config.paths.data_dir;
  const onCorrupt = (r: { path: string; error: string }) => logger.warn('Skipped a corrupt file', { ...r });
  const runs = new FileRunStore({ dataDir, logDir: config.paths.log_dir, onCorrupt });
  const events = new FileEventLog({ dataDir, clock, onCorrupt });
  return {
    runs: withRunEvents(runs, events, { logger }),
    tasks: new FileDispatchStore({ dataDir, logger }),
    workers: new FileWorkerRegistry({ dataDir, logger }),
    cancels: new FileCancelRequests({ dataDir }),
  };
}
