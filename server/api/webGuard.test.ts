import { describe, expect, it } from 'vitest';
import type { AuthConfig } from '../config/types';
import { guardRequest } from './webGuard';

const BASIC: AuthConfig = { mode: 'basic', username: 'ops', password: 'pw' };
const TOKEN: AuthConfig = { mode: 'token', token: 'tok' };
const none = { authorization: null, cookie: null };
const basicOk = { authorization: `Basic ${Buffer.from('ops:pw').toString('base64')}`, cookie: null };

describe('guardRequest', () => {
  it('lets everything through without auth', () => {
    for (const p of ['/', '/queue', '/metrics', '/api/v1/queue'])
      expect(guardRequest({ mode: 'none' }, p, none)).toBeNull();
  });

  it('asks for the password on pages and /metrics in basic mode, with the challenge', () => {
    for (const p of ['/', '/queue', '/_next/static/app.js', '/metrics']) {
      const refusal = guardRequest(BASIC, p, none);
      expect(refusal?.status).toBe(401);
      expect(refusal?.headers['WWW-Authenticate']).toBe('Basic realm="dagu"');
      expect(JSON.parse(refusal!.body)).toMatchObject({ error: { code: 'unauthorized' } });
      expect(guardRequest(BASIC, p, basicOk)).toBeNull();
    }
  });

  it('never blocks /livez, and leaves the API to its handlers', () => {
    for (const auth of [BASIC, TOKEN]) {
      expect(guardRequest(auth, '/livez', none)).toBeNull();
      expect(guardRequest(auth, '/api/v1/health', none)).toBeNull();
      expect(guardRequest(auth, '/api/v1/queue', none)).toBeNull();
    }
  });

  it('in token mode leaves the pages open (they sign in) and asks for the bearer token on /metrics', () => {
    expect(guardRequest(TOKEN, '/', none)).toBeNull();
    expect(guardRequest(TOKEN, '/queue', none)).toBeNull();
    const refusal = guardRequest(TOKEN, '/metrics', none);
    expect(refusal?.status).toBe(401);
    expect(refusal?.headers['WWW-Authenticate']).toBeUndefined();
    expect(guardRequest(TOKEN, '/metrics', { authorization: 'Bearer tok', cookie: null })).toBeNull();
    expect(guardRequest(TOKEN, '/metrics', { authorization: 'Bearer nope', cookie: null })?.status).toBe(401);
  });
});
