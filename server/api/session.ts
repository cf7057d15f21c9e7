// The console's sign-in: how the server is protected and whether this browser passes (never needs auth), and
// with auth.token, trading the token for an HttpOnly cookie so page scripts never hold it.

import {
  cameOverHttps,
  credentialsOf,
  isAuthenticated,
  sameSecret,
  signInCookie,
  signOutCookie,
} from './auth';
import { ConflictError, UnauthorizedError } from './errors';
import { Reply } from './http';
import { securityView } from './security';
import type { Services } from './services';

export interface SessionView {
  auth: 'none' | 'basic' | 'token';
  /** Whether this request passes the configured auth (always true without auth). */
  authenticated: boolean;
  exposed_without_auth: boolean;
  listen: string;
  /** Whether the console may create, edit, rename and delete DAG files (server.permissions.write_dags). */
  write_dags: boolean;
}

export function getSession(svc: Services, req: Request): SessionView {
  return {
    ...securityView(svc.config.auth, svc.listen),
    authenticated: isAuthenticated(svc.config.auth, credentialsOf(req)),
    write_dags: svc.config.server.permissions.write_dags,
  };
}

/** POST /api/v1/session {token}: 200 with the session and the cookie set, or 401 when the token is wrong. */
export function signIn(svc: Services, req: Request, token: string): Reply {
  const auth = svc.config.auth;
  if (auth.mode !== 'token') {
    throw new ConflictError(
      auth.mode === 'basic'
        ? 'this server uses auth.basic: the browser asks for the user name and password'
        : 'this server has no auth.token to sign in with',
    );
  }
  if (!sameSecret(token, auth.token)) throw new UnauthorizedError('the token is wrong (auth.token)');
  const session: SessionView = {
    ...securityView(auth, svc.listen),
    authenticated: true,
    write_dags: svc.config.server.permissions.write_dags,
  };
  return new Reply(session, 200, { 'Set-Cookie': signInCookie(token, cameOverHttps(req)) });
}

/** POST /api/v1/session/logout: clears the cookie (answers the session as it is without it). */
export function signOut(svc: Services, req: Request): Reply {
  const auth = svc.config.auth;
  const session: SessionView = {
    ...securityView(auth, svc.listen),
    // Without the cookie, only a bearer or basic header (if the client sends one) still counts.
    authenticated: isAuthenticated(auth, { authorization: req.headers.get('authorization'), cookie: null }),
    write_dags: svc.config.server.permissions.write_dags,
  };
  return new Reply(session, 200, { 'Set-Cookie': signOutCookie(cameOverHttps(req)) });
}
