import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COORDINATOR_PATHS } from '../coordinator/protocol';
import { dagOf, stepOf, tempDir } from '../runner/testSupport';
import { CoordinatorClient, CoordinatorError, CoordinatorUnreachableError } from './coordinatorClient';
import { writeSelfSignedCert } from '../testing/selfSignedCert';
import { taskOf } from './testSupport';

type Handler = (req: IncomingMessage, body: unknown, res: ServerResponse) => void;

let server: Server;
let url: string;
let handler: Handler;
const seen: Array<{ method: string; path: string; auth: string | undefined; body: unknown }> = [];

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

beforeEach(async () => {
  seen.length = 0;
  handler = (_req, _body, res) => json(res, 200, {});
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : null;
      seen.push({ method: req.method!, path: req.url!, auth: req.headers.authorization, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('CoordinatorClient', () => {
  it('sends the bearer token with every request and JSON bodies to the protocol paths', async () => {
    const client = new CoordinatorClient({ url, token: 's3cret' });
    handler = (_req, _body, res) => json(res, 200, { cancel: ['run-9'] });
    const reply = await client.heartbeat({
      worker_id: 'w1',
      labels: { zone: 'b' },
      max_active_runs: 2,
      running: [],
      host: 'h',
      pid: 1,
    });
    client.close();

    expect(reply).toEqual({ cancel: ['run-9'] });
    expect(seen).toEqual([
      {
        method: 'POST',
        path: COORDINATOR_PATHS.heartbeat,
        auth: 'Bearer s3cret',
        body: expect.objectContaining({ worker_id: 'w1', labels: { zone: 'b' }, max_active_runs: 2 }),
      },
    ]);
  });

  it('sends the leave to its path and gives up on an unanswered one after the timeout it is given', async () => {
    const client = new CoordinatorClient({ url, token: 's3cret' });
    handler = (_req, _body, res) => json(res, 200, { removed: false, run_ids: ['r1'] });
    expect(await client.leave({ worker_id: 'w1' })).toEqual({ removed: false, run_ids: ['r1'] });
    expect(seen[0]).toEqual({
      method: 'POST',
      path: COORDINATOR_PATHS.leave,
      auth: 'Bearer s3cret',
      body: { worker_id: 'w1' },
    });

    handler = () => {}; // never answers
    const t0 = Date.now();
    await expect(client.leave({ worker_id: 'w1' }, 300)).rejects.toBeInstanceOf(CoordinatorUnreachableError);
    expect(Date.now() - t0).toBeLessThan(5000);
    client.close();
  });

  it('sends no authorization header when no token is configured', async () => {
    const client = new CoordinatorClient({ url, token: null });
    handler = (_req, _body, res) => json(res, 200, { status: 'healthy' });
    expect(await client.health()).toEqual({ status: 'healthy' });
    client.close();
    expect(seen[0].auth).toBeUndefined();
  });

  it('tells the operator to set the token when the coordinator answers 401', async () => {
    handler = (_req, _body, res) => json(res, 401, { error: { code: 'unauthorized', message: 'bad token' } });
    for (const token of ['wrong', null]) {
      const client = new CoordinatorClient({ url, token });
      const err = await client.listWorkers().catch((e: unknown) => e);
      client.close();
      expect(err).toBeInstanceOf(CoordinatorError);
      expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
      expect((err as Error).message).toContain('coordinator.token (DAGU_COORDINATOR_TOKEN)');
    }
  });

  it('turns an error body into a CoordinatorError with its status and code', async () => {
    handler = (_req, _body, res) =>
      json(res, 400, { error: { code: 'bad_request', message: 'labels: invalid' } });
    const client = new CoordinatorClient({ url, token: null });
    const err = await client
      .dispatch({ dag_name: 'd', run_id: 'r', params: [], worker_selector: null, parent: null })
      .catch((e: unknown) => e);
    client.close();
    expect(err).toMatchObject({ name: 'CoordinatorError', status: 400, code: 'bad_request' });
    expect((err as Error).message).toBe('coordinator answered 400: labels: invalid');
  });

  it('sends a log batch to the log path and reads a reply for each chunk', async () => {
    const client = new CoordinatorClient({ url, token: null });
    const batch = {
      worker_id: 'w1',
      attempt: 1,
      chunks: [
        { file: 'a.out', offset: 0, data: 'hi', encoding: 'utf8' as const },
        { file: 'a.err', offset: 0, data: '', encoding: 'utf8' as const },
      ],
    };
    handler = (_req, _body, res) =>
      json(res, 200, {
        replies: [
          { accepted: true, next_offset: 2 },
          { accepted: false, next_offset: 0 },
        ],
      });
    const replies = await client.sendLogs('run-1', batch);
    handler = (_req, _body, res) => json(res, 200, { replies: [{ accepted: true, next_offset: 2 }] });
    const short = await client.sendLogs('run-1', batch).catch((e: unknown) => e);
    handler = (_req, _body, res) =>
      json(res, 400, { error: { code: 'bad_request', message: 'file: expected string' } });
    const old = await client.sendLogs('run-1', batch).catch((e: unknown) => e);
    client.close();

    expect(replies).toEqual([
      { accepted: true, next_offset: 2 },
      { accepted: false, next_offset: 0 },
    ]);
    expect(seen[0]).toMatchObject({ method: 'POST', path: COORDINATOR_PATHS.logs('run-1'), body: batch });
    expect(short).toMatchObject({ name: 'CoordinatorError', code: 'bad_reply' });
    expect(old).toMatchObject({ name: 'CoordinatorError', status: 400, code: 'bad_request' });
  });

  it('returns a refused dispatch as a reply whatever its status code', async () => {
    handler = (_req, _body, res) =>
      json(res, 409, { outcome: 'refused', run_id: 'r', error: 'no worker matched the selector {zone: b}' });
    const client = new CoordinatorClient({ url, token: null });
    const reply = await client.dispatch({
      dag_name: 'd',
      run_id: 'r',
      params: [],
      worker_selector: null,
      parent: null,
    });
    client.close();
    expect(reply).toEqual({
      outcome: 'refused',
      run_id: 'r',
      error: 'no worker matched the selector {zone: b}',
    });
  });

  it('answers a poll with the task, or null on 204', async () => {
    const task = taskOf(dagOf([stepOf('a', 'true')]));
    const client = new CoordinatorClient({ url, token: null });
    handler = (_req, _body, res) => json(res, 200, { task });
    expect(await client.poll({ worker_id: 'w1', labels: {}, wait_ms: 100 })).toEqual(task);
    handler = (_req, _body, res) => {
      res.writeHead(204);
      res.end();
    };
    expect(await client.poll({ worker_id: 'w1', labels: {}, wait_ms: 100 })).toBeNull();
    client.close();
  });

  it('ends a held poll with null when its signal aborts', async () => {
    handler = () => {}; // holds the request open
    const client = new CoordinatorClient({ url, token: null });
    const ctl = new AbortController();
    const polled = client.poll({ worker_id: 'w1', labels: {}, wait_ms: 20_000 }, ctl.signal);
    await waitUntil(() => seen.length === 1);
    ctl.abort();
    expect(await polled).toBeNull();
    client.close();
  });

  it('reads a 409 ack and a 404/409 status report as refusals, and a 404 run as unknown', async () => {
    handler = (_req, _body, res) =>
      json(res, 409, { error: { code: 'conflict', message: 'claim not found' } });
    const client = new CoordinatorClient({ url, token: null });
    expect(await client.ack('t1', { worker_id: 'w1', token: 'x' })).toEqual({
      accepted: false,
      error: 'claim not found',
    });
    expect(await client.reportStatus('r1', { worker_id: 'w1', status: {} as never })).toMatchObject({
      accepted: false,
      cancel: false,
    });
    handler = (_req, _body, res) => json(res, 404, { error: { code: 'not_found', message: 'no run' } });
    expect(await client.getRun('r1')).toBeNull();
    client.close();
    expect(seen.map((s) => s.path)).toEqual([
      COORDINATOR_PATHS.ack('t1'),
      COORDINATOR_PATHS.status('r1'),
      COORDINATOR_PATHS.run('r1'),
    ]);
  });

  it('throws CoordinatorUnreachableError when nothing listens or the answer takes too long', async () => {
    const down = new CoordinatorClient({ url: 'http://127.0.0.1:1', token: null });
    await expect(down.health()).rejects.toBeInstanceOf(CoordinatorUnreachableError);
    down.close();

    handler = () => {};
    const slow = new CoordinatorClient({ url, token: null, requestTimeoutMs: 100 });
    const err = await slow.health().catch((e: unknown) => e);
    slow.close();
    expect(err).toBeInstanceOf(CoordinatorUnreachableError);
    expect((err as Error).message).toContain('did not answer GET /health within 0.1s');
  });
});

describe('CoordinatorClient over TLS', () => {
  it('trusts a self-signed coordinator only through the configured CA', async () => {
    const { dir, cleanup } = tempDir('dagu-tls-');
    try {
      writeSelfSignedCert(dir);
      const cert = readFileSync(`${dir}/cert.pem`, 'utf8');
      const tls = createHttpsServer({ key: readFileSync(`${dir}/key.pem`), cert }, (req, res) =>
        json(res, 200, { status: 'healthy', auth: req.headers.authorization }),
      );
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;

      const untrusting = new CoordinatorClient({ url: tlsUrl, token: 't' });
      await expect(untrusting.health()).rejects.toBeInstanceOf(CoordinatorUnreachableError);
      const trusting = new CoordinatorClient({ url: tlsUrl, token: 't', ca: cert });
      expect(await trusting.health()).toEqual({ status: 'healthy', auth: 'Bearer t' });
      untrusting.close();
      trusting.close();
      tls.closeAllConnections();
      await new Promise((resolve) => tls.close(resolve));
    } finally {
      cleanup();
    }
  });
});

/** Waits for `check` to hold, with a generous deadline (a loaded machine answers requests slowly). */
async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error('condition not met within 20 s');
}
