// Bearer-token check of the coordinator API. Both sides are hashed before the constant-time compare, so
// neither the token's content nor its length leaks through timing.

import { createHash, timingSafeEqual } from 'node:crypto';

/** True when `authorization` is `Bearer <token>` with exactly the configured token. */
export function hasBearerToken(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined) return false;
  const match = /^Bearer[ ]+(.+)$/i.exec(authorization.trim());
  if (!match) return false;
  return timingSafeEqual(digest(match[1]), digest(token));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
