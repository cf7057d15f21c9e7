// Named errors of the runner: thrown when asked to start something that cannot be started, or when a run's
// end could not be recorded.

import type { RunState } from '../core/types';

/** Thrown when a run ID is taken by a run that cannot be (re)started in its current state. */
export class RunConflictError extends Error {
  constructor(
    readonly runId: string,
    readonly state: RunState | 'corrupt' | 'unknown' | 'claimed' | 'released',
    detail?: string,
  ) {
    super(
      state === 'corrupt'
        ? `run ${runId} has an unreadable status${detail ? ` (${detail})` : ''}`
        : state === 'claimed'
          ? `run ${runId} is already being started by another process`
          : state === 'released'
            ? `run ${runId} was given back to its queue by the active scheduler before this process could record its start; another process runs it`
            : state === 'unknown'
              ? `run ${runId} already exists`
              : `run ${runId} is already ${state}`,
    );
    this.name = 'RunConflictError';
  }
}

/**
 * Thrown when a run process could not record the start of the run it claimed within its budget (the run
 * store unreachable). Nothing of the run was executed; the active scheduler gives the claim back and starts
 * the run again. The process should exit non-zero.
 */
export class StartUnrecordedError extends Error {
  constructor(
    readonly runId: string,
    readonly writeError: unknown,
  ) {
    const why = writeError instanceof Error ? writeError.message : String(writeError);
    super(
      `run ${runId} was not started: its start could not be recorded (${why}); ` +
        'the active scheduler starts it again',
    );
    this.name = 'StartUnrecordedError';
  }
}

/**
 * Thrown by a run attempt whose steps are done but whose final status could not be written (a full disk, an
 * I/O error) in the time allowed. The run stays marked active, so the dead-run check marks it failed with
 * the reason once its heartbeat is stale; the process should exit non-zero.
 */
export class FinalStatusUnwrittenError extends Error {
  constructor(
    readonly runId: string,
    readonly attempt: number,
    readonly state: RunState,
    readonly writeError: unknown,
  ) {
    const why = writeError instanceof Error ? writeError.message : String(writeError);
    super(
      `run ${runId} ended ${state}, but its final status could not be written (${why}); ` +
        'the active scheduler marks it failed once its heartbeat is stale',
    );
    this.name = 'FinalStatusUnwrittenError';
  }
}
