// Hosts the console and the REST API for `dagu server` / `dagu start-all`: a Node http server answering
// /api/v1 (apiRoutes.ts), /livez and /metrics itself and handing pages to Next.js (required lazily from
// node_modules, so other commands never load it). Next only renders pages: the data a page needs on the
// server is looked up here and passed in a request header (pageData.ts), so no server module is loaded
// twice. The configured auth guards the pages and /metrics here (webGuard.ts) and the API in `respond`.

import { existsSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type next_ from 'next';
import path from 'node:path';
import type { Logger } from '../core/ports';
import { SECOND } from '../core/units';
import { createMetrics } from '../metrics/metrics';
import { createApiRouter } from './apiRouter';
import { eventHubOf } from './eventStream';
import { API_ROUTES, apiNotFound } from './apiRoutes';
import { encodePageData, PAGE_DATA_HEADER, pageDataFor } from './pageData';
import type { Services } from './services';
import { guardRequest } from './webGuard';

const CLOSE_GRACE_MS = 3 * SECOND;

export interface WebServerOptions {
  /** The process's services (built by the command): the API, the pages' data and /metrics use them. */
  services: Services;
  logger: Logger;
  /** Project root: where `.next/` (from `next build`) and next.config.mjs live. */
  dir: string;
  host: string;
  /** 0 picks a free port; the chosen one is returned. */
  port: number;
}

export interface WebServer {
  port: number;
  close(): Promise<void>;
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const { logger, services } = opts;
  if (!existsSync(path.join(opts.dir, '.next', 'BUILD_ID'))) {
    throw new Error(
      `the console is not built (no .next/BUILD_ID in ${opts.dir}); run \`npm run build\` first`,
    );
  }
  const api = createApiRouter(services, API_ROUTES, apiNotFound);

  // Loaded with require from the project root: Next is CommonJS, stays outside the CLI bundle, and only
  // this command pays for loading it.
  const next = createRequire(path.join(opts.dir, 'package.json'))('next') as typeof next_;
  const app = next({ dev: false, dir: opts.dir, hostname: opts.host, port: opts.port });
  const handle = app.getRequestHandler();
  await app.prepare();

  /**
   * Hands a page to Next, with the data it renders on the server in its header (never the browser's). A
   * prefetch gets none: Next renders it only down to the loading boundary, never the page itself.
   */
  async function renderPage(req: IncomingMessage, res: ServerResponse, pathname: string) {
    delete req.headers[PAGE_DATA_HEADER];
    const wanted = (req.method === 'GET' || req.method === 'HEAD') && !req.headers['next-router-prefetch'];
    const data = wanted ? await pageDataFor(services, pathname) : null;
    if (data) req.headers[PAGE_DATA_HEADER] = encodePageData(data);
    await handle(req, res);
  }

  const metrics = createMetrics(services.config, {
    clock: services.clock,
    workers: services.workers,
    tasks: services.tasks,
    queue: services.queue,
    runs: services.runs,
    instances: services.instances,
    suspendFlags: services.suspendFlags,
    eventFeed: services.eventFeed,
    logger: services.logger,
  });
  const auth = services.config.auth;
  const server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0];
    const refusal = guardRequest(auth, pathname, {
      authorization: req.headers.authorization ?? null,
      cookie: req.headers.cookie ?? null,
    });
    if (refusal) {
      res.writeHead(refusal.status, refusal.headers);
      res.end(req.method === 'HEAD' ? undefined : refusal.body);
      return;
    }
    if (pathname === '/metrics' && req.method === 'GET') {
      metrics.registry
        .metrics()
        .then((text) => {
          res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
          res.end(text);
        })
        .catch((err: Error) => {
          res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
          res.end(`metrics failed: ${err.message}\n`);
        });
      return;
    }
    if (req.url === '/livez' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : 'ok\n');
      return;
    }
    api(req, res)
      .then((served) => (served ? undefined : renderPage(req, res, pathname)))
      .catch((err: unknown) => {
        logger.error('Request failed', {
          url: req.url,
          error: err instanceof Error ? err.message : String(err),
        });
        if (!res.headersSent) res.statusCode = 500;
        res.end('internal error');
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  services.listen = { host: opts.host, port };
  // The first overview reads the whole event log once (the failover history); do it before anyone waits.
  void services.consoleCache.sync();
  logger.debug('Web server listening', { url: `http://${formatHost(opts.host)}:${port}` });

  let closing: Promise<void> | null = null;
  return {
    port,
    close() {
      closing ??= (async () => {
        // Event streams never end on their own: end them, or every open tab would hold the close up.
        eventHubOf(services).closeAll();
        await new Promise<void>((resolve) => {
          // In-flight requests may finish for a moment; then whatever is still open is cut.
          const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
        await app.close();
      })();
      return closing;
    },
  };
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
