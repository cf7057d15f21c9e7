// The few errors an operation can end with, each carrying the HTTP status and code the REST API answers with.
// The CLI maps the same classes to its exit codes and prints `message`.

import { ConfigError } from '../config/loadConfig';
import { HttpError, type ErrorBody } from '../core/httpError';
import { InvalidNameError } from '../core/names';
import { InvalidCursorError } from '../store/errors';

// Each extends the one HTTP error type the coordinator throws too (core/httpError.ts).

/** Thrown when a request lacks the configured credentials (auth.basic or auth.token) or they are wrong. */
export class UnauthorizedError extends HttpError {
  constructor(message: string, headers: Record<string, string> = {}) {
    super(401, 'unauthorized', message, headers);
    this.name = 'UnauthorizedError';
  }
}

/** Thrown when a DAG, run, step or log the request names does not exist. */
export class NotFoundError extends HttpError {
  constructor(message: string) {
    super(404, 'not_found', message);
    this.name = 'NotFoundError';
  }
}

/** Thrown when the request is valid but the thing is in the wrong state (not queued, already finished, ...). */
export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, 'conflict', message);
    this.name = 'ConflictError';
  }
}

/** Thrown when a parameter or body field is invalid; the message names the field. */
export class BadRequestError extends HttpError {
  constructor(message: string) {
    super(400, 'bad_request', message);
    this.name = 'BadRequestError';
  }
}

/** Thrown when a mutation comes from another origin. */
export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, 'forbidden', message);
    this.name = 'ForbiddenError';
  }
}

/** Thrown when a request body exceeds the limit. */
export class PayloadTooLargeError extends HttpError {
  constructor(readonly limitBytes: number) {
    super(413, 'payload_too_large', `request body exceeds ${limitBytes} bytes`);
    this.name = 'PayloadTooLargeError';
  }
}

/** Thrown when a stored record cannot be read (corrupt or truncated); `path` is the file involved. */
export class CorruptRecordError extends HttpError {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(500, 'corrupt_record', message);
    this.name = 'CorruptRecordError';
  }
}

/** Maps any thrown value to a status and body; unexpected errors become a 500 without internals. */
export function toErrorResponse(err: unknown): {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
} {
  const error = (status: number, code: string, message: string) => ({
    status,
    body: { error: { code, message } },
  });
  if (err instanceof HttpError) {
    const headers = Object.keys(err.headers).length > 0 ? err.headers : undefined;
    return { ...error(err.status, err.code, err.message), headers };
  }
  // Errors of other layers that are the caller's fault: a name or a cursor the request carried.
  if (err instanceof InvalidNameError || err instanceof InvalidCursorError) {
    return error(400, 'bad_request', err.message);
  }
  if (err instanceof ConfigError) return error(500, 'config_error', err.message);
  return error(500, 'internal', 'internal error');
}
