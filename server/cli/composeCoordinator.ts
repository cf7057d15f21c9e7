// The composition root of a coordinator (`dagu coordinator`, and the one inside `dagu start-all
// --coordinator`): the real clock and timers and the stores of the configured backend (files under
// DAGU_HOME/data or PostgreSQL), so a restart loses nothing, with run status writes that append run events.

import type { Config } from '../config/types';
import type { CoordinatorStores } from '../coordinator/assembleCoordinator';
import { CoordinatorService } from '../coordinator/coordinatorService';
import { systemClock, systemTimers } from '../core/clock';
import type { Logger } from '../core/ports';
import type { ControlPlane } from '../store/controlPlane';
import { fileControlPlane } from '../store/fileControlPlane';
import { withRunEvents } from '../store/runEvents';

/** A coordinator over the control plane `cp` (not started). */
export function composeCoordinator(config: Config, logger: Logger, cp: ControlPlane): CoordinatorService {
  const log = logger.child({ component: 'coordinator' });
  const service = new CoordinatorService({
    config,
    clock: systemClock,
    timers: systemTimers,
    logger,
    stores: coordinatorStores(cp, log),
    registry: cp.coordinators,
  });
  // A task stored by another process (a scheduler's hand-over, a `dagu start` of a DAG for the workers):
  // waiting long polls look at once instead of at their next tick.
  cp.wakeups?.subscribe('dispatch', () => service.parts.poller.notify());
  return service;
}

/** The coordinator's stores of a control plane, run writes emitting `dag.run.*` events. */
export function coordinatorStores(cp: ControlPlane, logger: Logger): CoordinatorStores {
  return {
    runs: withRunEvents(cp.runs, cp.events, { logger }),
    tasks: cp.tasks,
    workers: cp.workers,
    cancels: cp.cancels,
    logs: cp.logs,
    state: cp.state,
    artifacts: cp.artifacts,
  };
}

/** The coordinator's stores over the files of a data directory (tests of the file backend). */
export function fileCoordinatorStores(config: Config, logger: Logger): CoordinatorStores {
  return coordinatorStores(fileControlPlane(config, logger, systemClock), logger);
}
