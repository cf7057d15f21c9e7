// Worker IDs, the rule shared by the worker registry, the coordinator's requests and the configuration: an ID
// becomes part of a file name, so it is checked against one pattern everywhere.

/** Worker IDs: letters, digits, `_`, `.`, `@` and `-`, at most 128 characters (`host@pid` fits). */
export const WORKER_ID_PATTERN = /^[A-Za-z0-9_.@-]{1,128}$/;

/** Thrown when a worker ID that would become part of a path does not match WORKER_ID_PATTERN. */
export class InvalidWorkerIdError extends Error {
  constructor(readonly value: string) {
    super(`invalid worker ID ${JSON.stringify(value)}: use 1 to 128 letters, digits, "_", ".", "@" or "-"`);
    this.name = 'InvalidWorkerIdError';
  }
}

export function isValidWorkerId(value: unknown): value is string {
  return typeof value === 'string' && WORKER_ID_PATTERN.test(value);
}

export function assertWorkerId(value: string): string {
  if (!isValidWorkerId(value)) throw new InvalidWorkerIdError(value);
  return value;
}
