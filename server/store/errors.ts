// Named errors of the stores. Expected outcomes (a run that already exists, a missing or corrupt file)
// are return values; these are thrown only when a caller asks for something that cannot be done.

/** Thrown when a write targets a run (or one of its attempts) that was never created. */
export class RunNotFoundError extends Error {
  constructor(
    readonly runId: string,
    readonly attempt: number | null = null,
  ) {
    super(
      attempt === null ? `run ${runId} does not exist` : `attempt ${attempt} of run ${runId} does not exist`,
    );
    this.name = 'RunNotFoundError';
  }
}

/** Thrown by `createAttempt` when the attempt is not the latest plus one, or another process created it first. */
export class AttemptConflictError extends Error {
  constructor(
    readonly runId: string,
    readonly attempt: number,
    readonly latest: number,
  ) {
    super(`cannot create attempt ${attempt} of run ${runId}: the latest attempt is ${latest}`);
    this.name = 'AttemptConflictError';
  }
}

/** Thrown by `listRuns` (or the event log's `list`) when the cursor was not produced by a previous call. */
export class InvalidCursorError extends Error {
  constructor(
    readonly cursor: string,
    readonly what: 'run list cursor' | 'event ID' = 'run list cursor',
  ) {
    super(`invalid ${what} ${JSON.stringify(cursor)}`);
    this.name = 'InvalidCursorError';
  }
}

/**
 * Thrown by `createRun` and `createAttempt` when a write failed (a full disk, an I/O error). What the call had
 * written was removed again; `leftover` names what could not be, which the run list shows as corrupt and the
 * dead-run check clears. `code` is the failed write's error code.
 */
export class RunCreateError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly runId: string,
    readonly attempt: number,
    readonly cause: unknown,
    readonly leftover: string | null = null,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    const what = attempt === 1 ? `run ${runId}` : `attempt ${attempt} of run ${runId}`;
    super(
      `could not create ${what}: ${why}${leftover ? `; ${leftover} could not be removed (${what} is shown as corrupt)` : ''}`,
    );
    this.name = 'RunCreateError';
    this.code =
      typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  }
}

/** A storage backend that cannot be used as configured (no URL, unreachable, wrong schema): exit code 2. */
export class StorageConfigError extends Error {
  override readonly name = 'StorageConfigError';
}
