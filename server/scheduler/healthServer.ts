// The scheduler's health endpoint on scheduler.port: `GET /health` answers 200 with the role from memory
// (no file call, so it keeps answering while storage stalls), `?role=active` answers 503 unless active.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/ports';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

export function startHealthServer(opts: {
  host: string;
  port: number;
  role: () => string;
  logger: Logger;
}): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://health');
    if (url.pathname !== '/health' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'not_found', message: 'only GET /health is served here' } }));
      return;
    }
    const role = opts.role() === 'active' ? 'active' : 'standby';
    const wanted = url.searchParams.get('role');
    const code = wanted !== null && wanted !== role ? 503 : 200;
    res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : JSON.stringify({ status: 'healthy', role }));
  });
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', (err: Error) =>
      reject(
        new Error(
          `scheduler.port: cannot serve the health endpoint on ${opts.host}:${opts.port}: ${err.message}`,
        ),
      ),
    );
    server.listen(opts.port, opts.host, () => {
      server.removeAllListeners('error');
      const port = (server.address() as AddressInfo).port;
      opts.logger.info('Health endpoint listening', { host: opts.host, port });
      resolve({
        port,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
