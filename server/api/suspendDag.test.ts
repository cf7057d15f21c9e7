import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API_ROUTES } from './apiRoutes';
import { getDag, listDags } from './dags';
import { NotFoundError } from './errors';
import { getOverview } from './overview';
import { DAG_RESUMED_EVENT, DAG_SUSPENDED_EVENT, setDagSuspended } from './suspendDag';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag('etl', 'schedule: "*/5 * * * *"\nsteps:\n  - command: echo hi\n');
  svc.writeDag('report', 'schedule: "0 * * * *"\nsteps:\n  - command: echo hi\n');
});
afterEach(() => svc.cleanup());

const AT = '2026-11-30T01:14:30Z';

function post(name: string, body: string, headers: Record<string, string> = {}) {
  const route = API_ROUTES.find((r) => r.path === '/api/v1/dags/:name/suspend')!;
  const req = new Request(`http://127.0.0.1:8080/api/v1/dags/${name}/suspend`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return route.handlers.POST!(svc, req, { name });
}

describe('setDagSuspended', () => {
  it('suspends a DAG: the flag, an event, the DAG list, the DAG page and the overview all say so', async () => {
    expect(await setDagSuspended(svc, 'etl', true, 'cli')).toEqual({
      name: 'etl',
      suspended: true,
      suspended_at: AT,
      suspended_by: 'cli',
      changed: true,
    });
    expect(await svc.suspendFlags.get('etl')).toEqual({ dag: 'etl', suspended_at: AT, by: 'cli' });
    expect((await svc.events.list({})).map((e) => [e.type, e.data])).toEqual([
      [DAG_SUSPENDED_EVENT, { dag: 'etl', by: 'cli' }],
    ]);
    const { dags } = await listDags(svc);
    expect(dags.map((d) => [d.name, d.suspended, d.suspended_at, d.next_run === null])).toEqual([
      ['etl', true, AT, true],
      ['report', false, null, false],
    ]);
    expect(await getDag(svc, 'etl')).toMatchObject({ suspended: true, suspended_at: AT, next_run: null });
    expect((await getOverview(svc)).counts.suspended_dags).toBe(1);
  });

  it('resumes it, and a second suspend or resume changes nothing and logs no event', async () => {
    await setDagSuspended(svc, 'etl', true, 'cli');
    expect((await setDagSuspended(svc, 'etl', true, 'api')).changed).toBe(false);
    expect(await setDagSuspended(svc, 'etl', false, 'api')).toEqual({
      name: 'etl',
      suspended: false,
      suspended_at: null,
      suspended_by: null,
      changed: true,
    });
    expect((await setDagSuspended(svc, 'etl', false, 'api')).changed).toBe(false);
    expect((await svc.events.list({})).map((e) => e.type)).toEqual([DAG_SUSPENDED_EVENT, DAG_RESUMED_EVENT]);
    expect((await getDag(svc, 'etl')).next_run).not.toBeNull();
    expect((await getOverview(svc)).counts.suspended_dags).toBe(0);
  });

  it('refuses a DAG that does not exist, and does not count the flag of a deleted one', async () => {
    await expect(setDagSuspended(svc, 'nope', true, 'cli')).rejects.toThrow(NotFoundError);
    await svc.suspendFlags.suspend({ dag: 'gone', suspended_at: AT, by: 'cli' });
    expect((await getOverview(svc)).counts.suspended_dags).toBe(0);
  });
});

describe('POST /api/v1/dags/:name/suspend', () => {
  it("takes Dagu's body {suspend: bool} and answers the new state", async () => {
    const res = await post('etl', '{"suspend":true}');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      name: 'etl',
      suspended: true,
      suspended_by: 'api',
      changed: true,
    });
    expect(await (await post('etl', '{"suspend":false}')).json()).toMatchObject({ suspended: false });
  });

  it('answers 400 naming the field for a body without a boolean suspend, and 404 for an unknown DAG', async () => {
    for (const body of ['{}', '{"suspend":"yes"}', '{"suspend":true,"x":1}']) {
      const res = await post('etl', body);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toMatch(/suspend|x/);
    }
    expect((await post('nope', '{"suspend":true}')).status).toBe(404);
    expect(await svc.suspendFlags.names()).toEqual(new Set());
  });

  it('refuses a cross-site request', async () => {
    const res = await post('etl', '{"suspend":true}', { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(await svc.suspendFlags.names()).toEqual(new Set());
  });
});
