import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { systemClock } from '../core/clock';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec, RunState } from '../core/types';
import type {
  CancelOutcome,
  DispatchParams,
  DispatchResult,
  DispatcherApi,
} from '../coordinator/dispatcherApi';
import { MemoryRunStore } from '../store/memoryRunStore';
import {
  localSubDagRunner,
  spawnChildProcess,
  waitForRunEnd,
  type ChildSpawner,
  type LocalSubDagDeps,
} from './localSubDag';
import { SubDagStartError, type SubDagRequest } from './subDag';
import { dagOf, stepOf, tempDir, waitFor } from './testSupport';

let dir: string;
let cleanup: () => void;
let config: Config;
let runs: MemoryRunStore;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-subdag-'));
  config = loadConfig({ env: { NODE_ENV: 'test', DAGU_HOME: dir } });
  runs = new MemoryRunStore();
});
afterEach(() => cleanup());

const childDag = (extra: Partial<DagSpec> = {}) =>
  dagOf([stepOf('work', 'true')], {
    name: 'child',
    queue: 'child',
    file: '/dags/child.yaml',
    params: [{ name: 'REGION', value: 'us' }],
    ...extra,
  });

/** Writes the child's record the way its process would: created in `state`. */
async function record(runId: string, dag: DagSpec, state: RunState, error: string | null = null) {
  const status = newRunStatus({
    dag,
    runId,
    status: state,
    triggerType: 'subdag',
    scheduleTime: null,
    params: [],
    nowIso: new Date().toISOString(),
  });
  const created = await runs.createRun({ ...status, error });
  if (!created.created) await runs.writeStatus({ ...status, error });
}

function request(extra: Partial<SubDagRequest> = {}): SubDagRequest {
  const logFiles = { stdout: join(dir, 'call.out'), stderr: join(dir, 'call.err') };
  writeFileSync(logFiles.stdout, '');
  writeFileSync(logFiles.stderr, '');
  return {
    parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call' },
    dagName: 'child',
    runId: 'parent-1-abc',
    params: ['REGION=eu'],
    workerSelector: null,
    signal: new AbortController().signal,
    logFiles,
    ...extra,
  };
}

function runner(dag: DagSpec | null, extra: Partial<LocalSubDagDeps> = {}) {
  return localSubDagRunner({
    config,
    runStore: runs,
    dispatcher: null,
    executable: '/opt/dagu/bin/dagu',
    env: { PATH: '/bin', NODE_ENV: 'test' },
    clock: systemClock,
    logger: silentLogger,
    loadDag: async () => (dag ? { ok: true, dag, warnings: [] } : { ok: false, notFound: true }),
    pollMs: 5,
    ...extra,
  });
}

/** A spawner whose "process" runs `behave` and exits with its code. */
function fakeSpawner(behave: (args: string[], kill: Promise<NodeJS.Signals>) => Promise<number | null>) {
  const calls: Array<Parameters<ChildSpawner>[0]> = [];
  const signals: NodeJS.Signals[] = [];
  let onSignal: (sig: NodeJS.Signals) => void = () => {};
  const killed = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  const spawnChild: ChildSpawner = (o) => {
    calls.push(o);
    return { pid: 4242, exited: behave(o.args, killed).then((code) => ({ code, signal: null })) };
  };
  const signalChild = (pid: number, sig: NodeJS.Signals) => {
    expect(pid).toBe(4242);
    signals.push(sig);
    onSignal(sig);
  };
  return { spawnChild, signalChild, calls, signals };
}

