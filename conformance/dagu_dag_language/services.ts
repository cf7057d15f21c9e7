// The local services some cases talk to: an HTTP server for `http` steps and an SMTP sink for `mail`.
// The sink is a minimal SMTP responder (greeting, EHLO/HELO, MAIL, RCPT, DATA, QUIT) that keeps each message's
// raw DATA text; it accepts anything and never relays.

import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';

export interface Started {
  httpUrl: string;
  smtpPort: number;
  mails(): string[];
  close(): Promise<void>;
}

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

/**
 * Routes: `GET /hello` → 200 `hello world`; `GET /json` → 200 `{"user":{"name":"ada","id":7}}`;
 * `GET /status/<n>` → status n; `POST /echo` → 200 with the request body; anything else 404.
 */
function httpServer(): Server {
  return createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (url.pathname === '/hello') {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-conf': 'yes' });
        res.end('hello world');
      } else if (url.pathname === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ user: { name: 'ada', id: 7 } }));
      } else if (url.pathname.startsWith('/status/')) {
        res.writeHead(Number(url.pathname.slice(8)) || 500, { 'content-type': 'text/plain' });
        res.end(`status ${url.pathname.slice(8)}`);
      } else if (url.pathname === '/echo') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`${req.method} ${body}`);
      } else {
        res.writeHead(404);
        res.end('not found');
      }
    });
  });
}

function smtpSink(store: string[]): TcpServer {
  return createTcpServer((sock) => {
    let buf = '';
    let inData = false;
    let data = '';
    sock.write('220 conformance-sink ESMTP\r\n');
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          data += buf.slice(0, end);
          buf = buf.slice(end + 5);
          inData = false;
          store.push(data.replace(/\r\n\.\./g, '\r\n.'));
          data = '';
          sock.write('250 OK queued\r\n');
          continue;
        }
        const nl = buf.indexOf('\r\n');
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO') sock.write('250-conformance-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'DATA') {
          inData = true;
          sock.write('354 end with <CRLF>.<CRLF>\r\n');
        } else if (verb === 'QUIT') {
          sock.end('221 bye\r\n');
          return;
        } else sock.write('250 OK\r\n');
      }
    });
    sock.on('error', () => undefined);
  });
}

export async function startServices(): Promise<Started> {
  const http = httpServer();
  const mails: string[] = [];
  const smtp = smtpSink(mails);
  const httpPort = await listen(http);
  const smtpPort = await listen(smtp);
  return {
    httpUrl: `http://127.0.0.1:${httpPort}`,
    smtpPort,
    mails: () => [...mails],
    close: async () => {
      http.closeAllConnections();
      await Promise.all([new Promise((r) => http.close(r)), new Promise((r) => smtp.close(r))]);
    },
  };
}
