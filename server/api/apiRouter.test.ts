import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiRouter } from './apiRouter';

let server: http.Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function serve(router: ReturnType<typeof createApiRouter>): Promise<string> {
  server = http.createServer((req, res) => {
    void router(req, res).then((served) => {
      if (!served) {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end('page');
      }
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('createApiRouter', () => {
  // The context every handler gets (dagu server passes its services).
  const ctx = { name: 'ctx' };
  const router = createApiRouter(
    ctx,
    [
      {
        path: '/api/v1/runs/:id',
        handlers: { GET: async (c, _req, params) => Response.json({ id: params.id, ctx: c.name }) },
      },
      {
        path: '/api/v1/runs/:id/stop',
        handlers: {
          POST: async (_c, req, params) =>
            Response.json(
              { id: params.id, body: await req.text(), origin: req.headers.get('origin') },
              { status: 202 },
            ),
        },
      },
    ],
    (req) => Response.json({ missing: `${req.method} ${new URL(req.url).pathname}` }, { status: 404 }),
  );

  it('passes its context and the decoded path parameters to the matching handler', async () => {
    const base = await serve(router);
    const r = await fetch(`${base}/api/v1/runs/a%2Db`);
    expect(await r.json()).toEqual({ id: 'a-b', ctx: 'ctx' });
  });

  it('hands the request body, headers and status through', async () => {
    const base = await serve(router);
    const r = await fetch(`${base}/api/v1/runs/x/stop`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { Origin: base },
    });
    expect(r.status).toBe(202);
    expect(await r.json()).toEqual({ id: 'x', body: '{"a":1}', origin: base });
  });

  it('answers an unknown API path with the not-found handler and leaves other paths alone', async () => {
    const base = await serve(router);
    expect(await (await fetch(`${base}/api/v1/nope`)).json()).toEqual({ missing: 'GET /api/v1/nope' });
    expect(await (await fetch(`${base}/runs`)).text()).toBe('page');
  });

  it('answers a known path asked with another method with 405 and the methods it serves', async () => {
    const base = await serve(router);
    const r = await fetch(`${base}/api/v1/runs/x`, { method: 'POST' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET');
    expect(await r.json()).toEqual({
      error: { code: 'method_not_allowed', message: 'POST is not allowed on /api/v1/runs/x; use GET' },
    });
  });

  it('answers a path parameter that is not valid percent-encoding 400, not 500', async () => {
    const base = await serve(router);
    const r = await fetch(`${base}/api/v1/runs/%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      error: {
        code: 'bad_request',
        message: 'the path "/api/v1/runs/%E0%A4%A" is not valid percent-encoding',
      },
    });
  });

  it('answers HEAD like GET without the body', async () => {
    const base = await serve(router);
    const r = await fetch(`${base}/api/v1/runs/x`, { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
  });
});

describe('createApiRouter: streamed answers', () => {
  it('sends a body that is not JSON as it is produced, and aborts the request when the client leaves', async () => {
    let aborted: () => void = () => undefined;
    const abortedOnce = new Promise<void>((r) => (aborted = r));
    const router = createApiRouter(
      {},
      [
        {
          path: '/api/v1/stream',
          handlers: {
            GET: async (_c, req) => {
              req.signal.addEventListener('abort', () => aborted());
              const body = new ReadableStream<Uint8Array>({
                start(controller) {
                  // One frame now; the rest never comes (like an event stream).
                  controller.enqueue(new TextEncoder().encode('data: first\n\n'));
                },
              });
              return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
            },
          },
        },
      ],
      () => new Response(null, { status: 404 }),
    );
    const base = await serve(router);
    const client = new AbortController();
    const res = await fetch(`${base}/api/v1/stream`, { signal: client.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe('data: first\n\n');
    client.abort();
    await abortedOnce;
  });
});
