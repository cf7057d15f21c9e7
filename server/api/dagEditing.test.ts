import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config/types';
import { testRunStatus } from '../testing/testRunStatus';
import { API_ROUTES } from './apiRoutes';
import { silentLogger } from '../core/ports';
import { DagMirror } from '../store/dagMirror';
import { MemoryDagDefinitions } from '../store/memoryDagDefinitions';
import { MirroredDagDefinitions } from '../store/mirroredDagDefinitions';
import { testServices, type TestServices } from './testServices';

const VALID = 'steps:\n  - name: a\n    run: echo a\n';
const ORIGIN = 'http://127.0.0.1:8080';

let svc: TestServices;
const writable = (on: boolean) => (c: Config) => ({ ...c, server: { permissions: { write_dags: on } } });
beforeEach(() => {
  svc = testServices(writable(true));
});
afterEach(() => svc.cleanup());

/** One request through the route table, as the browser sends it (same origin) unless `headers` say otherwise. */
async function call(
  method: 'GET' | 'POST',
  routePath: string,
  params: Record<string, string>,
  body?: unknown,
  headers: Record<string, string> = { origin: ORIGIN, host: '127.0.0.1:8080' },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read whichever answer shape they expect
): Promise<{ status: number; body: any }> {
  const route = API_ROUTES.find((r) => r.path === routePath)!;
  const url = ORIGIN + routePath.replace(/:([a-z]+)/g, (_, k: string) => encodeURIComponent(params[k]));
  const req = new Request(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
  });
  const res = await route.handlers[method]!(svc, req, params);
  return { status: res.status, body: await res.json() };
}

const dagFile = (name: string) => path.join(svc.config.paths.dags_dir, `${name}.yaml`);
const spec = (name: string) => call('GET', '/api/v1/dags/:name/spec', { name });
const save = (name: string, yaml: string, base_version: string) =>
  call('POST', '/api/v1/dags/:name/spec', { name }, { yaml, base_version });

describe('reading and checking a DAG file', () => {
  it('answers the text with its sha256 version and whether writes are allowed', async () => {
    svc.writeDag('etl', VALID);
    const r = await spec('etl');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      name: 'etl',
      file: 'etl.yaml',
      yaml: VALID,
      version: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      writable: true,
    });
    expect((await spec('nope')).status).toBe(404);
    expect((await spec('../etc')).status).toBe(400);
  });

  it('places each error of an invalid text by line and column, as dagu validate prints it, and writes nothing', async () => {
    svc.writeDag('etl', VALID);
    const r = await call(
      'POST',
      '/api/v1/dags/:name/validate',
      { name: 'etl' },
      { yaml: 'steps:\n  - name: a\n    run: echo a\n    depends: [ghost]\n' },
    );
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(false);
    expect(r.body.errors[0]).toMatchObject({ line: 4, field: 'steps[0].depends' });
    expect(r.body.errors[0].text).toMatch(/^etl\.yaml:4:\d+: steps\[0\]\.depends: /);
    const syntax = await call('POST', '/api/v1/dags/:name/validate', { name: 'etl' }, { yaml: 'steps: [\n' });
    expect(syntax.body.errors[0]).toMatchObject({
      line: expect.any(Number),
      column: expect.any(Number),
      field: '',
    });
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(VALID);
  });

  it('places a warning (a deprecated spelling) at the field it names', async () => {
    const yaml = 'steps:\n  - name: a\n    command: echo a\n';
    const r = await call('POST', '/api/v1/dags/:name/validate', { name: 'etl' }, { yaml });
    expect(r.body.valid).toBe(true);
    const w = r.body.warnings.find((x: { message: string }) => x.message.includes('steps[0].command'));
    expect(w).toMatchObject({ line: 3, column: 5, field: 'steps[0].command' });
    expect(w.text).toMatch(/^etl\.yaml:3:5: warning: .*steps\[0\]\.command/);
  });

  it("applies dagu validate's strict rules (a document without steps is refused)", async () => {
    const r = await call(
      'POST',
      '/api/v1/dags/:name/validate',
      { name: 'new' },
      { yaml: 'description: x\n' },
    );
    expect(r.body.valid).toBe(false);
    expect(r.body.errors.map((e: { field: string }) => e.field)).toContain('steps');
  });
});

