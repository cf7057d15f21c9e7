import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { systemClock } from '../core/clock';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec, RunState, RunStatus } from '../core/types';
import type { CancelOutcome, DispatchParams, DispatchResult, DispatcherApi } from '../core/dispatcherApi';
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
  it('records the child queued with its parent and params, and has its `dagu start` process take it over', async () => {
    const dag = childDag();
    let seen: RunStatus | null = null;
    const fake = fakeSpawner(async () => {
      const r = await runs.readStatus('parent-1-abc');
      seen = r.kind === 'ok' ? r.status : null;
      await runs.writeStatus({
        ...seen!,
        status: 'partially_succeeded',
        error: 'step "x" failed',
        steps: [{ ...seen!.steps[0], output: { GREETING: 'hi' } }],
      });
      return 0;
    });
    const result = await runner(dag, fake)(request());

    expect(seen).toMatchObject({
      status: 'queued',
      trigger_type: 'subdag',
      params: ['REGION=eu'],
      parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call' },
    });
    expect(result).toEqual({
      run_id: 'parent-1-abc',
      dag_name: 'child',
      status: 'partially_succeeded',
      error: 'step "x" failed',
      params: ['REGION=eu'],
      outputs: { GREETING: 'hi' },
    });
    expect(fake.calls[0]).toMatchObject({
      executable: '/opt/dagu/bin/dagu',
      args: ['start', '--quiet', '--trigger-type', 'subdag', '--run-id', 'parent-1-abc', '/dags/child.yaml'],
      env: { PATH: '/bin', DAGU_HOME: config.home, DAGU_CALL_CHAIN: '["parent"]' },
      stdoutFile: join(dir, 'call.err'),
      stderrFile: join(dir, 'call.err'),
    });
  });

  it("fails to start with the child process's last error line, and ends the record it left queued", async () => {
    const req = request();
    const fake = fakeSpawner(async () => {
      writeFileSync(req.logFiles.stderr, 'dagu: the DAG file is invalid\n', { flag: 'a' });
      return 2;
    });
    const started = runner(childDag(), fake)(req);

    await expect(started).rejects.toBeInstanceOf(SubDagStartError);
    await expect(started).rejects.toThrow(
      'sub-DAG child did not start: its process exited with code 2 (dagu: the DAG file is invalid) before it started the run',
    );
    const left = await runs.readStatus('parent-1-abc');
    expect(left.kind === 'ok' && left.status.status).toBe('failed');
  });

  it('refuses params the child does not declare before any process starts', async () => {
    const fake = fakeSpawner(async () => 0);
    await expect(runner(childDag(), fake)(request({ params: ['COLOR=red'] }))).rejects.toThrow(
      'sub-DAG child: unknown parameter(s): "COLOR"; accepted parameters are: REGION',
    );
    expect(fake.calls).toHaveLength(0);
    expect((await runs.readStatus('parent-1-abc')).kind).toBe('missing');
  });

  it('refuses a call back into a DAG of the calling chain', async () => {
    const fake = fakeSpawner(async () => 0);
    const run = runner(childDag({ name: 'a' }), {
      ...fake,
      env: { NODE_ENV: 'test', DAGU_CALL_CHAIN: '["a"]' },
    });
    await expect(run(request({ dagName: 'a' }))).rejects.toThrow(
      'recursive sub-DAG call refused: a -> parent -> a',
    );
    const self = runner(childDag({ name: 'parent' }), fake);
    await expect(self(request({ dagName: 'parent' }))).rejects.toThrow(
      'recursive sub-DAG call refused: parent -> parent',
    );
    expect(fake.calls).toHaveLength(0);
  });

  it('gives a repeated child a fresh run ID when its deterministic one is taken', async () => {
    const dag = childDag();
    await record('parent-1-abc', dag, 'succeeded');
    const fake = fakeSpawner(async (args) => {
      const id = args[args.indexOf('--run-id') + 1];
      const r = await runs.readStatus(id);
      await runs.writeStatus({ ...(r.kind === 'ok' ? r.status : (null as never)), status: 'succeeded' });
      return 0;
    });
    const result = await runner(dag, fake)(request());
    expect(result.status).toBe('succeeded');
    expect(result.run_id).not.toBe('parent-1-abc');
    expect(result.run_id).toMatch(/^parent-1-abc-[0-9a-f]{12}$/);
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

    expect(await pending).toMatchObject({
      run_id: 'parent-1-abc',
      status: 'aborted',
      error: 'run aborted (SIGTERM)',
    });
    expect(fake.signals).toEqual(['SIGTERM']);
  });

  it('fails to find a DAG that is neither a local document nor in the catalogue', async () => {
    await expect(runner(null)(request({ dagName: 'nope' }))).rejects.toThrow(
      'failed to find DAG "nope": no local DAG of that name and no such DAG file',
    );
  });

  it('queues the child for dag.enqueue, with its parent, in the queue the step names', async () => {
    const queued: Array<{ queue: string; run_id: string; dag_name: string }> = [];
    const fake = fakeSpawner(async () => 0);
    const run = runner(childDag(), {
      ...fake,
      queue: { enqueue: async (item) => (queued.push(item), { ...item, item_id: 'i1' }) },
    });
    const result = await run(request({ mode: 'enqueue', queue: 'batch' }));

    expect(result).toMatchObject({ run_id: 'parent-1-abc', status: 'queued' });
    expect(queued).toEqual([
      expect.objectContaining({ queue: 'batch', run_id: 'parent-1-abc', dag_name: 'child' }),
    ]);
    const s = await runs.readStatus('parent-1-abc');
    expect(s.kind === 'ok' && s.status).toMatchObject({
      status: 'queued',
      queue: 'batch',
      parent: { step: 'call' },
    });
    expect(fake.calls).toHaveLength(0);
  });

  it('runs a local document from a temp file holding it first and its siblings after, removed afterwards', async () => {
    const parentFile = join(dir, 'parent.yaml');
    writeFileSync(
      parentFile,
      'steps:\n  - call: worker\n---\nname: worker\nsteps:\n  - call: helper\n---\nname: helper\nsteps:\n  - run: echo hi\n',
    );
    let text = '';
    let file = '';
    let spawnArgs: string[] = [];
    const loaded: string[] = [];
    const sources: Array<string | undefined> = [];
    const fake = fakeSpawner(async (args) => {
      spawnArgs = args;
      file = args.at(-1)!;
      text = readFileSync(file, 'utf8');
      const r = await runs.readStatus('parent-1-abc');
      await runs.writeStatus({ ...(r.kind === 'ok' ? r.status : (null as never)), status: 'succeeded' });
      return 0;
    });
    const run = runner(null, {
      ...fake,
      loadDag: async (f, opts) => {
        loaded.push(f);
        sources.push(opts?.sourceFile);
        return { ok: true, dag: childDag({ name: 'worker', file: f, params: [] }), warnings: [] };
      },
    });
    const parentDag = {
      name: 'parent',
      file: parentFile,
      local_dags: { worker: childDag({ name: 'worker' }) },
    };
    const result = await run(request({ dagName: 'worker', parentDag, params: [] }));

    expect(result).toMatchObject({ status: 'succeeded', dag_name: 'worker' });
    expect(loaded).toEqual([file]);
    // The copy's relative paths are the parent file's: both the parent's load and the child process know it.
    expect(sources).toEqual([parentFile]);
    expect(spawnArgs.slice(-3)).toEqual(['--local-dag-source', parentFile, file]);
    expect(file).toMatch(/dagu-local-dag-[^/]+\/worker\.yaml$/);
    expect(text).toBe(
      'name: worker\nsteps:\n  - call: helper\n---\nname: helper\nsteps:\n  - run: echo hi\n',
    );
    await waitFor(() => !existsSync(file));
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

    expect(result).toMatchObject({ run_id: 'parent-1-abc', status: 'succeeded', error: null });
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
    expect(readFileSync(req.logFiles.stderr, 'utf8')).toBe(
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
    expect(result).toMatchObject({
      run_id: 'parent-1-abc',
      status: 'failed',
      error: 'no worker matched the selector {zone: b} within 2m0s',
    });
    expect(readFileSync(req.logFiles.stderr, 'utf8')).toBe(
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

    expect(await pending).toMatchObject({
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
