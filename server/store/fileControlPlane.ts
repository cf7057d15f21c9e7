// The control plane on files under DAGU_HOME/data (DESIGN §4): the embedded default. Every store is a
// directory of the data directory; the scheduler lock is a record file and the slot namespace the data
// directory's path (as it always was, so existing slot run IDs keep their meaning).

import { FileArtifactStore } from './fileArtifactStore';
import path from 'node:path';
import type { Config } from '../config/types';
import type { Clock, Logger } from '../core/ports';
import type { ControlPlane } from './controlPlane';
import { FileEventFeed } from './eventFeed';
import { FileCancelRequests } from './fileCancelRequests';
import { FileCoordinatorRegistry } from './fileCoordinatorRegistry';
import { FileDagDefinitions } from './fileDagDefinitions';
import { FileDispatchStore } from './fileDispatchStore';
import { FileEventLog } from './fileEventLog';
import { FileQueueStore } from './fileQueueStore';
import { FileRunLogStore } from './fileRunLogStore';
import { FileRunStore } from './fileRunStore';
import { FileSchedulerLock } from './fileSchedulerLock';
import { FileSlotWatch } from './fileSlotWatch';
import { FileStateStore } from './fileStateStore';
import { FileSuspendFlags } from './fileSuspendFlags';
import { FileWorkerRegistry } from './fileWorkerRegistry';
import type { CorruptFileReport } from './fsutil';
import { InstanceRegistry } from './instanceRegistry';

export function fileControlPlane(config: Config, logger: Logger, clock: Clock): ControlPlane {
  const { data_dir: dataDir, log_dir: logDir } = config.paths;
  const onCorrupt = (report: CorruptFileReport) =>
    logger.warn('Skipped a corrupt file', { path: report.path, error: report.error });
  const runs = new FileRunStore({ dataDir, logDir, onCorrupt });
  const queue = new FileQueueStore({ dataDir, onCorrupt });
  return {
    backend: 'file',
    where: dataDir,
    runs,
    queue,
    events: new FileEventLog({ dataDir, onCorrupt, clock }),
    eventFeed: () => new FileEventFeed(dataDir),
    tasks: new FileDispatchStore({ dataDir, logger }),
    workers: new FileWorkerRegistry({ dataDir, logger }),
    cancels: new FileCancelRequests({ dataDir }),
    coordinators: new FileCoordinatorRegistry({ dataDir, logger }),
    suspendFlags: new FileSuspendFlags(config.paths.suspend_flags_dir, onCorrupt),
    state: new FileStateStore(path.join(dataDir, 'state'), onCorrupt),
    artifacts: new FileArtifactStore(dataDir),
    artifactShipping: null,
    instances: new InstanceRegistry(dataDir, onCorrupt),
    // No fs.watch for correctness on shared storage (DESIGN §4): polling alone.
    wakeups: null,
    logs: new FileRunLogStore(logDir),
    logShipping: null,
    dags: new FileDagDefinitions(config.paths.dags_dir),
    syncDags: async () => undefined,
    followDags: async () => undefined,
    onCorrupt,
    // Files cannot fence a write: the scheduler's own dispatch window (DESIGN §5) is the guarantee.
    forScheduler: () => ({
      lock: new FileSchedulerLock({ dataDir }),
      runs,
      queue,
      tickState: null,
      slotNamespace: dataDir,
      // Only to look sooner: a change on another host is not reported, and polling stays the truth.
      slotWakeups: new FileSlotWatch({ dataDir, logger: logger.child({ component: 'scheduler' }) }),
    }),
    close: async () => undefined,
  };
}
