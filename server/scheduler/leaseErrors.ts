// Named errors of the scheduler lock.

/** Thrown by LeaseKeeper.start() when storage fails on the first attempt at the lock (a wrong data directory). */
export class SchedulerLockStartError extends Error {
  constructor(
    readonly dataDir: string,
    readonly cause: unknown,
  ) {
    super(
      `cannot use the scheduler lock in data directory ${dataDir}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'SchedulerLockStartError';
  }
}
