import { describe, expect, it } from 'vitest';
import type { AuthConfig } from '../config/types';
import {
  assertAuthenticated,
  cameOverHttps,
  cookieValue,
  isAuthenticated,
  sameSecret,
  signInCookie,
  signOutCookie,
} from './auth';
import { UnauthorizedError } from './errors';

const BASIC: AuthConfig = { mode: 'basic', username: 'ops', password: 'p:ss wörd' };
const TOKEN: AuthConfig = { mode: 'token', token: 'tok-123' };
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const creds = (authorization: string | null = null, cookie: string | null = null) => ({
  authorization,
  cookie,
});

describe('isAuthenticated', () => {
  it('lets everything through without auth', () => {
    expect(isAuthenticated({ mode: 'none' }, creds())).toBe(true);
  });

  it('accepts the right basic user and password (the password may hold colons) and nothing else', () => {
    expect(isAuthenticated(BASIC, creds(basic('ops', 'p:ss wörd')))).toBe(true);
    expect(isAuthenticated(BASIC, creds(basic('ops', 'p:ss')))).toBe(false);
    expect(isAuthenticated(BASIC, creds(basic('root', 'p:ss wörd')))).toBe(false);
    expect(isAuthenticated(BASIC, creds())).toBe(false);
    expect(isAuthenticated(BASIC, creds('Basic !!!'))).toBe(false);
    expect(isAuthenticated(BASIC, creds(`Basic ${Buffer.from('no-colon').toString('base64')}`))).toBe(false);
    // A bearer header or a token cookie means nothing to basic auth.
    expect(isAuthenticated(BASIC, creds('Bearer p:ss wörd', 'dagu_token=x'))).toBe(false);
  });

  it('accepts the token as a bearer header or as the sign-in cookie', () => {
    expect(isAuthenticated(TOKEN, creds('Bearer tok-123'))).toBe(true);
    expect(isAuthenticated(TOKEN, creds('bearer tok-123'))).toBe(true);
    expect(isAuthenticated(TOKEN, creds(null, 'theme=dark; dagu_token=tok-123'))).toBe(true);
    expect(isAuthenticated(TOKEN, creds('Bearer tok-12'))).toBe(false);
    expect(isAuthenticated(TOKEN, creds(null, 'dagu_token=tok-1234'))).toBe(false);
    expect(isAuthenticated(TOKEN, creds(basic('x', 'tok-123')))).toBe(false);
    expect(isAuthenticated(TOKEN, creds())).toBe(false);
  });

  it('judges a wrong bearer header on its own, even with a right cookie beside it', () => {
    expect(isAuthenticated(TOKEN, creds('Bearer wrong', 'dagu_token=tok-123'))).toBe(false);
  });
});

describe('assertAuthenticated', () => {
  it('answers 401 unauthorized with the basic challenge in basic mode', () => {
    try {
      assertAuthenticated(BASIC, creds());
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UnauthorizedError);
      const e = err as UnauthorizedError;
      expect([e.status, e.code]).toEqual([401, 'unauthorized']);
      expect(e.headers).toEqual({ 'WWW-Authenticate': 'Basic realm="dagu"' });
      expect(e.message).toMatch(/authentication required/);
    }
    expect(() => assertAuthenticated(BASIC, creds(basic('ops', 'nope')))).toThrow(
      'the user name or password is wrong (auth.basic)',
    );
  });

  it('answers 401 without a challenge in token mode, saying whether a token was sent', () => {
    expect(() => assertAuthenticated(TOKEN, creds())).toThrow(/Authorization: Bearer <auth.token>/);
    expect(() => assertAuthenticated(TOKEN, creds('Bearer nope'))).toThrow('the token is wrong (auth.token)');
    try {
      assertAuthenticated(TOKEN, creds());
    } catch (err) {
      expect((err as UnauthorizedError).headers).toEqual({});
    }
    expect(() => assertAuthenticated(TOKEN, creds('Bearer tok-123'))).not.toThrow();
  });
});

describe('sameSecret', () => {
  it('compares whole strings of any length', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'a')).toBe(false);
  });
});

describe('cookies', () => {
  it('signs in with an HttpOnly, SameSite=Strict cookie for the whole site, Secure over https', () => {
    expect(signInCookie('a b;c', false)).toBe('dagu_token=a%20b%3Bc; HttpOnly; SameSite=Strict; Path=/');
    expect(signInCookie('t', true)).toBe('dagu_token=t; HttpOnly; SameSite=Strict; Path=/; Secure');
    expect(signOutCookie(false)).toBe('dagu_token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
  });

  it('reads back what it set', () => {
    expect(cookieValue('x=1; dagu_token=a%20b%3Bc; y=2', 'dagu_token')).toBe('a b;c');
    expect(cookieValue('x=1', 'dagu_token')).toBeNull();
    expect(cookieValue(null, 'dagu_token')).toBeNull();
  });

  it('tells https from the URL or from a proxy header', () => {
    expect(cameOverHttps(new Request('https://console.example/api/v1/session'))).toBe(true);
    expect(cameOverHttps(new Request('http://127.0.0.1/api/v1/session'))).toBe(false);
    const proxied = new Request('http://127.0.0.1/x', { headers: { 'x-forwarded-proto': 'https' } });
    expect(cameOverHttps(proxied)).toBe(true);
  });
});
