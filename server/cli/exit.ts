// Exit codes and the one-line error report every command ends with on failure.

import { ConfigError } from '../config/loadConfig';
import { BadRequestError, ConflictError, NotFoundError } from '../api/errors';
import { InvalidNameError } from '../core/names';
import { RunConflictError } from '../runner/errors';
import { StorageConfigError } from '../store/errors';

export const EXIT_OK = 0;
export const EXIT_RUN_FAILED = 1;
export const EXIT_USAGE = 2;

/** Thrown by commands for a user error (bad argument, missing DAG, refused operation): exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * The runner's refusal to start a run whose ID is taken (already running, ended, or being started elsewhere) is
 * the caller's mistake, like a taken ID on enqueue; a run whose record cannot be read is a failure instead.
 */
function isRefusedStart(e: Error): boolean {
  return e instanceof RunConflictError && e.state !== 'corrupt';
}

/** Prints one line naming the problem and sets the exit code (2 for user errors, 1 otherwise). */
export function fail(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const user =
    e instanceof UsageError ||
    e instanceof ConfigError ||
    e instanceof StorageConfigError ||
    e instanceof InvalidNameError ||
    e instanceof NotFoundError ||
    e instanceof ConflictError ||
    e instanceof BadRequestError ||
    isRefusedStart(e);
  process.stderr.write(`dagu: ${e.message}\n`);
  if (!user && process.env.DAGU_DEBUG) process.stderr.write(`${e.stack}\n`);
  process.exitCode = e instanceof UsageError ? e.exitCode : user ? EXIT_USAGE : EXIT_RUN_FAILED;
}
