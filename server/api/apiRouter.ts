// Serves /api/v1 requests from a route table (apiRoutes.ts) on the Node http server, converting between
// Node's request/response and the Fetch API the handlers speak. Every handler gets the context the router
// was made with: `dagu server` passes the services its command built, so there is one set per process and
// no module has to find them on its own.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

type Params = Record<string, string>;
type Handler<C> = (ctx: C, req: Request, params: Params) => Promise<Response> | Response;
export interface RouteEntry<C> {
  /** Path with `:name` segments, e.g. `/api/v1/runs/:id`. */
  path: string;
  handlers: Partial<Record<'GET' | 'POST', Handler<C>>>;
}

interface Compiled<C> {
  regex: RegExp;
  names: string[];
  handlers: RouteEntry<C>['handlers'];
}

/** A request handler for the routes; `notFound` answers any /api/v1 path that no route matches. */
export function createApiRouter<C>(
  ctx: C,
  routes: readonly RouteEntry<C>[],
  notFound: (req: Request) => Response,
) {
  const compiled: Compiled<C>[] = routes.map((r) => {
    const names: string[] = [];
    const source = r.path
      .split('/')
      .map((seg) => {
        if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(seg.slice(1));
        return '([^/]+)';
      })
      .join('/');
    return { regex: new RegExp(`^${source}/?$`), names, handlers: r.handlers };
  });

  /** Handles the request if it is an API path; returns false when it is not one. */
  return async function route(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
    if (!url.pathname.startsWith('/api/v1/') && url.pathname !== '/api/v1') return false;
    let handler: Handler<C> = (_ctx, request) => notFound(request);
    let params: Params = {};
    for (const c of compiled) {
      const m = c.regex.exec(url.pathname);
      if (!m) continue;
      // HEAD is a GET without the body (dropped below), as Next answers it for the same route files.
      const h = c.handlers[(req.method === 'HEAD' ? 'GET' : req.method) as 'GET' | 'POST'];
      const decoded = h ? decodeParams(c.names, m) : null;
      if (h && decoded) {
        handler = h;
        params = decoded;
      } else if (h) {
        handler = badEncoding(url.pathname);
      } else {
        handler = methodNotAllowed(Object.keys(c.handlers), url.pathname);
      }
      break;
    }
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    // Aborted when the client goes away, so a stream (events, a log download) or a long poll ends with it.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const request = new Request(url, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
      duplex: 'half',
      signal: gone.signal,
    } as RequestInit);
    const response = await handler(ctx, request, params);
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => (out[k] = v));
    res.writeHead(response.status, out);
    if (req.method === 'HEAD' || response.body === null) {
      await response.body?.cancel();
      res.end();
    } else if (isStreamed(response)) {
      await pipeBody(response.body, res, gone.signal);
    } else {
      res.end(Buffer.from(await response.arrayBuffer()));
    }
    return true;
  };
}

/** A body written as it is produced (events, downloads) rather than gathered first: no Content-Length. */
function isStreamed(response: Response): boolean {
  const type = response.headers.get('content-type') ?? '';
  return !type.startsWith('application/json') && response.headers.get('content-length') === null;
}

/** Writes a streamed body chunk by chunk, waiting for the socket to drain; stops when the client leaves. */
async function pipeBody(body: ReadableStream<Uint8Array>, res: ServerResponse, gone: AbortSignal) {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  gone.addEventListener('abort', stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || gone.aborted) break;
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          res.once('close', resolve);
        });
      }
    }
  } catch {
    // The producer failed or was cancelled because the client left: end what was sent.
  } finally {
    gone.removeEventListener('abort', stop);
    res.end();
  }
}

/** The path parameters, percent-decoded; null when one is not valid percent-encoding (`%E0%A4%A`). */
function decodeParams(names: string[], m: RegExpExecArray): Params | null {
  try {
    return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
  } catch {
    return null;
  }
}

/** The answer to a path whose parameters cannot be decoded: the caller's mistake, so 400 rather than 500. */
function badEncoding<C>(pathname: string): Handler<C> {
  return () =>
    Response.json(
      {
        error: {
          code: 'bad_request',
          message: `the path ${JSON.stringify(pathname)} is not valid percent-encoding`,
        },
      },
      { status: 400, headers: { 'Cache-Control': 'no-store' } },
    );
}

/** The answer to a known path asked with a method it does not serve: 405 naming the ones it does. */
function methodNotAllowed<C>(allowed: string[], pathname: string): Handler<C> {
  return (_ctx, req) =>
    Response.json(
      {
        error: {
          code: 'method_not_allowed',
          message: `${req.method} is not allowed on ${pathname}; use ${allowed.join(' or ')}`,
        },
      },
      { status: 405, headers: { Allow: allowed.join(', '), 'Cache-Control': 'no-store' } },
    );
}
