import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeSelfSignedCert } from '../../testing/selfSignedCert';
import { CollectingSink, testContext } from './actionTestContext';
import { runHttpAction } from './httpAction';

let dir: string;
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-http-action-'));
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await rm(dir, { recursive: true, force: true });
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A real HTTP server on a free port; `seen` records each request with its body. */
async function httpServer(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => unknown,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      void handler(req, res, body);
    });
  });
  return { url: await listen(server), seen };
}

async function listen(server: Server | TcpServer, protocol = 'http'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `${protocol}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A TCP server that answers every request with exactly these bytes: the test knows every header. */
async function rawHttpServer(response: string): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.once('data', () => socket.end(response));
    socket.on('error', () => {});
  });
  return listen(server);
}

describe('http action', () => {
  it('sends headers and query and prints only the body of a silent 2xx answer', async () => {
    const server = await httpServer((_req, res) => res.end('test response'));
    const ctx = testContext({
      with: {
        method: 'get',
        url: `${server.url}/path?x=1`,
        headers: { Authorization: 'Bearer t' },
        query: { b: 'two words', a: '1' },
        silent: true,
      },
    });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('test response');
    expect(server.seen[0]).toMatchObject({ method: 'GET', url: '/path?x=1&a=1&b=two+words' });
    expect(server.seen[0]!.headers.authorization).toBe('Bearer t');
  });

  it("prints the status line, Go's sorted canonical header lines and the body in text mode", async () => {
    const url = await rawHttpServer(
      'HTTP/1.1 200 OK\r\nx-b: 2\r\ncontent-type: text/plain\r\nX-A: 1\r\nX-A: 3\r\nContent-Length: 5\r\n\r\nhello',
    );
    const ctx = testContext({ command: [`GET ${url}/`] });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe(
      '200 OK\nContent-Length: 5\r\nContent-Type: text/plain\r\nX-A: 1\r\nX-A: 3\r\nX-B: 2\r\nhello',
    );
  });

  it('leaves Transfer-Encoding out of the headers of a chunked answer', async () => {
    const url = await rawHttpServer(
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n2\r\nhi\r\n0\r\n\r\n',
    );
    const ctx = testContext({ command: ['GET', url] });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('200 OK\nX-A: 1\r\nhi');
  });

  it('writes {status_code, headers, body} indented by one space in JSON mode', async () => {
    const body = '{"b":1,"a":"<x>","list":[]}';
    const url = await rawHttpServer(
      `HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const ctx = testContext({ with: { method: 'POST', url, format: 'json' } });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe(
      [
        '{',
        ' "status_code": 201,',
        ' "headers": {',
        '  "Content-Length": [',
        `   "${body.length}"`,
        '  ],',
        '  "Content-Type": [',
        '   "application/json"',
        '  ]',
        ' },',
        ' "body": {',
        '  "a": "\\u003cx\\u003e",',
        '  "b": 1,',
        '  "list": []',
        ' }',
        '}',
      ].join('\n'),
    );
  });

  it('leaves status and headers zero and null in silent JSON mode, as Dagu does', async () => {
    const server = await httpServer((_req, res) => res.end('[1,2]'));
    const ctx = testContext({ with: { method: 'GET', url: server.url, json: 'true', silent: 'true' } });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('{\n "status_code": 0,\n "headers": null,\n "body": [\n  1,\n  2\n ]\n}');
  });

  it('writes the request and the response status to stderr with debug', async () => {
    const server = await httpServer((_req, res) => res.end('ok'));
    const ctx = testContext({
      with: { method: 'GET', url: server.url, debug: true, silent: true, headers: { 'X-Trace': '1' } },
    });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.err.text()).toBe(`http: request GET ${server.url}/\nX-Trace: 1\nhttp: response 200 OK\n`);
    expect(ctx.out.text()).toBe('ok');
  });

  it('fails in JSON mode when the body is not JSON, saying so', async () => {
    const server = await httpServer((_req, res) => res.end('plain words'));
    const ctx = testContext({ with: { method: 'GET', url: server.url, format: 'json' } });
    const result = await runHttpAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain('the response body is not JSON');
  });

  it('fails on a non-2xx answer after printing it, even when silent', async () => {
    const server = await httpServer((_req, res) => {
      res.statusCode = 404;
      res.end('missing');
    });
    const ctx = testContext({ with: { method: 'GET', url: `${server.url}/x`, silent: true } });
    const result = await runHttpAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(result.error).toBe(`http: GET ${server.url}/x: status 404 Not Found is not 2xx`);
    expect(ctx.out.text()).toMatch(/^404 Not Found\n[\s\S]*missing$/);
  });

  it('reads the legacy form: method and URL in command, JSON settings in script', async () => {
    const server = await httpServer((_req, res) => res.end('ok'));
    const ctx = testContext({
      command: [`POST ${server.url}/hook`],
      script: JSON.stringify({ headers: { 'X-Token': 'abc' }, body: '{"k":"v"}', silent: true }),
      // Dagu reads the script instead of `with` when both are present.
      with: { silent: false, body: 'ignored' },
    });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('ok');
    const seen = server.seen[0]!;
    expect(seen.method).toBe('POST');
    expect(seen.body.toString()).toBe('{"k":"v"}');
    expect(seen.headers['x-token']).toBe('abc');
    expect(seen.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('sends form fields and files as multipart/form-data', async () => {
    const server = await httpServer((_req, res) => res.end('uploaded'));
    await writeFile(join(dir, 'report.txt'), 'report contents');
    const ctx = testContext({
      workingDir: dir,
      with: {
        method: 'POST',
        url: server.url,
        form: { description: 'nightly report' },
        files: { document: 'report.txt' },
        silent: true,
      },
    });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    const seen = server.seen[0]!;
    expect(seen.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const parsed = await new Request('http://x/', {
      method: 'POST',
      headers: { 'content-type': seen.headers['content-type']! },
      body: new Uint8Array(seen.body),
    }).formData();
    expect(parsed.get('description')).toBe('nightly report');
    const file = parsed.get('document') as File;
    expect(file.name).toBe('report.txt');
    expect(await file.text()).toBe('report contents');
  });

  it('writes the body to the output file and the status and headers to stdout', async () => {
    const url = await rawHttpServer('HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\npayload');
    const ctx = testContext({ workingDir: dir, with: { method: 'GET', url, output: 'out/body.bin' } });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(await readFile(join(dir, 'out/body.bin'), 'utf8')).toBe('payload');
    expect(ctx.out.text()).toBe('200 OK\nContent-Length: 7\r\n');
  });

  it('writes JSON metadata naming the output file instead of the body', async () => {
    const server = await httpServer((_req, res) => res.end('{"big":true}'));
    const ctx = testContext({
      workingDir: dir,
      with: { method: 'GET', url: server.url, output: 'payload.json', format: 'json' },
    });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    const meta = JSON.parse(ctx.out.text());
    expect(meta.output).toBe(join(dir, 'payload.json'));
    expect(meta).not.toHaveProperty('body');
    expect(await readFile(join(dir, 'payload.json'), 'utf8')).toBe('{"big":true}');
  });

  it('keeps the existing output file when the answer is an error', async () => {
    const server = await httpServer((_req, res) => {
      res.statusCode = 500;
      res.end('server failed');
    });
    await writeFile(join(dir, 'keep.txt'), 'old');
    const ctx = testContext({
      workingDir: dir,
      with: { method: 'GET', url: server.url, output: 'keep.txt', format: 'json', silent: true },
    });
    const result = await runHttpAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(await readFile(join(dir, 'keep.txt'), 'utf8')).toBe('old');
    expect(JSON.parse(ctx.out.text())).toMatchObject({ status_code: 500, body: 'server failed' });
  });

  it('follows a redirect, turning a POST into a GET', async () => {
    const server = await httpServer((req, res) => {
      if (req.url === '/old') {
        res.writeHead(302, { Location: '/new' });
        res.end();
      } else res.end(`${req.method} ${req.url}`);
    });
    const ctx = testContext({ with: { method: 'POST', url: `${server.url}/old`, body: 'x', silent: true } });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(ctx.out.text()).toBe('GET /new');
  });

  it('rejects a self-signed certificate unless skip_tls_verify is set', async () => {
    const { cert, key } = writeSelfSignedCert(dir);
    const server = createHttpsServer({ cert: readFileSync(cert), key: readFileSync(key) }, (_req, res) =>
      res.end('secure'),
    );
    const url = await listen(server, 'https');

    const strict = testContext({ with: { method: 'GET', url, silent: true } });
    const refused = await runHttpAction(strict);
    expect(refused.exitCode).toBe(1);
    expect(refused.error).toMatch(/certificate/);

    const lax = testContext({ with: { method: 'GET', url, silent: true, skip_tls_verify: true } });
    expect(await runHttpAction(lax)).toEqual({ exitCode: 0, error: null });
    expect(lax.out.text()).toBe('secure');
  });

  it('streams a large body to stdout while the server is still sending it', async () => {
    let sawFirstBytes!: () => void;
    const firstBytes = new Promise<void>((resolve) => (sawFirstBytes = resolve));
    const sink = new CollectingSink(() => sawFirstBytes());
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const server = await httpServer(async (_req, res) => {
      res.write(chunk);
      // The rest is sent only once the step's stdout has received the first part: a client that
      // buffered the whole body before writing it would never get there.
      await firstBytes;
      for (let i = 0; i < 31; i++) {
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    });
    const ctx = testContext({ stdout: sink, with: { method: 'GET', url: server.url, silent: true } });
    expect(await runHttpAction(ctx)).toEqual({ exitCode: 0, error: null });
    expect(sink.bytes).toBe(32 * 1024 * 1024);
  });

  it('gives up after with.timeout seconds when no answer comes', async () => {
    const server = await httpServer(() => {}); // never answers
    const ctx = testContext({ with: { method: 'GET', url: server.url, timeout: 1 } });
    const started = Date.now();
    const result = await runHttpAction(ctx);
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain('no complete response within 1s (with.timeout)');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('ends promptly when the step is stopped during a slow request', async () => {
    let received!: () => void;
    const requestArrived = new Promise<void>((resolve) => (received = resolve));
    const server = await httpServer(() => received()); // never answers
    const stop = new AbortController();
    const ctx = testContext({ signal: stop.signal, with: { method: 'GET', url: server.url } });
    const running = runHttpAction(ctx);
    await requestArrived;
    const stoppedAt = Date.now();
    stop.abort();
    const result = await running;
    expect(result).toEqual({ exitCode: 1, error: `http: GET ${server.url}/: stopped` });
    expect(Date.now() - stoppedAt).toBeLessThan(1_000);
  });

  it('fails with a clear error for an unreachable server', async () => {
    const server = await httpServer((_req, res) => res.end());
    const url = server.url;
    for (const close of closers.splice(0)) await close(); // now nothing listens on that port
    const result = await runHttpAction(testContext({ with: { method: 'GET', url } }));
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it.each([
    [{ method: 'GET' }, 'http: url is required (with.url, or after the method in command)'],
    [{ url: 'http://127.0.0.1:1/' }, 'http: method is required (with.method, or first word of command)'],
    [{ method: 'GE T', url: 'http://127.0.0.1:1/' }, "http: method 'GE T' is not a valid HTTP method"],
    [{ method: 'GET', url: 'not a url' }, "http: url 'not a url' is not an absolute URL"],
    [{ method: 'GET', url: 'ftp://host/x' }, "http: url 'ftp://host/x' must use http or https"],
    [
      { method: 'POST', url: 'http://127.0.0.1:1/', body: 'b', form: { a: '1' } },
      'http: body cannot be combined with form or files',
    ],
    [
      { method: 'GET', url: 'http://127.0.0.1:1/', timeout: 'soon' },
      "http: with.timeout: 'soon' is not a whole number",
    ],
    [{ method: 'GET', url: 'http://127.0.0.1:1/', timeout: -3 }, 'http: with.timeout: -3 is negative'],
    [
      { method: 'GET', url: 'http://127.0.0.1:1/', silent: 'maybe' },
      "http: with.silent: 'maybe' is not true or false",
    ],
    [{ method: 'GET', url: 'http://127.0.0.1:1/', headers: ['x'] }, 'http: with.headers: ["x"] is not a map'],
  ])('refuses bad settings %j before sending anything', async (settings, error) => {
    expect(await runHttpAction(testContext({ with: settings }))).toEqual({ exitCode: 1, error });
  });

  it('refuses legacy script text that is not a JSON object', async () => {
    const result = await runHttpAction(testContext({ command: ['GET http://127.0.0.1:1/'], script: 'nope' }));
    expect(result.exitCode).toBe(1);
    expect(result.error).toMatch(/^http: script is not a JSON object of request settings/);
  });

  it('names a missing upload file', async () => {
    const result = await runHttpAction(
      testContext({
        workingDir: dir,
        with: { method: 'POST', url: 'http://127.0.0.1:1/', files: { f: 'nope.txt' } },
      }),
    );
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain(`http: with.files.f: cannot read '${join(dir, 'nope.txt')}'`);
  });
});
