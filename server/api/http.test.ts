import { afterEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { InvalidCursorError } from '../store/errors';
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError } from './errors';
import {
  assertSameOrigin,
  cancelBodySchema,
  MAX_BODY_BYTES,
  readJsonBody,
  Reply,
  respond,
  startBodySchema,
} from './http';
import type { Services } from './services';
import { testServices, type TestServices } from './testServices';

const post = (headers: Record<string, string>, body?: BodyInit) =>
  new Request('http://127.0.0.1:8080/api/v1/dags/x/start', { method: 'POST', headers, body });

describe('assertSameOrigin', () => {
  it('lets a request from the console itself through', () => {
    expect(() =>
      assertSameOrigin(
        post({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:8080', 'sec-fetch-site': 'same-origin' }),
      ),
    ).not.toThrow();
  });

  it('lets a non-browser client (no Origin, no Sec-Fetch-Site) through', () => {
    expect(() => assertSameOrigin(post({ host: '127.0.0.1:8080' }))).not.toThrow();
  });

  it('refuses a page of another origin, by Origin or by Sec-Fetch-Site', () => {
    expect(() => assertSameOrigin(post({ host: '127.0.0.1:8080', origin: 'http://evil.example' }))).toThrow(
      ForbiddenError,
    );
    expect(() => assertSameOrigin(post({ host: '127.0.0.1:8080', origin: 'http://127.0.0.1:9999' }))).toThrow(
      ForbiddenError,
    );
    expect(() => assertSameOrigin(post({ host: '127.0.0.1:8080', 'sec-fetch-site': 'cross-site' }))).toThrow(
      ForbiddenError,
    );
    expect(() => assertSameOrigin(post({ host: '127.0.0.1:8080', origin: 'null' }))).toThrow(ForbiddenError);
  });
});

describe('readJsonBody', () => {
  it('reads an empty body as {}', async () => {
    expect(await readJsonBody(post({}), startBodySchema)).toEqual({});
  });

  it('names the field that has the wrong type', async () => {
    await expect(
      readJsonBody(post({}, JSON.stringify({ params: ['a', 2] })), startBodySchema),
    ).rejects.toThrow(/^params\.1: /);
    await expect(readJsonBody(post({}, JSON.stringify({ parms: [] })), startBodySchema)).rejects.toThrow(
      /parms/,
    );
  });

  it('refuses a body that is not JSON', async () => {
    await expect(readJsonBody(post({}, '{params:'), startBodySchema)).rejects.toThrow(
      'request body is not valid JSON',
    );
  });

  it('refuses a body over 64 KiB whether or not its length is declared', async () => {
    const big = JSON.stringify({ params: ['x'.repeat(MAX_BODY_BYTES)] });
    await expect(
      readJsonBody(post({ 'content-length': String(big.length) }, big), startBodySchema),
    ).rejects.toBeInstanceOf(PayloadTooLargeError);
    const stream = new Blob([big]).stream();
    const chunked = new Request('http://127.0.0.1/x', {
      method: 'POST',
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await expect(readJsonBody(chunked, startBodySchema)).rejects.toBeInstanceOf(PayloadTooLargeError);
  });
});

describe('respond', () => {
  const svc = () => made(testServices());
  const get = () => new Request('http://127.0.0.1:8080/api/v1/runs');

  it('answers the result as JSON that is never cached', async () => {
    const res = await respond(get(), svc(), async () => ({ ok: 1 }));
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ ok: 1 });
  });

  it('answers each named error with its status and an error body', async () => {
    const cases: Array<[Error, number, string]> = [
      [new NotFoundError('run x not found'), 404, 'not_found'],
      [new ConflictError('busy'), 409, 'conflict'],
      [new InvalidNameError('run ID', 'a/b'), 400, 'bad_request'],
      [new PayloadTooLargeError(MAX_BODY_BYTES), 413, 'payload_too_large'],
    ];
    for (const [err, status, code] of cases) {
      const res = await respond(get(), svc(), async () => {
        throw err;
      });
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ error: { code, message: err.message } });
    }
  });

  it("maps a store's invalid cursor to 400 with its message", async () => {
    const res = await respond(get(), svc(), async () => {
      throw new InvalidCursorError('zzz');
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'bad_request', message: 'invalid run list cursor "zzz"' },
    });
  });

  it('hides the details of an unexpected error', async () => {
    const res = await respond(get(), svc(), async () => {
      throw new Error('EACCES /secret/path');
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'internal', message: 'internal error' } });
  });
});

