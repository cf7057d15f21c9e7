import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
import { API_ROUTES } from './apiRoutes';
import { enqueueDag } from './queue';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let run: RunStatus;

beforeEach(async () => {
  svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hi\n');
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

const enc = () => encodeURIComponent(run.run_id);

describe('run artifacts API', () => {
  it('lists none for a run without artifacts, and 404s an unknown run', async () => {
    const res = await get(`/api/v1/runs/${enc()}/artifacts`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ run_id: run.run_id, artifacts: [] });
    expect((await get('/api/v1/runs/nope-123/artifacts')).status).toBe(404);
  });

  it('lists the artifacts with sizes and downloads one as an attachment', async () => {
    await svc.artifacts.put(run.run_id, 'reports/b.md', new TextEncoder().encode('# report'));
    await svc.artifacts.put(run.run_id, 'a.txt', new TextEncoder().encode('a'));
    expect(await (await get(`/api/v1/runs/${enc()}/artifacts`)).json()).toEqual({
      run_id: run.run_id,
      artifacts: [
        { path: 'a.txt', size: 1 },
        { path: 'reports/b.md', size: 8 },
      ],
    });
    const res = await get(
      `/api/v1/runs/${enc()}/artifacts/download?path=${encodeURIComponent('reports/b.md')}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="b.md"');
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(await res.text()).toBe('# report');
  });

  it('refuses hostile paths, a missing path and answers 404 for a missing artifact', async () => {
    for (const p of ['../../etc/passwd', '/etc/passwd', 'a/../../x']) {
      const res = await get(`/api/v1/runs/${enc()}/artifacts/download?path=${encodeURIComponent(p)}`);
      expect(res.status, p).toBe(400);
    }
    expect((await get(`/api/v1/runs/${enc()}/artifacts/download`)).status).toBe(400);
    expect((await get(`/api/v1/runs/${enc()}/artifacts/download?path=none.txt`)).status).toBe(404);
  });

  it('refuses a download asked for by another site', async () => {
    await svc.artifacts.put(run.run_id, 'a.txt', new TextEncoder().encode('a'));
    const res = await get(`/api/v1/runs/${enc()}/artifacts/download?path=a.txt`, {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(res.status).toBe(403);
  });
});
