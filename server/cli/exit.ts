// Exit codes and the one-line error report every command ends with on failure.

import { ConfigError } from '../config/loadConfig';
import { InvalidNameError } from '../core/names';

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

const USER_ERRORS = [
  'UsageError',
  'ConfigError',
  'InvalidNameError',
  'NotFoundError',
  'ConflictError',
  'BadRequestError',
];

/**
 * The runner's refusal to start a run whose ID is taken (already running, ended, or being started elsewhere) is
 * the caller's mistake, like a taken ID on enqueue; a run whose record cannot be read is a failure instead.
 */
function isRefusedStart(e: Error): boolean {
  return e.name === 'RunConflictError' && (e as Error & { state?: string }).state !== 'corrupt';
}

/** Prints one line naming the problem and sets the exit code (2 for user errors, 1 otherwise). */
export function fail(err: unknown): void {
  const e = err instanceof Error ? err : new Error(String(err));
  const user =
    e instanceof ConfigError ||
    e instanceof InvalidNameError ||
    USER_ERRORS.includes(e.name) ||
    isRefusedStart(e);
  process.stderr.write(`dagu: ${e.message}\n`);
  if (!user && process.env.DAGU_DEBUG) process.stderr.write(`${e.stack}\n`);
  process.exitCode = e instanceof UsageError ? e.exitCode : user ? EXIT_USAGE : EXIT_RUN_FAILED;
}
