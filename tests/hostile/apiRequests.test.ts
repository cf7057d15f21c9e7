// Hostile and broken REST API requests, sent over HTTP to the very router and handlers `dagu server` serves
// /api/v1 with, on the real file stores of a seeded DAGU_HOME with auth.token configured: each gets its exact
// status and JSON error, and DAGU_HOME is byte for byte what it was (no run, no event, no queue item, no log).

import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES, apiNotFound } from '../../server/api/apiRoutes';
import { createApiRouter } from '../../server/api/apiRouter';
import { createServices } from '../../server/api/services';
import { loadConfig } from '../../server/config/loadConfig';
import { systemClock } from '../../server/core/clock';
import { RecordingLogger } from '../../server/testing/recordingLogger';
import { FileEventLog } from '../../server/store/fileEventLog';
import { snapshotTree } from './dataDirSnapshot';
import { seededHome, type SeededHome } from './seededHome';

const TOKEN = 'hostile-suite-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const RUN_ID_RULE = 'use 1 to 64 letters, digits, "_" or "-"';
const NO_CREDENTIALS =
  'authentication required: send Authorization: Bearer <auth.token>, or sign in to the console';
const DAG_RULE = 'use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")';

interface ApiCase {
  what: string;
  method: string;
  path: string;
  /** Sent as is; an object is sent as JSON. */
  body?: string | object | Buffer;
  /** Replaces the default headers (the token and JSON content type) when given. */
  headers?: Record<string, string>;
  /** Adds to the default headers. */
  extraHeaders?: Record<string, string>;
  /** Sends the body in chunks without a Content-Length. */
  chunked?: boolean;
  status: number;
  code: string;
  message: string;
}

const big = JSON.stringify({ params: ['x'.repeat(70_000)] });