describe('localSubDagRunner on this host', () => {
  it('starts the child as its own `dagu start` process with the run ID and params and returns its end', async () => {
    const dag = childDag();
    const fake = fakeSpawner(async () => {
      await record('parent-1-abc', dag, 'partially_succeeded', 'step "x" failed');
      return 0;
    });
    const result = await runner(dag, fake)(request());

    expect(result).toEqual({
      run_id: 'parent-1-abc',
      status: 'partially_succeeded',
      error: 'step "x" failed',
    });
    expect(fake.calls[0]).toMatchObject({
      executable: '/opt/dagu/bin/dagu',
      args: [
        'start',
        '--quiet',
        '--trigger-type',
        'subdag',
        '--run-id',
        'parent-1-abc',
        '/dags/child.yaml',
        '--',
        'REGION=eu',
      ],
      env: { PATH: '/bin', DAGU_HOME: config.home },
      stdoutFile: join(dir, 'call.out'),
      stderrFile: join(dir, 'call.err'),
    });
  });

  it("fails to start with the child process's last error line when it never created its run", async () => {
    const req = request();
    const fake = fakeSpawner(async () => {
      writeFileSync(req.logFiles.stderr, 'dagu: run parent-1-abc is already running\n', { flag: 'a' });
      return 2;
    });
    const started = runner(childDag(), fake)(req);

    await expect(started).rejects.toBeInstanceOf(SubDagStartError);
    await expect(started).rejects.toThrow(
      'sub-DAG child did not start: its process exited with code 2 (dagu: run parent-1-abc is already running)',
    );
  });

  it('reports a child killed before it recorded its end as failed', async () => {
    const dag = childDag();
    const fake = fakeSpawner(async () => {
      await record('parent-1-abc', dag, 'running');
      return null;
    });
    const result = await runner(dag, fake)(request());

    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^the sub-DAG process exited with code null while its run was running$/);
  });

  it("sends SIGTERM to the child's process group when the parent stops, and returns the child's aborted end", async () => {
    const dag = childDag();
    const controller = new AbortController();
    const fake = fakeSpawner(async (_args, killed) => {
      await record('parent-1-abc', dag, 'running');
      await killed;
      await record('parent-1-abc', dag, 'aborted', 'run aborted (SIGTERM)');
      return 1;
    });
    const pending = runner(dag, fake)(request({ signal: controller.signal }));
    await waitFor(() => fake.calls.length === 1);
    controller.abort({ kind: 'aborted', signal: 'SIGTERM', message: 'run aborted (SIGTERM)' });

    expect(await pending).toEqual({
      run_id: 'parent-1-abc',
      status: 'aborted',
      error: 'run aborted (SIGTERM)',
    });
    expect(fake.signals).toEqual(['SIGTERM']);
  });

  it('fails to start a DAG the catalogue does not have', async () => {
    await expect(runner(null)(request({ dagName: 'nope' }))).rejects.toThrow(
      `sub-DAG "nope" not found in ${config.paths.dags_dir}`,
    );
  });
});

/** A dispatcher over the memory run store: records dispatches; `onDispatch` plays the worker. */
function fakeDispatcher(
  answer: (p: DispatchParams) => DispatchResult['outcome'],
  onDispatch: (p: DispatchParams) => Promise<void> = async () => {},
) {
  const dispatched: DispatchParams[] = [];
  const cancelled: string[] = [];
  const api: DispatcherApi = {
    async dispatch(p) {
      dispatched.push(p);
      const outcome = answer(p);
      if (outcome === 'refused') {
        return {
          outcome,
          reason: 'NoMatchingWorker',
          error: 'no worker matches the selector {zone: b}',
          status: null,
        };
      }
      await record(p.runId, p.dag, 'queued');
      void onDispatch(p);
      const r = await runs.readStatus(p.runId);
      return { outcome, status: r.kind === 'ok' ? r.status : (null as never) };
    },
    async cancel(runId): Promise<CancelOutcome> {
      cancelled.push(runId);
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') return { kind: 'not_found' };
      const aborted = { ...r.status, status: 'aborted' as const, error: 'cancelled before a worker took it' };
      await runs.writeStatus(aborted);
      return { kind: 'aborted', status: aborted };
    },
  };
  return { api, dispatched, cancelled };
}