describe('saving', () => {
  it('replaces the file when the text is valid and the base version is current, and records dag.saved', async () => {
    svc.writeDag('etl', VALID);
    const { body } = await spec('etl');
    const next = 'steps:\n  - name: b\n    run: echo b\n';
    const r = await save('etl', next, body.version);
    expect(r.status).toBe(200);
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(next);
    expect(r.body.version).not.toBe(body.version);
    expect(readdirSync(svc.config.paths.dags_dir)).toEqual(['etl.yaml']); // no temp file left behind
    const events = await svc.events.list({ types: ['dag.saved'] });
    expect(events.map((e) => e.data)).toEqual([
      { dag: 'etl', file: 'etl.yaml', from_version: body.version, version: r.body.version },
    ]);
  });

  it('refuses an invalid text with 422 and the errors, leaving the file as it was', async () => {
    svc.writeDag('etl', VALID);
    const { body } = await spec('etl');
    const r = await save('etl', 'steps:\n  - name: a\n    run: [\n', body.version);
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_dag');
    expect(r.body.errors.length).toBeGreaterThan(0);
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(VALID);
  });

  it('refuses with 409 and the text on disk when the file changed since it was loaded', async () => {
    svc.writeDag('etl', VALID);
    const { body } = await spec('etl');
    const onDisk = 'steps:\n  - name: disk\n    run: echo disk\n';
    writeFileSync(dagFile('etl'), onDisk);
    const r = await save('etl', 'steps:\n  - name: mine\n    run: echo mine\n', body.version);
    expect(r.status).toBe(409);
    expect(r.body.current).toEqual({ yaml: onDisk, version: (await spec('etl')).body.version });
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(onDisk);
    // Saving again on the disk's version (after merging) goes through.
    expect((await save('etl', VALID, r.body.current.version)).status).toBe(200);
  });

  it('lets only one of two saves from the same base version through', async () => {
    svc.writeDag('etl', VALID);
    const { body } = await spec('etl');
    const texts = ['x', 'y'].map((n) => `steps:\n  - name: ${n}\n    run: echo ${n}\n`);
    const results = await Promise.all(texts.map((t) => save('etl', t, body.version)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});

describe('create, rename, delete', () => {
  it('creates a DAG from a template, once; the name follows the DAG loader rules', async () => {
    const r = await call('POST', '/api/v1/dags', {}, { name: 'nightly', template: 'scheduled' });
    expect(r.status).toBe(201);
    expect(readFileSync(dagFile('nightly'), 'utf8')).toContain('schedule:');
    expect((await call('POST', '/api/v1/dags', {}, { name: 'nightly' })).status).toBe(409);
    for (const bad of ['../x', '.hidden', 'a/b', 'a..b', 'x'.repeat(65)]) {
      const refused = await call('POST', '/api/v1/dags', {}, { name: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/^name: /);
    }
    expect((await call('POST', '/api/v1/dags', {}, { name: 'x', template: 'nope' })).status).toBe(400);
    expect((await svc.events.list({ types: ['dag.created'] })).map((e) => e.data.dag)).toEqual(['nightly']);
  });

  it('renames a DAG, refusing a name that is taken and a DAG with a running run', async () => {
    svc.writeDag('a', VALID);
    svc.writeDag('b', VALID);
    const taken = await call('POST', '/api/v1/dags/:name/rename', { name: 'a' }, { new_name: 'b' });
    expect(taken.status).toBe(409);
    const ok = await call('POST', '/api/v1/dags/:name/rename', { name: 'a' }, { new_name: 'c' });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ name: 'c', file: 'c.yaml' });
    expect(existsSync(dagFile('a'))).toBe(false);
    expect(readFileSync(dagFile('c'), 'utf8')).toBe(VALID);
    await svc.runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'c', status: 'running' }));
    await svc.runs.markActive({ run_id: 'r1', dag_name: 'c', queue: 'c' });
    const busy = await call('POST', '/api/v1/dags/:name/rename', { name: 'c' }, { new_name: 'd' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.message).toMatch(/queued or running runs \(r1\)/);
    const events = await svc.events.list({ types: ['dag.renamed'] });
    expect(events.map((e) => e.data)).toEqual([
      { dag: 'a', new_name: 'c', from_file: 'a.yaml', file: 'c.yaml' },
    ]);
  });

  it('deletes a DAG file unless runs of it are active or it changed since the version given', async () => {
    svc.writeDag('etl', VALID);
    const stale = await call(
      'POST',
      '/api/v1/dags/:name/delete',
      { name: 'etl' },
      { base_version: 'sha256:0' },
    );
    expect(stale.status).toBe(409);
    await svc.runs.markActive({ run_id: 'q1', dag_name: 'etl', queue: 'etl' });
    expect((await call('POST', '/api/v1/dags/:name/delete', { name: 'etl' })).status).toBe(409);
    await svc.runs.unmarkActive('q1');
    const r = await call('POST', '/api/v1/dags/:name/delete', { name: 'etl' });
    expect(r.status).toBe(200);
    expect(existsSync(dagFile('etl'))).toBe(false);
    expect((await call('POST', '/api/v1/dags/:name/delete', { name: 'etl' })).status).toBe(404);
    expect((await svc.events.list({ types: ['dag.deleted'] })).map((e) => e.data.dag)).toEqual(['etl']);
  });
});

describe('on a store other than the DAGs directory, as on PostgreSQL', () => {
  /** The services of one host: the shared store, mirrored into this host's DAGs directory. */
  function onStore(store: MemoryDagDefinitions, host: TestServices): DagMirror {
    const mirror = new DagMirror({
      store,
      dir: host.config.paths.dags_dir,
      clock: host.clock,
      timers: { setTimeout: () => ({ id: 0 }), clearTimeout: () => undefined },
      logger: silentLogger,
    });
    host.dags = new MirroredDagDefinitions(store, mirror, silentLogger);
    return mirror;
  }

  /** The DAG files of the directory, without the mirror's hidden state file. */
  const dagFiles = () => readdirSync(svc.config.paths.dags_dir).filter((f) => !f.startsWith('.'));

  it('writes to the store, and the writer finds its write in its own DAGs directory at once', async () => {
    const store = new MemoryDagDefinitions();
    onStore(store, svc);
    expect((await call('POST', '/api/v1/dags', {}, { name: 'etl' })).status).toBe(201);
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe((await store.get('etl'))!.yaml);
    const { body } = await spec('etl');
    expect((await save('etl', VALID, body.version)).status).toBe(200);
    expect((await store.get('etl'))!.yaml).toBe(VALID);
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(VALID);
    expect(
      (await call('POST', '/api/v1/dags/:name/rename', { name: 'etl' }, { new_name: 'load' })).status,
    ).toBe(200);
    expect((await store.list()).map((d) => d.name)).toEqual(['load']);
    expect(dagFiles()).toEqual(['load.yaml']);
    expect((await call('POST', '/api/v1/dags/:name/delete', { name: 'load' })).status).toBe(200);
    expect(await store.list()).toEqual([]);
    expect(dagFiles()).toEqual([]);
  });

  it('refuses a save from another host whose copy is behind, by the version the store holds', async () => {
    const store = new MemoryDagDefinitions();
    const other = testServices(writable(true));
    try {
      onStore(store, svc);
      const otherMirror = onStore(store, other);
      await store.put('etl', VALID);
      await otherMirror.sync();
      const loaded = (await spec('etl')).body.version;
      const mine = 'steps:\n  - name: mine\n    run: echo mine\n';
      expect((await save('etl', mine, loaded)).status).toBe(200);
      // The other host has not synced since: its directory still holds the old text, its save is refused.
      expect(readFileSync(path.join(other.config.paths.dags_dir, 'etl.yaml'), 'utf8')).toBe(VALID);
      const route = API_ROUTES.find((r) => r.path === '/api/v1/dags/:name/spec')!;
      const req = new Request(`${ORIGIN}/api/v1/dags/etl/spec`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN, host: '127.0.0.1:8080' },
        body: JSON.stringify({ yaml: VALID + '# theirs\n', base_version: loaded }),
      });
      const res = await route.handlers.POST!(other, req, { name: 'etl' });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { current: { yaml: string } }).current.yaml).toBe(mine);
    } finally {
      other.cleanup();
    }
  });
});

