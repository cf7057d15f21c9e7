// `dagu resume`: a new attempt of a finished run that runs again only the steps that did not succeed; the
// steps that succeeded keep their status and outputs.

import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { runNextAttempt } from './retryRun';
import type { AttemptContext } from './runAttempt';
import type { SubDagRunner } from './subDag';

/** Inputs of `dagu resume`. */
export interface ResumeRunOptions extends AttemptContext {
  runId: string;
  subDag?: SubDagRunner;
}

/** Whether a run in this state can be resumed: it ended, and not every step succeeded. */
export function isResumable(status: RunStatus): boolean {
  return TERMINAL_RUN_STATES.includes(status.status) && status.status !== 'succeeded';
}

/**
 * Runs attempt n+1 of a finished run (trigger `retry`, same params and schedule time) in which the steps
 * that succeeded in attempt n are kept, and returns its final status. Throws RunNotFoundError for an unknown
 * run and RunConflictError for one that is queued, running, succeeded or unreadable, or whose next attempt
 * another process created first.
 */
export async function resumeRun(o: ResumeRunOptions): Promise<RunStatus> {
  return runNextAttempt(o, isResumable, true);
}
