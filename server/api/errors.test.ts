import { describe, expect, it } from 'vitest';
import { HttpError } from '../core/httpError';
import { HttpError as CoordinatorHttpError } from '../coordinator/httpIo';
import { NoCoordinatorError } from './startDag';
import { ConflictError, NotFoundError, toErrorResponse, UnauthorizedError } from './errors';

describe('one HTTP error type for the API and the coordinator', () => {
  it('makes every named API error an HttpError, with its status, code and body', () => {
    const err = new NotFoundError('run r-1 does not exist');
    expect(err).toBeInstanceOf(HttpError);
    expect(err.name).toBe('NotFoundError');
    expect(err.body()).toEqual({ error: { code: 'not_found', message: 'run r-1 does not exist' } });
    expect(new ConflictError('x').status).toBe(409);
    expect(new NoCoordinatorError()).toBeInstanceOf(HttpError);
  });

  it('is the class the coordinator throws', () => {
    expect(CoordinatorHttpError).toBe(HttpError);
  });

  it('answers any HttpError with its own status, body and headers', () => {
    expect(toErrorResponse(new HttpError(415, 'unsupported_media_type', 'the body must be JSON'))).toEqual({
      status: 415,
      body: { error: { code: 'unsupported_media_type', message: 'the body must be JSON' } },
      headers: undefined,
    });
    const challenge = { 'WWW-Authenticate': 'Basic realm="dagu"' };
    expect(toErrorResponse(new UnauthorizedError('sign in', challenge))).toEqual({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'sign in' } },
      headers: challenge,
    });
  });
});
