// What `dagu server` checks before a request reaches the console's pages or /metrics. The API's own routes
// check credentials in their handlers (see http.ts respond), so they are left to them here. With auth.basic
// everything else needs the password too, so a browser opening the console is asked for it; with auth.token
// the pages stay open (they sign in with the token) and /metrics needs the token.

import { BASIC_CHALLENGE, isAuthenticated, type Credentials } from './auth';
import type { AuthConfig } from '../config/types';

export interface GuardRefusal {
  status: 401;
  headers: Record<string, string>;
  body: string;
}

/** Null when the request may go on; else the 401 to answer. */
export function guardRequest(auth: AuthConfig, pathname: string, c: Credentials): GuardRefusal | null {
  if (auth.mode === 'none' || pathname === '/livez') return null;
  if (pathname === '/api/v1' || pathname.startsWith('/api/v1/')) return null;
  if (auth.mode === 'token' && pathname !== '/metrics') return null;
  if (isAuthenticated(auth, c)) return null;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  };
  if (auth.mode === 'basic') headers['WWW-Authenticate'] = BASIC_CHALLENGE;
  const message =
    auth.mode === 'basic'
      ? 'authentication required: the user name and password of auth.basic'
      : 'authentication required: send Authorization: Bearer <auth.token>';
  return { status: 401, headers, body: JSON.stringify({ error: { code: 'unauthorized', message } }) };
}
