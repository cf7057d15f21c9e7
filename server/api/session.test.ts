import { afterEach, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../config/types';
import { ConflictError, UnauthorizedError } from './errors';
import { getSession, signIn, signOut } from './session';
import { testServices, type TestServices } from './testServices';

const made: TestServices[] = [];
afterEach(() => {
  for (const s of made.splice(0)) s.cleanup();
});
function services(auth: AuthConfig, host = '127.0.0.1') {
  const svc = testServices((c) => ({ ...c, auth, host }));
  made.push(svc);
  return svc;
}
const req = (url = 'http://127.0.0.1:8080/api/v1/session', headers: Record<string, string> = {}) =>
  new Request(url, { method: 'POST', headers });

describe('getSession', () => {
  it('says a server without auth lets everyone in, and warns when it listens beyond loopback', () => {
    expect(getSession(services({ mode: 'none' }, '0.0.0.0'), req())).toEqual({
      auth: 'none',
      authenticated: true,
      exposed_without_auth: true,
      listen: '0.0.0.0:8080',
      write_dags: true,
    });
  });

  it('tells whether the browser sent the basic credentials', () => {
    const svc = services({ mode: 'basic', username: 'u', password: 'p' });
    expect(getSession(svc, req()).authenticated).toBe(false);
    const header = `Basic ${Buffer.from('u:p').toString('base64')}`;
    expect(getSession(svc, req(undefined, { authorization: header })).authenticated).toBe(true);
  });
});

describe('signIn', () => {
  it('sets the cookie, Secure when the console was reached over https', () => {
    const svc = services({ mode: 'token', token: 't0k' });
    const reply = signIn(svc, req('https://console.example/api/v1/session'), 't0k');
    expect(reply.status).toBe(200);
    expect(reply.headers['Set-Cookie']).toBe('dagu_token=t0k; HttpOnly; SameSite=Strict; Path=/; Secure');
    expect(reply.body).toMatchObject({ auth: 'token', authenticated: true });
  });

  it('answers 401 to a wrong token and 409 where there is no token to sign in with', () => {
    expect(() => signIn(services({ mode: 'token', token: 't0k' }), req(), 'nope')).toThrow(UnauthorizedError);
    expect(() => signIn(services({ mode: 'none' }), req(), 'x')).toThrow(ConflictError);
    expect(() => signIn(services({ mode: 'basic', username: 'u', password: 'p' }), req(), 'x')).toThrow(
      /uses auth\.basic/,
    );
  });
});

describe('signOut', () => {
  it('clears the cookie', () => {
    const reply = signOut(services({ mode: 'token', token: 't' }), req());
    expect(reply.headers['Set-Cookie']).toBe('dagu_token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0');
    expect(reply.body).toMatchObject({ authenticated: false });
  });
});
