// Who may use the API: nobody is asked without auth; with auth.basic a request carries `Authorization: Basic`;
// with auth.token it carries `Authorization: Bearer <token>` or the HttpOnly cookie the console's sign-in sets.
// Secrets are compared through their SHA-256 digests with timingSafeEqual, so the time a comparison takes
// tells nothing about how much of a guess was right (nor, through the digest's fixed size, its length).

import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthConfig } from '../config/types';
import { UnauthorizedError } from './errors';

/** The cookie that carries the token of a browser signed in to the console (auth.token). */
export const TOKEN_COOKIE = 'dagu_token';

/** The challenge that makes a browser ask for the user name and password (auth.basic). */
export const BASIC_CHALLENGE = 'Basic realm="dagu"';

/** The two request headers credentials travel in. */
export interface Credentials {
  authorization: string | null;
  cookie: string | null;
}

/** The credentials of a fetch Request. */
export function credentialsOf(req: Request): Credentials {
  return { authorization: req.headers.get('authorization'), cookie: req.headers.get('cookie') };
}

/** Whether the credentials pass the configured auth (always, without auth). */
export function isAuthenticated(auth: AuthConfig, c: Credentials): boolean {
  switch (auth.mode) {
    case 'none':
      return true;
    case 'basic': {
      const pair = basicPair(c.authorization);
      if (pair === null) return false;
      // Both halves are compared every time: no early exit on a wrong user name.
      const userOk = sameSecret(pair.username, auth.username);
      const passwordOk = sameSecret(pair.password, auth.password);
      return userOk && passwordOk;
    }
    case 'token': {
      const bearer = bearerToken(c.authorization);
      if (bearer !== null) return sameSecret(bearer, auth.token);
      const cookie = cookieValue(c.cookie, TOKEN_COOKIE);
      return cookie !== null && sameSecret(cookie, auth.token);
    }
  }
}

/** Throws the 401 of the configured mode unless the request is authenticated. */
export function assertAuthenticated(auth: AuthConfig, c: Credentials): void {
  if (isAuthenticated(auth, c)) return;
  const sent = c.authorization !== null || (auth.mode === 'token' && cookieValue(c.cookie, TOKEN_COOKIE));
  if (auth.mode === 'basic') {
    throw new UnauthorizedError(
      sent
        ? 'the user name or password is wrong (auth.basic)'
        : 'authentication required: send the user name and password of auth.basic (HTTP basic auth)',
      { 'WWW-Authenticate': BASIC_CHALLENGE },
    );
  }
  throw new UnauthorizedError(
    sent
      ? 'the token is wrong (auth.token)'
      : 'authentication required: send Authorization: Bearer <auth.token>, or sign in to the console',
  );
}

/** Whether `candidate` equals `secret`, in time that does not depend on where they differ. */
export function sameSecret(candidate: string, secret: string): boolean {
  return timingSafeEqual(digest(candidate), digest(secret));
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function basicPair(header: string | null): { username: string; password: string } | null {
  const m = header === null ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function bearerToken(header: string | null): string | null {
  const m = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : null;
}

/** The value of one cookie of a `Cookie` header (URI-decoded), or null. */
export function cookieValue(header: string | null, name: string): string | null {
  if (header === null) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}

/**
 * The `Set-Cookie` value that signs a browser in: HttpOnly (page scripts never see the token), SameSite=Strict
 * (another site's page cannot make the browser send it), Secure when the console was reached over https.
 */
export function signInCookie(token: string, secure: boolean): string {
  return `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}

/** The `Set-Cookie` value that signs a browser out. */
export function signOutCookie(secure: boolean): string {
  return `${TOKEN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** Whether the request reached the server over https (directly, or through a proxy that says so). */
export function cameOverHttps(req: Request): boolean {
  const forwarded = req.headers.get('x-forwarded-proto');
  if (forwarded !== null) return forwarded.split(',')[0].trim().toLowerCase() === 'https';
  return new URL(req.url).protocol === 'https:';
}
