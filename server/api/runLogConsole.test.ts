import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
import { API_ROUTES } from './apiRoutes';
import { enqueueDag } from './queue';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let run: RunStatus;

beforeEach(async () => {
  svc = testServices();
  svc.writeDag(
    'hello',
    'steps:\n  - name: greet\n    command: echo hi\n  - name: second step\n    command: echo b\n  - name: later\n    command: "true"\n',
  );
  run = await enqueueDag(svc, 'hello', []);
});
afterEach(() => svc.cleanup());

/** Serves `url` through the route table, as the web server would. */
async function get(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const u = new URL(url, 'http://127.0.0.1:8080');
  for (const route of API_ROUTES) {
    const names: string[] = [];
    const source = route.path.replace(/:(\w+)/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const m = new RegExp(`^${source}$`).exec(u.pathname);
    if (!m || !route.handlers.GET) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    return route.handlers.GET(svc, new Request(u, { headers }), params);
  }
  throw new Error(`no route for ${url}`);
}

const json = async (res: Response) => ({
  status: res.status,
  body: (await res.json()) as Record<string, unknown>,
});

/** greet started second (with both streams), `second step` first (stdout only); `later` never started. */
async function withLogs(lines = 'hi\nthere\n'): Promise<void> {
  const enc = encodeURIComponent(run.run_id);
  const steps = run.steps.map((s) => {
    if (s.name === 'greet') {
      return {
        ...s,
        status: 'running' as const,
        started_at: '2026-11-30T01:00:02Z',
        stdout: svc.writeLog(`hello/${enc}/1/greet.out`, lines),
        stderr: svc.writeLog(`hello/${enc}/1/greet.err`, 'warn: careful\n'),
      };
    }
    if (s.name === 'second step') {
      return {
        ...s,
        status: 'succeeded' as const,
        started_at: '2026-11-30T01:00:01Z',
        stdout: svc.writeLog(`hello/${enc}/1/second.out`, 'first\n'),
      };
    }
    return s;
  });
  run = { ...run, status: 'running', steps };
  await svc.runs.writeStatus(run);
}

describe('GET /api/v1/runs/:id/log-sources', () => {
  it('lists each written log with its lines, in the order the steps started', async () => {
    await withLogs();
    const { status, body } = await json(await get(`/api/v1/runs/${run.run_id}/log-sources`));
    expect(status).toBe(200);
    expect(body.sources).toEqual([
      expect.objectContaining({ step: 'second step', stream: 'stdout', lines: 1, size: 6 }),
      expect.objectContaining({ step: 'greet', stream: 'stdout', lines: 2, step_status: 'running' }),
      expect.objectContaining({ step: 'greet', stream: 'stderr', lines: 1 }),
    ]);
  });
});

describe('GET /api/v1/runs/:id/logs/:step/lines', () => {
  it('serves a page of lines by number', async () => {
    await withLogs(Array.from({ length: 3000 }, (_, i) => `row ${i}`).join('\n'));
    const { status, body } = await json(
      await get(`/api/v1/runs/${run.run_id}/logs/greet/lines?from=1500&limit=3`),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({ step: 'greet', stream: 'stdout', from: 1500, total_lines: 3000 });
    expect(body.lines).toEqual(['row 1500', 'row 1501', 'row 1502']);
  });

  it('answers no lines for a step that has not written its log', async () => {
    await withLogs();
    const { body } = await json(await get(`/api/v1/runs/${run.run_id}/logs/later/lines`));
    expect(body).toMatchObject({ lines: [], total_lines: 0 });
  });

  it('refuses bad numbers and streams naming the parameter', async () => {
    await withLogs();
    for (const [q, field] of [
      ['from=-1', 'from'],
      ['limit=0', 'limit'],
      ['limit=5000', 'limit'],
      ['from=abc', 'from'],
      ['stream=stdin', 'stream'],
    ]) {
      const { status, body } = await json(await get(`/api/v1/runs/${run.run_id}/logs/greet/lines?${q}`));
      expect(status).toBe(400);
      expect((body.error as { message: string }).message).toMatch(new RegExp(`^${field}: `));
    }
  });
});

describe('path safety of the log console', () => {
  it('never takes a step name or run ID as a path', async () => {
    await withLogs();
    const hostile = ['..%2F..%2Fetc%2Fpasswd', '%2E%2E%2Fgreet', 'greet%00', 'a%5Cb'];
    for (const step of hostile) {
      const res = await get(`/api/v1/runs/${run.run_id}/logs/${step}/lines`);
      expect([400, 404]).toContain(res.status);
      const dl = await get(`/api/v1/runs/${run.run_id}/logs/${step}/download`);
      expect([400, 404]).toContain(dl.status);
    }
    for (const id of ['..%2F..%2Fdata', 'a%2Fb', '%2E%2E%2F']) {
      expect((await get(`/api/v1/runs/${id}/log-sources`)).status).toBe(400);
      expect((await get(`/api/v1/runs/${id}/log-download`)).status).toBe(400);
      expect((await get(`/api/v1/runs/${id}/log-search?q=x`)).status).toBe(400);
    }
  });

  it('refuses a status record whose log path leads outside the logs directory', async () => {
    const outside = path.join(path.dirname(svc.config.paths.log_dir), 'secret.txt');
    writeFileSync(outside, 'secret\n');
    run = {
      ...run,
      steps: run.steps.map((s) =>
        s.name === 'greet' ? { ...s, stdout: '../secret.txt', stderr: outside } : s,
      ),
    };
    await svc.runs.writeStatus(run);
    for (const url of [
      `/api/v1/runs/${run.run_id}/logs/greet/lines`,
      `/api/v1/runs/${run.run_id}/logs/greet/lines?stream=stderr`,
      `/api/v1/runs/${run.run_id}/logs/greet/download`,
      `/api/v1/runs/${run.run_id}/log-sources`,
      `/api/v1/runs/${run.run_id}/log-search?q=secret`,
      `/api/v1/runs/${run.run_id}/log-download`,
    ]) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(await res.text()).not.toContain('secret\\n');
    }
  });
});

describe('GET /api/v1/runs/:id/log-search', () => {
  it('finds lines in every log, with the step, stream and line number', async () => {
    await withLogs('alpha\nthe needle\nomega\n');
    const { status, body } = await json(
      await get(`/api/v1/runs/${run.run_id}/log-search?q=NEEDLE&context=1`),
    );
    expect(status).toBe(200);
    expect(body).toEqual({
      query: 'NEEDLE',
      truncated: false,
      matches: [
        { step: 'greet', stream: 'stdout', line: 1, text: 'the needle', before: ['alpha'], after: ['omega'] },
      ],
    });
  });

  it('keeps to the step, stream and limit asked for', async () => {
    await withLogs('e1\ne2\ne3\n');
    const stderr = await json(await get(`/api/v1/runs/${run.run_id}/log-search?q=e&stream=stderr`));
    expect((stderr.body.matches as unknown[]).length).toBe(1);
    const limited = await json(await get(`/api/v1/runs/${run.run_id}/log-search?q=e&step=greet&limit=2`));
    expect(limited.body).toMatchObject({ truncated: true });
    expect((limited.body.matches as unknown[]).length).toBe(2);
  });

  it('refuses an empty or too long query', async () => {
    await withLogs();
    expect((await get(`/api/v1/runs/${run.run_id}/log-search?q=`)).status).toBe(400);
    expect((await get(`/api/v1/runs/${run.run_id}/log-search?q=${'x'.repeat(201)}`)).status).toBe(400);
    expect((await get(`/api/v1/runs/${run.run_id}/log-search?q=x&context=9`)).status).toBe(400);
  });
});

describe('log downloads', () => {
  it("gives one step's file as an attachment with its length", async () => {
    await withLogs('hi\nthere\n');
    const res = await get(`/api/v1/runs/${run.run_id}/logs/second%20step/download`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="${run.run_id}.second_step.stdout.log"`,
    );
    expect(res.headers.get('content-length')).toBe('6');
    expect(await res.text()).toBe('first\n');
  });

  it('gives every log in start order, each under its heading', async () => {
    await withLogs('hi\nthere\n');
    const res = await get(`/api/v1/runs/${run.run_id}/log-download`);
    expect(res.headers.get('content-disposition')).toContain('all-steps.log');
    expect(await res.text()).toBe(
      '==> second step (stdout) <==\nfirst\n\n==> greet (stdout) <==\nhi\nthere\n\n==> greet (stderr) <==\nwarn: careful\n\n',
    );
  });

  it('refuses a download asked by a page of another site', async () => {
    await withLogs();
    const res = await get(`/api/v1/runs/${run.run_id}/log-download`, { 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(403);
  });
});