const CASES: ApiCase[] = [
  {
    what: 'GET on a route that only takes POST',
    method: 'GET',
    path: '/api/v1/dags/good/start',
    status: 405,
    code: 'method_not_allowed',
    message: 'GET is not allowed on /api/v1/dags/good/start; use POST',
  },
  {
    what: 'DELETE of a run',
    method: 'DELETE',
    path: '/api/v1/runs/good-run',
    status: 405,
    code: 'method_not_allowed',
    message: 'DELETE is not allowed on /api/v1/runs/good-run; use GET',
  },
  {
    what: 'PUT on the cancel route',
    method: 'PUT',
    path: '/api/v1/queue/cancel',
    body: { run_ids: ['good-run'] },
    status: 405,
    code: 'method_not_allowed',
    message: 'PUT is not allowed on /api/v1/queue/cancel; use POST',
  },
  {
    what: 'a path no route serves',
    method: 'POST',
    path: '/api/v1/dags/good/obliterate',
    body: {},
    status: 404,
    code: 'not_found',
    message: 'no API route POST /api/v1/dags/good/obliterate',
  },
  {
    what: 'a cancel without its run_ids field',
    method: 'POST',
    path: '/api/v1/queue/cancel',
    body: {},
    status: 400,
    code: 'bad_request',
    message: 'run_ids: Invalid input: expected array, received undefined',
  },
  {
    what: 'a cancel of no runs',
    method: 'POST',
    path: '/api/v1/queue/cancel',
    body: { run_ids: [] },
    status: 400,
    code: 'bad_request',
    message: 'run_ids: name at least one run',
  },
  {
    what: 'a cancel of 501 runs',
    method: 'POST',
    path: '/api/v1/queue/cancel',
    body: { run_ids: Array.from({ length: 501 }, (_, i) => `r${i}`) },
    status: 400,
    code: 'bad_request',
    message: 'run_ids: at most 500 runs in one request',
  },
  {
    what: 'a parameter of the wrong type',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    body: { params: ['a', 2] },
    status: 400,
    code: 'bad_request',
    message: 'params.1: Invalid input: expected string, received number',
  },
  {
    what: 'a parameter with a NUL character, which no process can be given',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    body: { params: ['A=a\u0000b'] },
    status: 400,
    code: 'bad_request',
    message: 'params.0: a parameter cannot contain a NUL character',
  },
  {
    what: 'params given as a string',
    method: 'POST',
    path: '/api/v1/dags/good/enqueue',
    body: { params: 'A=1' },
    status: 400,
    code: 'bad_request',
    message: 'params: Invalid input: expected array, received string',
  },
  {
    what: 'an unknown body field',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    body: { parms: [] },
    status: 400,
    code: 'bad_request',
    message: 'body: Unrecognized key: "parms"',
  },
  {
    what: 'a body that is not JSON',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    body: '{params: [',
    status: 400,
    code: 'bad_request',
    message: 'request body is not valid JSON',
  },
  {
    what: 'a JSON list as the body',
    method: 'POST',
    path: '/api/v1/queue/cancel',
    body: '["good-run"]',
    status: 400,
    code: 'bad_request',
    message: 'body: Invalid input: expected object, received array',
  },
  {
    what: 'an oversized body with its length declared',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    body: big,
    status: 413,
    code: 'payload_too_large',
    message: 'request body exceeds 65536 bytes',
  },
  {
    what: 'an oversized body sent in chunks without a length',
    method: 'POST',
    path: '/api/v1/dags/good/enqueue',
    body: big,
    chunked: true,
    status: 413,
    code: 'payload_too_large',
    message: 'request body exceeds 65536 bytes',
  },
  {
    what: 'a run ID that climbs out of the runs directory',
    method: 'GET',
    path: '/api/v1/runs/..%2F..%2Fconfig',
    status: 400,
    code: 'bad_request',
    message: `invalid run ID "../../config": ${RUN_ID_RULE}`,
  },
  {
    what: 'a run ID with a NUL character on stop',
    method: 'POST',
    path: '/api/v1/runs/good-run%00x/stop',
    body: {},
    status: 400,
    code: 'bad_request',
    message: `invalid run ID "good-run\\u0000x": ${RUN_ID_RULE}`,
  },
  {
    what: 'a DAG name that climbs out of the DAGs directory',
    method: 'POST',
    path: '/api/v1/dags/..%2F..%2Fetc%2Fpasswd/start',
    body: {},
    status: 400,
    code: 'bad_request',
    message: `invalid DAG name "../../etc/passwd": ${DAG_RULE}`,
  },
  {
    what: 'a DAG name of 300 characters',
    method: 'GET',
    path: `/api/v1/dags/${'d'.repeat(300)}`,
    status: 400,
    code: 'bad_request',
    message: `invalid DAG name "${'d'.repeat(300)}": ${DAG_RULE}`,
  },
  {
    what: 'a queued run ID with "/" in the body',
    method: 'POST',
    path: '/api/v1/dags/good/enqueue',
    body: { run_id: '../x' },
    status: 400,
    code: 'bad_request',
    message: `invalid run ID "../x": ${RUN_ID_RULE}`,
  },
  {
    // A step name only picks a step of the run's status (a "/" is allowed in step names): no file is named.
    what: 'a step name that climbs out of the logs directory',
    method: 'GET',
    path: '/api/v1/runs/good-run/logs/..%2F..%2F..%2Fconfig.yaml',
    status: 404,
    code: 'not_found',
    message: 'run good-run has no step "../../../config.yaml"',
  },
  {
    what: 'a step name with a control character',
    method: 'GET',
    path: '/api/v1/runs/good-run/logs/a%0Ab',
    status: 400,
    code: 'bad_request',
    message: 'step: "a\\nb" is not a valid step name',
  },
  {
    what: 'a log console page of a step name that climbs out of the logs directory',
    method: 'GET',
    path: '/api/v1/runs/good-run/logs/..%2F..%2Fdata%2Fscheduler/lines',
    status: 404,
    code: 'not_found',
    message: 'run good-run has no step "../../data/scheduler"',
  },
  {
    what: 'a log download of a step name that climbs out of the logs directory',
    method: 'GET',
    path: '/api/v1/runs/good-run/logs/..%2F..%2Fconfig.yaml/download',
    status: 404,
    code: 'not_found',
    message: 'run good-run has no step "../../config.yaml"',
  },
  {
    what: 'a log search of a run ID that is a path',
    method: 'GET',
    path: '/api/v1/runs/..%2F..%2Fdata/log-search?q=token',
    status: 400,
    code: 'bad_request',
    message: `invalid run ID "../../data": ${RUN_ID_RULE}`,
  },
  {
    what: 'a log page that starts before the first line',
    method: 'GET',
    path: '/api/v1/runs/good-run/logs/s/lines?from=-5',
    status: 400,
    code: 'bad_request',
    message: 'from: "-5" must be a whole number from 0 to 9007199254740991',
  },
  {
    what: 'an event stream resumed from an ID that is a path',
    method: 'GET',
    path: '/api/v1/events/stream?after=..%2F..%2Fevents',
    status: 400,
    code: 'bad_request',
    message: 'after: "../../events" must be the id of an event',
  },
  {
    what: 'a search without a query',
    method: 'GET',
    path: '/api/v1/search?q=%20',
    status: 400,
    code: 'bad_request',
    message: 'q: give a DAG name, tag, word of a command or a run ID',
  },
  {
    what: 'a path that is not valid percent-encoding',
    method: 'GET',
    path: '/api/v1/runs/%E0%A4%A',
    status: 400,
    code: 'bad_request',
    message: 'the path "/api/v1/runs/%E0%A4%A" is not valid percent-encoding',
  },
  {
    what: 'a page size that is not a number',
    method: 'GET',
    path: '/api/v1/runs?limit=lots',
    status: 400,
    code: 'bad_request',
    message: 'limit: "lots" must be an integer from 1 to 500',
  },
  {
    what: 'an event cursor that was never handed out',
    method: 'GET',
    path: '/api/v1/events?after=..%2Fgarbage',
    status: 400,
    code: 'bad_request',
    message: 'after: must be the id of an event',
  },
  {
    what: 'an unauthenticated start',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    headers: { 'content-type': 'application/json' },
    body: {},
    status: 401,
    code: 'unauthorized',
    message: NO_CREDENTIALS,
  },
  {
    what: 'a start with a wrong token',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    headers: { authorization: 'Bearer not-the-token', 'content-type': 'application/json' },
    body: {},
    status: 401,
    code: 'unauthorized',
    message: 'the token is wrong (auth.token)',
  },
  {
    what: 'an unauthenticated cancel from another origin',
    method: 'POST',
    path: '/api/v1/queue/cancel',
    headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
    body: { run_ids: ['good-run'] },
    status: 401,
    code: 'unauthorized',
    message: NO_CREDENTIALS,
  },
  {
    what: 'an authenticated start sent by a page of another origin',
    method: 'POST',
    path: '/api/v1/dags/good/start',
    extraHeaders: { origin: 'http://evil.example' },
    body: {},
    status: 403,
    code: 'forbidden',
    message: 'cross-origin request refused (Origin: http://evil.example)',
  },
  {
    what: 'an authenticated retry marked cross-site by the browser',
    method: 'POST',
    path: '/api/v1/runs/good-run/retry',
    extraHeaders: { 'sec-fetch-site': 'cross-site' },
    body: {},
    status: 403,
    code: 'forbidden',
    message: 'cross-origin request refused (Sec-Fetch-Site: cross-site)',
  },
  {
    what: 'a step retry asking for downstream steps without naming a step',
    method: 'POST',
    path: '/api/v1/runs/good-run/retry',
    body: { downstream: true },
    status: 400,
    code: 'bad_request',
    message: 'body: downstream needs a step',
  },
  {
    what: 'a step retry naming the step with a number',
    method: 'POST',
    path: '/api/v1/runs/good-run/retry',
    body: { step: 7 },
    status: 400,
    code: 'bad_request',
    message: 'step: Invalid input: expected string, received number',
  },
  {
    what: 'an authenticated dequeue from an opaque origin',
    method: 'POST',
    path: '/api/v1/runs/good-run/dequeue',
    extraHeaders: { origin: 'null' },
    body: {},
    status: 403,
    code: 'forbidden',
    message: 'cross-origin request refused (Origin: null)',
  },
  {
    what: 'a stop of a run that does not exist',
    method: 'POST',
    path: '/api/v1/runs/no-such-run/stop',
    body: {},
    status: 404,
    code: 'not_found',
    message: 'run no-such-run not found',
  },
  {
    what: 'a dequeue of a finished run',
    method: 'POST',
    path: '/api/v1/runs/good-run/dequeue',
    body: {},
    status: 409,
    code: 'conflict',
    message: 'run good-run is not queued (status: succeeded)',
  },
  {
    what: 'a queued run under the ID of a finished one',
    method: 'POST',
    path: '/api/v1/dags/good/enqueue',
    body: { run_id: 'good-run' },
    status: 409,
    code: 'conflict',
    message: 'run good-run already exists',
  },
];

