// Named errors of the coordinator. Expected outcomes (held, refused, a rejected report) are return values;
// these are thrown when a dispatch or a start cannot be carried out.

import type { RunStatus } from '../core/types';

/** Thrown by `dispatch` when the run record was written but its task could not be stored (the run is now `failed`). */
export class DispatchFailedError extends Error {
  constructor(
    readonly runId: string,
    readonly cause: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'DispatchFailedError';
  }
}

/**
 * Thrown by `dispatch` when the run is not in the state the dispatch expects: a start whose run ID is taken,
 * a retry of an attempt that has not ended, a queue hand-over of a run that is no longer queued.
 * `status` is the run as found, when it could be read.
 */
export class DispatchConflictError extends Error {
  constructor(
    readonly runId: string,
    readonly reason: 'exists' | 'not_terminal' | 'not_queued' | 'superseded' | 'missing' | 'unreadable',
    message: string,
    readonly status: RunStatus | null = null,
  ) {
    super(message);
    this.name = 'DispatchConflictError';
  }
}

/** Thrown by `cancel` when the run's status file cannot be read. */
export class RunUnreadableError extends Error {
  constructor(
    readonly runId: string,
    readonly path: string,
    readonly detail: string,
  ) {
    super(`the status of run ${runId} cannot be read (${path}): ${detail}`);
    this.name = 'RunUnreadableError';
  }
}

/** Thrown by the coordinator's start when its TLS certificate or key is missing, unreadable or not valid. */
export class TlsFileError extends Error {
  constructor(
    readonly key: string,
    readonly file: string | null,
    detail: string,
  ) {
    super(file === null ? `${key}: ${detail}` : `${key}: cannot use ${JSON.stringify(file)}: ${detail}`);
    this.name = 'TlsFileError';
  }
}