const madeServices: TestServices[] = [];
/** Services the test cleans up afterwards. */
function made(svc: TestServices): Services {
  madeServices.push(svc);
  return svc;
}
afterEach(() => {
  for (const svc of madeServices.splice(0)) svc.cleanup();
});

describe('respond with auth configured', () => {
  const withToken = () => made(testServices((c) => ({ ...c, auth: { mode: 'token', token: 'tok' } })));
  const request = (method: string, headers: Record<string, string> = {}) =>
    new Request('http://127.0.0.1:8080/api/v1/queue/cancel', { method, headers });

  it('refuses a request without the credentials before the operation runs', async () => {
    let ran = false;
    const res = await respond(request('GET'), withToken(), async () => {
      ran = true;
      return {};
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe('unauthorized');
    expect(ran).toBe(false);
  });

  it('runs the operation for a request with them', async () => {
    const res = await respond(request('GET', { authorization: 'Bearer tok' }), withToken(), async () => ({
      ok: 1,
    }));
    expect(res.status).toBe(200);
  });

  it('lets a public route through without them', async () => {
    const res = await respond(request('GET'), withToken(), async () => ({ ok: 1 }), { public: true });
    expect(res.status).toBe(200);
  });

  it('sends the basic challenge header with a 401 in basic mode', async () => {
    const basic = () =>
      made(testServices((c) => ({ ...c, auth: { mode: 'basic', username: 'u', password: 'p' } })));
    const res = await respond(request('GET'), basic(), async () => ({}));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="dagu"');
  });

  it('still refuses a cross-origin mutation that carries the right credentials', async () => {
    const res = await respond(
      request('POST', { authorization: 'Bearer tok', host: '127.0.0.1:8080', origin: 'http://evil.example' }),
      withToken(),
      async () => ({}),
    );
    expect(res.status).toBe(403);
  });
});

describe('respond without auth', () => {
  it('checks the origin of every mutation, and answers a Reply with its status and headers', async () => {
    const svc = () => made(testServices());
    const cross = new Request('http://127.0.0.1:8080/api/v1/x', {
      method: 'POST',
      headers: { host: '127.0.0.1:8080', 'sec-fetch-site': 'cross-site' },
    });
    expect((await respond(cross, svc(), async () => ({}))).status).toBe(403);
    const res = await respond(
      new Request('http://127.0.0.1:8080/x'),
      svc(),
      async () => new Reply({ a: 1 }, 202, { 'Set-Cookie': 'x=1' }),
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('set-cookie')).toBe('x=1');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('cancelBodySchema', () => {
  it('takes 1 to 500 run IDs and nothing else', async () => {
    const body = (v: unknown) =>
      readJsonBody(new Request('http://h/x', { method: 'POST', body: JSON.stringify(v) }), cancelBodySchema);
    expect(await body({ run_ids: ['a', 'b'] })).toEqual({ run_ids: ['a', 'b'] });
    await expect(body({ run_ids: [] })).rejects.toThrow('run_ids: name at least one run');
    await expect(body({ run_ids: Array.from({ length: 501 }, (_, i) => `r${i}`) })).rejects.toThrow(
      'run_ids: at most 500 runs in one request',
    );
    await expect(body({})).rejects.toThrow(/run_ids/);
    await expect(body({ run_ids: ['a'], extra: 1 })).rejects.toThrow(/extra/);
    await expect(body({ run_ids: [1] })).rejects.toThrow(/run_ids\.0/);
  });
});
