// Why a run waits, as it is now rather than as last recorded: while no coordinator is alive a run waiting for
// a worker cannot get one, whatever its conditions say (see core/coordinatorPresence.ts). The run view, the
// queue view and `dagu status` read runs through here.

import {
  conditionsNow,
  coordinatorAvailability,
  waitsForWorker,
  type CoordinatorAvailability,
} from '../core/coordinatorPresence';
import type { Clock } from '../core/ports';
import type { RunStatus } from '../core/types';
import type { CoordinatorRegistry, DispatchStore } from '../store/dispatchTypes';

export interface WaitingNowSources {
  coordinators: Pick<CoordinatorRegistry, 'list'>;
  tasks: Pick<DispatchStore, 'findByRun'>;
  clock: Clock;
}

/** Whether a coordinator is alive now, from the liveness records. */
export async function availabilityNow(
  s: Pick<WaitingNowSources, 'coordinators' | 'clock'>,
): Promise<CoordinatorAvailability> {
  return coordinatorAvailability(await s.coordinators.list(), s.clock.nowMs());
}

/**
 * The run with its conditions as they are now. Reads nothing more for a run that is not queued or that a
 * worker has; for a queued one, the coordinators' records and (when its conditions do not already say it
 * waits for a worker) its dispatch task.
 */
export async function withConditionsNow(src: WaitingNowSources, s: RunStatus): Promise<RunStatus> {
  if (s.status !== 'queued' || s.worker_id !== null) return s;
  const availability = await availabilityNow(src);
  if (availability.available) return s;
  const hasTask = !waitsForWorker(s, false) && (await src.tasks.findByRun(s.run_id)) !== null;
  const conditions = conditionsNow(s, hasTask, availability, src.clock.nowMs());
  return conditions === s.conditions ? s : { ...s, conditions };
}
