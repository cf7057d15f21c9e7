// A Dagu 1.30.2 home used as it is (fixtures/dagu-home-1.30.2: its config.yaml in Dagu's keys, its base.yaml,
// its DAGs and the run history and queue item 1.30.2 wrote): `dagu start`, `dagu scheduler` and `dagu server`
// start on it, name the Dagu settings they do not use in one warning, give every DAG base.yaml's values, and
// leave Dagu's own files as they were.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dagu,
  filesUnder,
  freePort,
  killProcessesWithHome,
  type Service,
  startService,
  eventually,
} from './harness';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'dagu-home-1.30.2');
const WARNING =
  'config.yaml: Dagu settings not used by this product: navbarColor, navbarTitle, ui.maxDashboardPageLimit, ' +
  'permissions.runDAGs, latestStatusToday';

let home: string;
let env: NodeJS.ProcessEnv;
let services: Service[];

beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-home-'));
  cpSync(FIXTURE, home, { recursive: true });
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DAGU_')));
  env = {
    ...clean,
    DAGU_HOME: home,
    DAGU_SCHEDULER_PORT: '0',
    DAGU_RUN_PRESTART: 'false',
    DAGU_RUN_HEARTBEAT_INTERVAL: '500ms',
    DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s',
  } as unknown as NodeJS.ProcessEnv;
  services = [];
});
afterEach(async () => {
  await Promise.all(services.map((s) => s.stop('SIGKILL')));
  killProcessesWithHome(home);
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

/** The files 1.30.2 wrote, read from the fixture (paths relative to a home). */
function fixtureFiles(): Map<string, string> {
  return filesUnder(FIXTURE, ['data', 'logs']);
}

/** Dagu's files in the home now, for the same paths: each must still be there, unchanged. */
function expectDaguFilesUntouched(): void {
  const before = fixtureFiles();
  expect(before.size).toBeGreaterThan(5);
  for (const [rel, text] of before) expect(readFileSync(path.join(home, rel), 'utf8'), rel).toBe(text);
}

describe('a Dagu 1.30.2 home', () => {
  it('dagu start runs a DAG with base.yaml merged in, warns once, and leaves Dagu history alone', async () => {
    const r = await dagu(['start', 'hello'], env);
    expect(r.code, r.stderr).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('Dagu settings not used'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(WARNING);
    const runId = /^\S+ (\S+) \(attempt/m.exec(r.stdout)![1];
    const s = await dagu(['status', '--json', runId], env);
    expect(s.code, s.stderr).toBe(0);
    const status = JSON.parse(s.stdout) as { status: string; steps: Array<{ stdout: string }> };
    expect(status.status).toBe('succeeded');
    // As 1.30.2 printed for the same files: the base's variable, and the DAG's own value of a shared one.
    expect(readFileSync(path.join(home, 'logs', status.steps[0].stdout), 'utf8')).toContain(
      'base=inherited-from-base shared=dag',
    );
    expectDaguFilesUntouched();
  });

  it('dagu scheduler runs scheduled DAGs with the base values and does not take Dagu queue items', async () => {
    writeFileSync(
      path.join(home, 'dags', 'tick.yaml'),
      'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: echo "tick $FROM_BASE"\n',
    );
    const port = await freePort();
    const s = startService(['scheduler'], { ...env, DAGU_SCHEDULER_PORT: String(port) });
    services.push(s);
    await s.waitFor(/Dagu settings not used by this product/, 60_000);
    expect(s.output()).toContain(WARNING);
    const { FileRunStore } = await import('../../server/store/fileRunStore');
    const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
    const done = await eventually(
      async () => {
        const page = await store.listRuns({ dag: 'tick', limit: 50 });
        return page.items.find((x) => x.status === 'succeeded');
      },
      60_000,
      250,
    );
    const run = await store.readStatus(done.run_id);
    if (run.kind !== 'ok') throw new Error(`run ${done.run_id}: ${run.kind}`);
    expect(readFileSync(path.join(home, 'logs', run.status.steps[0].stdout!), 'utf8')).toContain(
      'tick inherited-from-base',
    );
    // The runs it starts are quiet: the warning is the scheduler's, once, not repeated by every run.
    expect(s.output().split('Dagu settings not used').length - 1).toBe(1);
    // Dagu's queued run of hello is not ours: nothing of hello ran, and its item is still there.
    expect((await store.listRuns({ dag: 'hello', limit: 50 })).items).toEqual([]);
    expect(await s.stop()).toBe(0);
    expectDaguFilesUntouched();
  });

  it('dagu server serves the DAGs and lists only its own runs', async () => {
    const port = await freePort();
    const s = startService(['server', '--port', String(port)], env);
    services.push(s);
    const api = `http://127.0.0.1:${port}/api/v1`;
    const dag = await eventually(
      async () => {
        const res = await fetch(`${api}/dags/hello`, { signal: AbortSignal.timeout(5000) });
        return res.ok ? ((await res.json()) as Record<string, unknown>) : null;
      },
      90_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\nserver output:\n${s.output()}`);
    });
    expect(JSON.stringify(dag)).toContain('inherited-from-base');
    const runs = (await (await fetch(`${api}/runs?dag=hello`)).json()) as { items: unknown[] };
    expect(runs.items).toEqual([]);
    expect(s.output()).toContain(WARNING);
    expectDaguFilesUntouched();

    // A run started from the API is forked by the server's launch relay (its child), not by the server.
    const start = await fetch(`${api}/dags/hello/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(start.ok, await start.clone().text()).toBe(true);
    const { run_id } = (await start.json()) as { run_id: string };
    const children = spawnSync('ps', ['-o', 'args=', '--ppid', String(s.child.pid)], {
      encoding: 'utf8',
    }).stdout;
    expect(children).toMatch(/dagu-launch-relay/);
    const done = await eventually(async () => {
      const run = (await (await fetch(`${api}/runs/${run_id}`)).json()) as { status: string };
      return run.status === 'succeeded' ? run : null;
    }, 30_000);
    expect(done.status).toBe('succeeded');
  });
});
