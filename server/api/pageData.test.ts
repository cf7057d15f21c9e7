import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodePageData, pageDataFor } from './pageData';
import { testServices, type TestServices } from './testServices';
import { testRunStatus } from '../testing/testRunStatus';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

describe('pageDataFor', () => {
  it('looks up a DAG page and answers not found for a DAG that does not exist or cannot', async () => {
    svc.writeDag('hello', 'steps:\n  - name: s\n    command: echo hi\n');
    const found = await pageDataFor(svc, '/dags/hello');
    expect(found).toMatchObject({ key: 'dag:hello', outcome: 'found', value: { name: 'hello' } });
    expect(await pageDataFor(svc, '/dags/nope')).toEqual({ key: 'dag:nope', outcome: 'not_found' });
    expect(await pageDataFor(svc, '/dags/a%20b')).toEqual({ key: 'dag:a b', outcome: 'not_found' });
  });

  it('looks up a run page; a run not recorded yet is found as null, an impossible ID is not found', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r-1', status: 'succeeded' }));
    expect(await pageDataFor(svc, '/runs/r-1')).toMatchObject({ outcome: 'found', value: { run_id: 'r-1' } });
    expect(await pageDataFor(svc, '/runs/not-yet')).toEqual({
      key: 'run:not-yet',
      outcome: 'found',
      value: null,
    });
    expect(await pageDataFor(svc, '/runs/a.b')).toEqual({ key: 'run:a.b', outcome: 'not_found' });
  });

  it('needs nothing for other pages, and leaves a path that is not valid percent-encoding to Next', async () => {
    for (const p of ['/', '/dags', '/runs', '/queue', '/dags/x/y', '/dags/%E0%A4%A']) {
      expect(await pageDataFor(svc, p), p).toBeNull();
    }
  });

  it('encodes the data as base64url JSON, which any header carries whatever the names hold', () => {
    const data = { key: 'dag:x', outcome: 'found' as const, value: { description: 'Grüße ✓\r\n' } };
    const encoded = encodePageData(data);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'))).toEqual(data);
  });
});