let home: SeededHome;
let server: http.Server;
let base: { host: string; port: number };
let logger: RecordingLogger;

beforeAll(async () => {
  home = await seededHome();
  const config = loadConfig({ env: { ...home.env, DAGU_AUTH_TOKEN: TOKEN } });
  logger = new RecordingLogger();
  const route = createApiRouter(
    createServices(config, logger, { clock: systemClock, env: process.env }),
    API_ROUTES,
    apiNotFound,
  );
  server = http.createServer((req, res) => {
    void route(req, res).then((served) => {
      if (!served) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  home.cleanup();
});

/** The fields of a case that only `send` reads, for requests outside the table. */
const NO_CASE = { what: '', status: 0, code: '', message: '' };

interface Answer {
  status: number;
  body: { error?: { code: string; message: string } } & Record<string, unknown>;
}

function send(c: ApiCase): Promise<Answer> {
  const payload =
    c.body === undefined
      ? undefined
      : typeof c.body === 'string' || Buffer.isBuffer(c.body)
        ? c.body
        : JSON.stringify(c.body);
  const headers: Record<string, string> = c.headers ?? {
    ...AUTH,
    'content-type': 'application/json',
    ...c.extraHeaders,
  };
  if (payload !== undefined && !c.chunked) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = http.request({ ...base, method: c.method, path: c.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Answer['body']) : {} });
      });
    });
    // The server may answer 413 and close before it has read everything.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' ? undefined : reject(err)));
    if (payload === undefined) req.end();
    else if (c.chunked) {
      const data = Buffer.from(payload);
      for (let at = 0; at < data.length; at += 16_384) req.write(data.subarray(at, at + 16_384));
      req.end();
    } else req.end(payload);
  });
}

