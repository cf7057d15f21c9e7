import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testContext } from './actionTestContext';
import { runAction } from './runAction';
import type { ActionContext, ActionResult } from './types';

let dir: string;
let server: Server | null = null;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dagu-wait-action-'));
});
afterEach(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = null;
  }
  await rm(dir, { recursive: true, force: true });
});

function wait(op: string, w: Record<string, unknown>, overrides: Partial<ActionContext> = {}) {
  const ctx = testContext({ with: w, workingDir: dir, ...overrides });
  const started = performance.now();
  const done = runAction({ kind: 'wait', op, with: w }, ctx).then((result) => ({
    result,
    elapsedMs: performance.now() - started,
    out: ctx.out.text(),
  }));
  let settled = false;
  void done.then(() => (settled = true));
  return { done, settled: () => settled };
}

const OK: ActionResult = { exitCode: 0, error: null };

/** A local HTTP server; `handle` answers each request. */
async function serve(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/ready`;
}

describe('wait.duration', () => {
  it('waits the whole duration, prints nothing and succeeds', async () => {
    const { result, elapsedMs, out } = await wait('duration', { duration: '60ms' }).done;
    expect(result).toEqual(OK);
    expect(elapsedMs).toBeGreaterThanOrEqual(55);
    expect(out).toBe('');
  });

  it('ends at once, as a failure, when the step is stopped', async () => {
    const controller = new AbortController();
    const w = wait('duration', { duration: '1h' }, { signal: controller.signal });
    controller.abort(new Error('stop requested'));
    const { result, elapsedMs } = await w.done;
    expect(result).toEqual({ exitCode: 1, error: 'wait duration: stopped before the wait ended' });
    expect(elapsedMs).toBeLessThan(1000);
  });
});

describe('wait.until', () => {
  it('returns at once for a time already past', async () => {
    for (const until of [
      '2020-01-01T00:00:00Z',
      '2020-01-01T00:00:00,5-07:00',
      '2020-01-01T00:00:00.123456789Z',
    ]) {
      const { result, elapsedMs } = await wait('until', { until }).done;
      expect(result).toEqual(OK);
      expect(elapsedMs).toBeLessThan(1000);
    }
  });

  it('waits until the run clock reaches the time, offsets and fractions included', async () => {
    const until = '2030-06-01T12:00:00.25+02:00';
    const target = Date.parse('2030-06-01T10:00:00.250Z');
    const clock = { nowMs: () => target - 80, monoMs: () => 0 };
    const { result, elapsedMs } = await wait('until', { until }, { clock }).done;
    expect(result).toEqual(OK);
    expect(elapsedMs).toBeGreaterThanOrEqual(75);
    expect(elapsedMs).toBeLessThan(5000);
  });

  it('ends promptly when stopped while waiting for a far time', async () => {
    const controller = new AbortController();
    const w = wait('until', { until: '2999-01-01T00:00:00Z' }, { signal: controller.signal });
    controller.abort();
    expect((await w.done).result.exitCode).toBe(1);
  });
});

describe('wait.file', () => {
  it('polls until the file appears, relative to the working directory', async () => {
    const w = wait('file', { path: 'flags/ready.flag', poll_interval: '5ms' });
    await delay(40);
    expect(w.settled()).toBe(false);
    mkdirSync(join(dir, 'flags'));
    writeFileSync(join(dir, 'flags/ready.flag'), 'ready');
    expect((await w.done).result).toEqual(OK);
  });

  it('polls until the file is gone with state: missing', async () => {
    writeFileSync(join(dir, 'lock'), '');
    const w = wait('file', { path: join(dir, 'lock'), state: 'missing', poll_interval: '5ms' });
    await delay(40);
    expect(w.settled()).toBe(false);
    rmSync(join(dir, 'lock'));
    expect((await w.done).result).toEqual(OK);
  });

  it('fails when the path cannot be looked at, rather than waiting forever', async () => {
    writeFileSync(join(dir, 'plain'), '');
    const { result } = await wait('file', { path: 'plain/child', poll_interval: '5ms' }).done;
    expect(result).toEqual({
      exitCode: 1,
      error: `wait file: stat ${join(dir, 'plain/child')}: not a directory`,
    });
  });

  it('ends promptly when stopped', async () => {
    const controller = new AbortController();
    const w = wait('file', { path: 'never', poll_interval: '1h' }, { signal: controller.signal });
    await delay(20);
    controller.abort();
    const { result, elapsedMs } = await w.done;
    expect(result.exitCode).toBe(1);
    expect(elapsedMs).toBeLessThan(1000);
  });
});

describe('wait.http', () => {
  it('polls until the URL answers with the expected status, sending the method, headers and body', async () => {
    const seen: Array<{ method?: string; token?: string | string[]; body: string }> = [];
    let secondRequest!: () => void;
    const twoRequests = new Promise<void>((resolve) => (secondRequest = resolve));
    let ready = false;
    const url = await serve((req, res, body) => {
      seen.push({ method: req.method, token: req.headers['x-token'], body });
      if (seen.length === 2) secondRequest();
      res.writeHead(ready ? 204 : 503).end('not yet');
    });
    const w = wait('http', {
      url,
      method: 'post',
      status: '204',
      headers: { 'X-Token': 'abc' },
      body: 'ping',
      poll_interval: '5ms',
    });
    await twoRequests;
    expect(w.settled()).toBe(false);
    ready = true;
    expect((await w.done).result).toEqual(OK);
    expect(seen[0]).toEqual({ method: 'POST', token: 'abc', body: 'ping' });
  });

  it('expects 200 by default and keeps polling through refused connections', async () => {
    const url = await serve((_req, res) => res.writeHead(200).end());
    const port = Number(new URL(url).port);
    server!.close();
    server!.closeAllConnections();
    await new Promise<void>((resolve) => server!.once('close', resolve));
    const w = wait('http', { url, poll_interval: '5ms' });
    await delay(40);
    expect(w.settled()).toBe(false);
    server = createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    expect((await w.done).result).toEqual(OK);
  });

  it('gives up on a request after request_timeout and asks again', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      if (calls === 1) return; // never answers the first request
      res.writeHead(200).end();
    });
    const { result, elapsedMs } = await wait('http', { url, request_timeout: '50ms', poll_interval: '5ms' })
      .done;
    expect(result).toEqual(OK);
    expect(calls).toBe(2);
    expect(elapsedMs).toBeGreaterThanOrEqual(45);
  });

  it('ends promptly when stopped in the middle of a request', async () => {
    let requested!: () => void;
    const firstRequest = new Promise<void>((resolve) => (requested = resolve));
    const url = await serve(() => requested()); // never answers
    const controller = new AbortController();
    const w = wait('http', { url }, { signal: controller.signal });
    await firstRequest;
    controller.abort();
    const { result, elapsedMs } = await w.done;
    expect(result).toEqual({ exitCode: 1, error: 'wait http: stopped before the wait ended' });
    expect(elapsedMs).toBeLessThan(5000);
  });
});

describe('wait action settings', () => {
  it.each([
    ['duration', {}, 'wait: with.duration is required for duration'],
    ['duration', { duration: '5' }, "wait: with.duration: '5' has a number without a unit"],
    ['duration', { duration: '-1s' }, "wait: with.duration: '-1s' must be greater than 0"],
    [
      'duration',
      { duration: '1s', poll_interval: '0s' },
      "wait: with.poll_interval: '0s' must be greater than 0",
    ],
    ['duration', { duration: '1s', request_timeout: '' }, 'wait: with.request_timeout must not be empty'],
    [
      'until',
      { until: '2026-05-01 09:30:00' },
      "wait: with.until: '2026-05-01 09:30:00' is not an RFC 3339 timestamp",
    ],
    ['until', { until: '2026-05-01T09:30:00' }, 'is not an RFC 3339 timestamp'],
    ['until', { until: '2026-02-30T09:30:00Z' }, 'has a day out of range'],
    ['until', { until: '2026-05-01t09:30:00z' }, 'is not an RFC 3339 timestamp'],
    ['until', { until: '2026-05-01T09:30:00+24:00' }, 'has a time zone offset out of range'],
    ['file', {}, 'wait: with.path is required for file'],
    ['file', { path: 'x', state: 'present' }, "wait: with.state: 'present' is not 'exists' or 'missing'"],
    ['http', {}, 'wait: with.url is required for http'],
    [
      'http',
      { url: 'ftp://example.com/ready' },
      "wait: with.url: 'ftp://example.com/ready' is not an absolute http",
    ],
    ['http', { url: '/ready' }, 'is not an absolute http'],
    [
      'http',
      { url: 'http://x', status: 600 },
      'wait: with.status: 600 is not an HTTP status between 100 and 599',
    ],
    ['http', { url: 'http://x', method: ' ' }, 'wait: with.method must not be empty'],
    ['http', { url: 'http://x', timeout: '5s' }, 'wait: with.timeout is not a setting of wait actions'],
    ['sleep', {}, "wait: unsupported operation 'sleep'"],
  ])('wait.%s with %j is refused', async (op, w, message) => {
    const { result } = await wait(op, w).done;
    expect(result.exitCode).toBe(1);
    expect(result.error).toContain(message);
  });
});
