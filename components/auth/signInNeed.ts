// Whether the console must ask for credentials before it can show anything, from what GET /api/v1/session
// says and when an API call last answered 401.

import type { SessionView } from '@/components/apiTypes';

/**
 * token: show the access-token form; basic: the browser asks for the password, the page only says how to get
 * the prompt back; null: nothing to ask.
 */
export type SignInNeed = 'token' | 'basic' | null;

/**
 * `session` is null while unknown (not loaded or the endpoint failed). A 401 newer than the session answer
 * means the answer is out of date (a cookie expired since): trust the 401 until the session is asked again.
 */
export function signInNeed(
  session: Pick<SessionView, 'auth' | 'authenticated'> | null,
  sessionFetchedAtMs: number,
  lastUnauthorizedAtMs: number | null,
): SignInNeed {
  const rejectedSince = lastUnauthorizedAtMs !== null && lastUnauthorizedAtMs > sessionFetchedAtMs;
  if (session === null) return rejectedSince ? 'token' : null;
  if (session.auth === 'token') return !session.authenticated || rejectedSince ? 'token' : null;
  if (session.auth === 'basic') return rejectedSince ? 'basic' : null;
  return null;
}