describe('a hostile or broken API request', () => {
  it.each(CASES)('$what: $status with the exact error, and nothing written', async (c) => {
    const before = snapshotTree(home.home);
    const answer = await send(c);
    expect(answer.status).toBe(c.status);
    expect(answer.body.error?.code).toBe(c.code);
    expect(answer.body.error?.message).toBe(c.message);
    // Not in the data directory, nor a log directory for a run that never started.
    expect(snapshotTree(home.home)).toEqual(before);
  });

  it('answers HEAD on a GET route as GET without a body, and on a POST-only route 405', async () => {
    const head = (p: string) =>
      new Promise<{ status: number; length: number }>((resolve, reject) => {
        const req = http.request({ ...base, method: 'HEAD', path: p, headers: AUTH }, (res) => {
          let length = 0;
          res.on('data', (d: Buffer) => (length += d.length));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, length }));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await head(`/api/v1/runs/${home.runId}`)).toEqual({ status: 200, length: 0 });
    expect(await head('/api/v1/queue/cancel')).toEqual({ status: 405, length: 0 });
  });

  it('takes a DAG name ending in .yaml as a name, never as a file of the server’s working directory', async () => {
    const cwd = process.cwd();
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'dagu-cwd-'));
    writeFileSync(path.join(elsewhere, 'stray.yaml'), 'steps:\n  - name: leak\n    command: echo leaked\n');
    process.chdir(elsewhere);
    try {
      const before = snapshotTree(home.home);
      const shown = await send({ ...NO_CASE, method: 'GET', path: '/api/v1/dags/stray.yaml' });
      expect(shown).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'DAG "stray.yaml" not found' } },
      });
      const started = await send({
        ...NO_CASE,
        method: 'POST',
        path: '/api/v1/dags/stray.yaml/start',
        body: {},
      });
      expect(started).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'DAG "stray.yaml" not found' } },
      });
      expect(snapshotTree(home.home)).toEqual(before);
    } finally {
      process.chdir(cwd);
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('still serves the finished run, unchanged, after all of them', async () => {
    const answer = await send({
      what: '',
      method: 'GET',
      path: `/api/v1/runs/${home.runId}`,
      status: 200,
      code: '',
      message: '',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ run_id: home.runId, status: 'succeeded' });
  });
});

describe('a damaged line in the event log', () => {
  const get = (p: string) => send({ what: '', method: 'GET', path: p, status: 200, code: '', message: '' });
  const ids = (a: Answer) => (a.body.events as Array<{ id: string }>).map((e) => e.id);

  it('is reported once, kept, and the events around it are still served', async () => {
    const before = await get('/api/v1/events?limit=1000');
    expect(ids(before).length).toBeGreaterThan(0);
    const eventsDir = path.join(home.data, 'events');
    const file = path.join(eventsDir, readdirSync(eventsDir).sort().at(-1)!);
    // A whole line of junk, then a write torn off mid-record with the next event glued to it.
    appendFileSync(file, 'not an event\n{"id":"17960');
    const after = await new FileEventLog({ dataDir: home.data, clock: systemClock }).append(
      'hostile.after_damage',
      { ok: true },
    );
    const damaged = readFileSync(file, 'utf8');

    const listed = await get('/api/v1/events?limit=1000');
    expect(listed.status).toBe(200);
    expect(ids(listed)).toEqual([...ids(before), after.id]);
    await get('/api/v1/events?limit=1000');
    const lines = damaged.split('\n');
    const junk = lines.indexOf('not an event') + 1;
    expect(logger.lines.filter((l) => l.msg === 'Skipped a corrupt file').map((l) => l.fields)).toEqual([
      { path: file, error: `line ${junk} is not a whole event record (torn write?)` },
      { path: file, error: `line ${junk + 1} is not a whole event record (torn write?)` },
    ]);
    expect(readFileSync(file, 'utf8')).toBe(damaged);
  });
});