describe('the same rules as every mutation', () => {
  const writes: Array<[string, string, Record<string, string>, unknown]> = [
    ['save', '/api/v1/dags/:name/spec', { name: 'etl' }, { yaml: VALID, base_version: 'x' }],
    ['create', '/api/v1/dags', {}, { name: 'new' }],
    ['rename', '/api/v1/dags/:name/rename', { name: 'etl' }, { new_name: 'other' }],
    ['delete', '/api/v1/dags/:name/delete', { name: 'etl' }, {}],
  ];

  it.each(writes)(
    '%s answers 403 naming the setting when server.permissions.write_dags is false',
    async (_, p, params, body) => {
      svc.cleanup();
      svc = testServices(writable(false));
      svc.writeDag('etl', VALID);
      const r = await call('POST', p, params, body);
      expect(r.status).toBe(403);
      expect(r.body.error.message).toMatch(/server\.permissions\.write_dags is false/);
      expect(readdirSync(svc.config.paths.dags_dir)).toEqual(['etl.yaml']);
      expect(readFileSync(dagFile('etl'), 'utf8')).toBe(VALID);
      expect((await spec('etl')).body.writable).toBe(false);
    },
  );

  it('serves the SMTP password masked when writes are off, as written when they are on', async () => {
    const text = `smtp:\n  host: mail\n  password: s3cret\n${VALID}`;
    svc.writeDag('mail', text);
    expect((await spec('mail')).body.yaml).toBe(text);
    svc.cleanup();
    svc = testServices(writable(false));
    svc.writeDag('mail', text);
    const r = await spec('mail');
    expect(r.body.yaml).toBe(text.replace('s3cret', '********'));
    expect(r.body.writable).toBe(false);
  });

  it.each(writes)('%s refuses a request from another origin', async (_, p, params, body) => {
    svc.writeDag('etl', VALID);
    const r = await call('POST', p, params, body, { origin: 'http://evil.example', host: '127.0.0.1:8080' });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toMatch(/cross-origin/);
    expect(readFileSync(dagFile('etl'), 'utf8')).toBe(VALID);
  });

  it('takes a DAG text larger than the 64 KiB of other bodies, up to the DAG file limit', async () => {
    svc.writeDag('etl', VALID);
    const big = `# ${'x'.repeat(100 * 1024)}\n${VALID}`;
    const r = await call('POST', '/api/v1/dags/:name/validate', { name: 'etl' }, { yaml: big });
    expect(r.status).toBe(200);
    expect(r.body.valid).toBe(true);
  });
});
