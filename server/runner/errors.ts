// Named errors of the runner: thrown when asked to start something that cannot be started.

import type { RunState } from '../core/types';

/** Thrown when a run ID is taken by a run that cannot be (re)started in its current state. */
export class RunConflictError extends Error {
  constructor(
    readonly runId: string,
    readonly state: RunState | 'corrupt' | 'unknown' | 'claimed',
    detail?: string,
  ) {
    super(
      state === 'corrupt'
        ? `run ${runId} has an unreadable status${detail ? ` (${detail})` : ''}`
        : state === 'claimed'
          ? `run ${runId} is already being started by another process`
          : state === 'unknown'
            ? `run ${runId} already exists`
            : `run ${runId} is already ${state}`,
    );
    this.name = 'RunConflictError';
  }
}
