// Recording the start of a run this process claimed, before anything of it runs, where the run store can
// give claims back (PostgreSQL). The start is written only while the claim is still this process's, and
// the active scheduler gives back only a claim whose run never started: so a run process that lost the
// database right after its claim either starts the run once the database answers, or runs nothing and
// exits, and the scheduler then starts the run again. Never both.

import type { Clock, Logger, Timers } from '../core/ports';
import type { RunStatus } from '../core/types';
import { RunNotFoundError } from '../store/errors';
import type { RunStore } from '../store/types';
import { RunConflictError, StartUnrecordedError } from './errors';
import { errorText } from './statusReporter';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;

/**
 * Writes `status` (the run's first `running` status) for `owner`'s claim, retrying for `budgetMs` while the
 * store fails. Throws RunConflictError ('released') when the claim was given back meanwhile, and
 * StartUnrecordedError when the budget ran out: in both cases nothing may run.
 */
export async function beginClaimedRun(
  o: {
    runStore: Pick<RunStore, 'beginClaimedAttempt'>;
    clock: Clock;
    timers: Timers;
    logger: Logger;
    budgetMs: number;
  },
  status: RunStatus,
  owner: string,
): Promise<void> {
  const startedMono = o.clock.monoMs();
  let warned = false;
  for (let delayMs = FIRST_RETRY_MS; ; delayMs = Math.min(2 * delayMs, MAX_RETRY_MS)) {
    let lastError: unknown;
    try {
      if (await o.runStore.beginClaimedAttempt(status, owner)) return;
      throw new RunConflictError(status.run_id, 'released');
    } catch (err) {
      if (err instanceof RunConflictError || err instanceof RunNotFoundError) throw err;
      lastError = err;
    }
    const leftMs = o.budgetMs - (o.clock.monoMs() - startedMono);
    if (leftMs <= 0) throw new StartUnrecordedError(status.run_id, lastError);
    if (!warned) {
      warned = true;
      o.logger.warn('Could not record the start of the run; retrying (nothing runs until it is recorded)', {
        run_id: status.run_id,
        error: errorText(lastError),
      });
    }
    await new Promise<void>((resolve) => o.timers.setTimeout(resolve, Math.min(delayMs, leftMs)));
  }
}
