import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_ROUTES, apiNotFound } from './apiRoutes';
import { testServices, type TestServices } from './testServices';

const PUBLIC = new Set([
  'GET /api/v1/health',
  'GET /api/v1/session',
  'POST /api/v1/session',
  'POST /api/v1/session/logout',
]);

let svc: TestServices;
beforeEach(() => {
  svc = testServices((c) => ({ ...c, auth: { mode: 'token', token: 'secret-token' } }));
});
afterEach(() => {
  svc.cleanup();
});

function call(method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}) {
  const route = API_ROUTES.find((r) => r.path === path)!;
  const params = Object.fromEntries(
    path
      .split('/')
      .filter((seg) => seg.startsWith(':'))
      .map((seg) => [seg.slice(1), 'x']),
  );
  const url = `http://127.0.0.1:8080${path.replace(/:[a-z]+/g, 'x')}`;
  const req = new Request(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'POST' ? '{}' : undefined,
  });
  return route.handlers[method]!(svc, req, params);
}

describe('the API with auth.token configured', () => {
  const routes = API_ROUTES.flatMap((r) =>
    (Object.keys(r.handlers) as Array<'GET' | 'POST'>).map((m) => [m, r.path] as const),
  );

  it.each(routes.filter(([m, p]) => !PUBLIC.has(`${m} ${p}`)))(
    '%s %s answers 401 unauthorized without the token',
    async (method, path) => {
      const res = await call(method, path);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    },
  );

  it.each(routes.filter(([m, p]) => !PUBLIC.has(`${m} ${p}`)))(
    '%s %s gets past the check with the token',
    async (method, path) => {
      const res = await call(method, path, { authorization: 'Bearer secret-token' });
      expect(res.status).not.toBe(401);
    },
  );

  it('answers health and the session without the token', async () => {
    expect((await call('GET', '/api/v1/health')).status).toBe(200);
    expect(await (await call('GET', '/api/v1/session')).json()).toEqual({
      auth: 'token',
      authenticated: false,
      exposed_without_auth: false,
      listen: '127.0.0.1:8080',
      write_dags: true,
    });
  });

  it('signs a browser in with the token and then accepts its cookie', async () => {
    const route = API_ROUTES.find((r) => r.path === '/api/v1/session')!;
    const wrong = await route.handlers.POST!(
      svc,
      new Request('http://127.0.0.1:8080/api/v1/session', { method: 'POST', body: '{"token":"nope"}' }),
      {},
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const ok = await route.handlers.POST!(
      svc,
      new Request('http://127.0.0.1:8080/api/v1/session', {
        method: 'POST',
        body: '{"token":"secret-token"}',
      }),
      {},
    );
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ auth: 'token', authenticated: true });
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toBe('dagu_token=secret-token; HttpOnly; SameSite=Strict; Path=/');

    const overview = await call('GET', '/api/v1/overview', { cookie: cookie.split(';')[0] });
    expect(overview.status).toBe(200);
    const session = await call('GET', '/api/v1/session', { cookie: cookie.split(';')[0] });
    expect((await session.json()).authenticated).toBe(true);

    const out = await call('POST', '/api/v1/session/logout', { cookie: cookie.split(';')[0] });
    expect(out.headers.get('set-cookie')).toMatch(/^dagu_token=; .*Max-Age=0/);
    expect((await out.json()).authenticated).toBe(false);
  });

  it('answers an unknown path 404 (it names nothing the caller may not see)', async () => {
    const res = apiNotFound(new Request('http://127.0.0.1:8080/api/v1/nope'));
    expect(res.status).toBe(404);
  });
});