describe('localSubDagRunner for a DAG that belongs on the workers', () => {
  it('dispatches a DAG with a selector (start, trigger subdag, parent, resolved params) and follows it to its end', async () => {
    const dag = childDag({ worker_selector: { zone: 'a' } });
    const fake = fakeDispatcher(
      () => 'dispatched',
      async (p) => {
        await new Promise((r) => setTimeout(r, 20));
        await record(p.runId, p.dag, 'running');
        await new Promise((r) => setTimeout(r, 20));
        await record(p.runId, p.dag, 'succeeded');
      },
    );
    const req = request();
    const result = await runner(dag, { dispatcher: fake.api })(req);

    expect(result).toEqual({ run_id: 'parent-1-abc', status: 'succeeded', error: null });
    expect(fake.dispatched[0]).toMatchObject({
      runId: 'parent-1-abc',
      operation: 'start',
      triggerType: 'subdag',
      params: ['REGION=eu'],
      selector: { zone: 'a' },
      previous: null,
      parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call' },
      fromQueue: false,
    });
    expect(readFileSync(req.logFiles.stdout, 'utf8')).toBe(
      'dispatched sub-DAG run parent-1-abc to a worker matching {zone: a}\n',
    );
  });

  it("uses the call step's own selector over the DAG's, and dispatches a local DAG that has one", async () => {
    const fake = fakeDispatcher(
      () => 'held',
      (p) => record(p.runId, p.dag, 'failed', 'no worker matched the selector {zone: b} within 2m0s'),
    );
    const req = request({ workerSelector: { zone: 'b' } });
    const result = await runner(childDag(), { dispatcher: fake.api })(req);

    expect(fake.dispatched[0].selector).toEqual({ zone: 'b' });
    expect(result).toEqual({
      run_id: 'parent-1-abc',
      status: 'failed',
      error: 'no worker matched the selector {zone: b} within 2m0s',
    });
    expect(readFileSync(req.logFiles.stdout, 'utf8')).toBe(
      'holding sub-DAG run parent-1-abc: no healthy worker matches {zone: b}; waiting up to 2m0s\n',
    );
  });

  it('dispatches every called DAG to any worker when the default execution mode is distributed', async () => {
    config = { ...config, default_execution_mode: 'distributed' };
    const fake = fakeDispatcher(
      () => 'dispatched',
      (p) => record(p.runId, p.dag, 'succeeded'),
    );
    await runner(childDag(), { dispatcher: fake.api })(request());

    expect(fake.dispatched[0].selector).toEqual({});
  });

  it('fails to start with the refusal error when the dispatch is refused', async () => {
    const fake = fakeDispatcher(() => 'refused');
    const started = runner(childDag({ worker_selector: { zone: 'b' } }), { dispatcher: fake.api })(request());

    await expect(started).rejects.toBeInstanceOf(SubDagStartError);
    await expect(started).rejects.toThrow(/^no worker matches the selector \{zone: b\}$/);
  });

  it('fails to start when there is no dispatcher to hand the child to', async () => {
    await expect(runner(childDag({ worker_selector: { zone: 'b' } }))(request())).rejects.toThrow(
      'sub-DAG child must run on a worker, but no dispatcher is available',
    );
  });

  it('cancels the dispatched child when the parent stops and returns its aborted end', async () => {
    const controller = new AbortController();
    const fake = fakeDispatcher(() => 'held');
    const pending = runner(childDag({ worker_selector: { zone: 'b' } }), { dispatcher: fake.api })(
      request({ signal: controller.signal }),
    );
    await waitFor(() => fake.dispatched.length === 1);
    controller.abort();

    expect(await pending).toEqual({
      run_id: 'parent-1-abc',
      status: 'aborted',
      error: 'cancelled before a worker took it',
    });
    expect(fake.cancelled).toEqual(['parent-1-abc']);
  });
});

describe('waitForRunEnd', () => {
  it('gives up with the last status seen when a stopped run does not end within the stop wait', async () => {
    const dag = childDag();
    await record('r1', dag, 'running');
    const controller = new AbortController();
    controller.abort();
    let stops = 0;
    const end = await waitForRunEnd({
      runs,
      runId: 'r1',
      clock: systemClock,
      pollMs: 5,
      signal: controller.signal,
      stopWaitMs: 30,
      stop: async () => {
        stops++;
        return null;
      },
    });

    expect(end.kind).toBe('gave_up');
    expect(end.status?.status).toBe('running');
    expect(stops).toBe(1);
  });

  it('reports each change of state once while it waits', async () => {
    const dag = childDag();
    await record('r2', dag, 'queued');
    const seen: string[] = [];
    const waiting = waitForRunEnd({
      runs,
      runId: 'r2',
      clock: systemClock,
      pollMs: 5,
      onChange: (s) => seen.push(s.status),
    });
    await waitFor(() => seen.length === 1);
    await record('r2', dag, 'running');
    await waitFor(() => seen.length === 2);
    await record('r2', dag, 'succeeded');
    const end = await waiting;

    expect(end).toMatchObject({ kind: 'ended', status: { status: 'succeeded' } });
    expect(seen).toEqual(['queued', 'running', 'succeeded']);
  });
});

describe('spawnChildProcess', () => {
  it("runs the script with this Node in its own process group and appends its output to the step's logs", async () => {
    const script = join(dir, 'child.js');
    writeFileSync(
      script,
      "process.stdout.write(`args=${process.argv.slice(2).join(' ')} home=${process.env.DAGU_HOME}\\n`);\n" +
        "const stat = require('fs').readFileSync('/proc/self/stat', 'utf8');\n" +
        "const pgrp = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2];\n" +
        'process.stderr.write(`leads its group: ${pgrp === String(process.pid)}\\n`);\nprocess.exit(3);\n',
    );
    const stdoutFile = join(dir, 'out.log');
    const stderrFile = join(dir, 'err.log');
    writeFileSync(stdoutFile, 'before\n');
    const child = spawnChildProcess({
      executable: script,
      args: ['start', 'x'],
      env: { PATH: process.env.PATH, NODE_ENV: 'test', DAGU_HOME: '/h' },
      stdoutFile,
      stderrFile,
    });

    expect(await child.exited).toEqual({ code: 3, signal: null });
    expect(readFileSync(stdoutFile, 'utf8')).toBe('before\nargs=start x home=/h\n');
    expect(readFileSync(stderrFile, 'utf8')).toBe('leads its group: true\n');
  });
});
