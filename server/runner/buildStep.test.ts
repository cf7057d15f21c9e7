// BuildStep on real files and the file materialization store: the decision between reuse and execution, the
// staging of each attempt, and the commit that publishes it (or leaves the previous output and manifest).

import { access, mkdir, mkdtemp, readFile, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MaterializationStore, StepBuildStatus } from '../core/build/types';
import { formatDagError, parseDag } from '../core/dag/parseDag';
import type { DagSpec, StepSpec } from '../core/types';
import { FileMaterializationStore } from '../store/fileMaterializations';
import { planBuild, type BuildStepPlan } from './buildPlan';
import {
  BuildStep,
  normalizeRunText,
  recipeEnvironment,
  stepRecipe,
  type BuildRecipe,
  type BuildStepContext,
} from './buildStep';

let root: string;
let work: string;
let store: FileMaterializationStore;
const open: BuildStep[] = [];

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'dagu-build-step-')));
  work = path.join(root, 'w');
  await mkdir(work);
  await writeFile(path.join(work, 'in.txt'), 'source v1\n');
  store = new FileMaterializationStore(path.join(root, 'data', 'build'));
});
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  await rm(root, { recursive: true, force: true });
});

const OUT = () => path.join(work, 'out.txt');

/** A build DAG in `work` whose first step `make` copies in.txt to out.txt, with these extra rows. */
function buildDag(o: { rows?: string[]; run?: string; top?: string[] } = {}): DagSpec {
  const text = [
    'type: build',
    `working_dir: ${work}`,
    ...(o.top ?? []),
    'steps:',
    '  - id: make',
    `    run: '${o.run ?? 'cp ${inputs.src} ${outputs.bin}'}'`,
    '    inputs: [{name: src, path: in.txt}]',
    '    outputs: [{name: bin, path: out.txt}]',
    ...(o.rows ?? []),
  ].join('\n');
  const r = parseDag(text + '\n', { file: path.join(work, 'dag.yaml'), defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

async function planOf(dag: DagSpec, name = 'make'): Promise<BuildStepPlan> {
  return (await planBuild(dag, work, (t) => t)).steps.get(name)!;
}

interface RunOptions {
  dag?: DagSpec;
  step?: string;
  runId?: string;
  workDir?: string;
  attempt?: number;
  env?: Record<string, string>;
  params?: string[];
  store?: MaterializationStore | null;
  context?: Partial<BuildStepContext>;
  /** Stops waiting for the path locks. */
  signal?: AbortSignal;
}

function recipeFor(spec: StepSpec, o: RunOptions): BuildRecipe {
  const runId = o.runId ?? 'run-1';
  const workDir = o.workDir ?? `/data/runs/${runId}`;
  return stepRecipe(spec, {
    shell: ['/bin/sh', '-c'],
    cwd: work,
    params: o.params ?? [],
    processEnv: { PATH: '/usr/bin:/bin', DAG_RUN_ID: runId, DAG_RUN_WORK_DIR: workDir, ...o.env },
    run: { id: runId, workDir },
  });
}

/** Prepares and evaluates the step; it stays open (closed after the test) unless closed by the caller. */
async function evaluated(o: RunOptions = {}): Promise<{ step: BuildStep; spec: StepSpec }> {
  const dag = o.dag ?? buildDag();
  const spec = dag.steps.find((s) => s.name === (o.step ?? 'make'))!;
  const step = await BuildStep.prepare(
    {
      store: o.store === undefined ? store : o.store,
      dag,
      step: spec,
      plan: await planOf(dag, spec.name),
      runId: o.runId ?? 'run-1',
      attempt: o.attempt ?? 1,
      noReuse: false,
      dry: false,
      deferred: false,
      controlDependencyRan: false,
      controlTokens: {},
      ...o.context,
    },
    o.signal ?? AbortSignal.timeout(3_000),
  );
  open.push(step);
  if (step.failure) throw step.failure;
  await step.evaluate(recipeFor(spec, o));
  return { step, spec };
}

/** One run of the step: reused, or executed by copying its input (`content` instead, when given). */
async function run(o: RunOptions & { content?: string } = {}): Promise<StepBuildStatus> {
  const { step } = await evaluated(o);
  if (!step.reused) {
    const a = step.newAttempt(0)!;
    await writeFile(a.staging, o.content ?? (await readFile(path.join(work, 'in.txt'))));
    await step.commit(a.staging);
  }
  await step.close();
  return { ...step.metadata };
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** A store whose every call fails the test. */
const untouchable: MaterializationStore = {
  get: () => Promise.reject(new Error('get called')),
  acquire: () => Promise.reject(new Error('acquire called')),
  commit: () => Promise.reject(new Error('commit called')),
};

describe('a step without build paths', () => {
  it('always executes, without touching the store', async () => {
    const dag = buildDag({ rows: ['  - id: plain', '    run: echo hi'] });
    const { step } = await evaluated({ dag, step: 'plain', store: untouchable });
    expect(step.metadata).toEqual({
      decision: 'always',
      phase: 'execute',
      reason: 'ineligible',
      detail: 'step has no build file paths',
    });
    expect(step.newAttempt(0)).toBeNull();
    expect(step.hasOutput).toBe(false);
    await step.commit('/nowhere');
    expect(step.metadata.phase).toBe('complete');
  });
});

describe('the decision', () => {
  it('executes the first time: no manifest', async () => {
    const { step } = await evaluated();
    expect(step.metadata).toMatchObject({
      decision: 'execute',
      phase: 'execute',
      reason: 'manifest_missing',
      detail: 'no prior successful materialization exists',
    });
    expect(step.metadata.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(step.metadata.materialization_key).toMatch(/^[0-9a-f]{64}$/);
    expect(step.inputPaths()).toEqual({ src: path.join(work, 'in.txt') });
  });

  it('reuses the committed output when recipe, inputs and output match', async () => {
    const first = await run({ runId: 'run-1', attempt: 2 });
    expect(first).toMatchObject({ decision: 'execute', phase: 'complete', reason: 'manifest_missing' });
    expect(await readFile(OUT(), 'utf8')).toBe('source v1\n');
    const { step } = await evaluated({ runId: 'run-2' });
    expect(step.metadata).toEqual({
      decision: 'reuse',
      phase: 'complete',
      reason: 'matched',
      detail: 'recipe, inputs, and output match the committed manifest',
      fingerprint: first.fingerprint,
      materialization_key: first.materialization_key,
      producer_run: { dag_name: 'etl', run_id: 'run-1' },
      producer_attempt: 2,
    });
    expect(step.reused).toBe(true);
    expect(step.published()).toEqual({ bin: OUT() });
  });

  it('reuses across runs with other ids and work directories', async () => {
    await run({ runId: 'run-1', workDir: '/data/runs/run-1', env: { TMPDIR: '/data/runs/run-1/tmp' } });
    const { step } = await evaluated({
      runId: 'run-2',
      workDir: '/data/other/run-2',
      env: { TMPDIR: '/data/other/run-2/tmp' },
    });
    expect(step.metadata.reason).toBe('matched');
  });

  it.each<[string, () => RunOptions]>([
    ['the command text', () => ({ dag: buildDag({ run: 'cp ${inputs.src} ${outputs.bin} && true' }) })],
    ['an environment value', () => ({ env: { FOO: 'changed' } })],
    ['the params', () => ({ params: ['X=2'] })],
    ['the step env', () => ({ dag: buildDag({ rows: ['    env: [{FOO: bar}]'] }) })],
  ])('executes when %s changed: recipe_changed', async (_what, changed) => {
    await run({ env: { FOO: 'original' }, params: ['X=1'] });
    const { step } = await evaluated({ env: { FOO: 'original' }, params: ['X=1'], ...changed() });
    expect(step.metadata).toMatchObject({
      decision: 'execute',
      reason: 'recipe_changed',
      detail: 'the step recipe changed',
    });
  });

  it('executes when an input changed: input_changed', async () => {
    await run();
    await writeFile(path.join(work, 'in.txt'), 'source v2\n');
    const { step } = await evaluated();
    expect(step.metadata).toMatchObject({ decision: 'execute', reason: 'input_changed' });
  });

  it('executes when the output is gone: output_missing', async () => {
    await run();
    await unlink(OUT());
    const { step } = await evaluated();
    expect(step.metadata).toMatchObject({ decision: 'execute', reason: 'output_missing' });
  });

  it('executes when the output was edited: output_changed', async () => {
    await run();
    await writeFile(OUT(), 'edited by hand\n');
    const { step } = await evaluated();
    expect(step.metadata).toMatchObject({ decision: 'execute', reason: 'output_changed' });
  });

  it('executes when reuse is disabled, or an explicit dependency ran', async () => {
    await run();
    const off = await evaluated({ context: { noReuse: true } });
    expect(off.step.metadata).toMatchObject({ decision: 'execute', reason: 'reuse_disabled' });
    await off.step.close();
    const control = await evaluated({ context: { controlDependencyRan: true } });
    expect(control.step.metadata).toMatchObject({ decision: 'execute', reason: 'control_dependency_ran' });
  });

  it('executes when a control dependency’s fingerprint changed', async () => {
    await run({ context: { controlTokens: { before: 'sha256:aa' } } });
    const { step } = await evaluated({ context: { controlTokens: { before: 'sha256:bb' } } });
    expect(step.metadata).toMatchObject({ decision: 'execute', reason: 'input_changed' });
  });

  it('defers a dry run whose producer would execute, without reading anything', async () => {
    await unlink(path.join(work, 'in.txt'));
    const { step } = await evaluated({ store: untouchable, context: { dry: true, deferred: true } });
    expect(step.metadata).toEqual({
      decision: 'deferred',
      phase: 'evaluate',
      reason: 'upstream_would_execute',
      detail: 'an upstream file producer would execute; evaluate after its output is known',
    });
  });

  it('previews a reuse in a dry run without taking locks', async () => {
    await run();
    const locking: MaterializationStore = {
      get: (key) => store.get(key),
      acquire: () => Promise.reject(new Error('acquire called')),
      commit: () => Promise.reject(new Error('commit called')),
    };
    const { step } = await evaluated({ store: locking, context: { dry: true } });
    expect(step.metadata.reason).toBe('matched');
  });

  it('always executes a step of a DAG with secrets', async () => {
    await run();
    const dag = buildDag({ top: ['secrets:', '  - {name: TOKEN, provider: env, key: TOKEN}'] });
    const { step } = await evaluated({ dag });
    expect(step.metadata).toMatchObject({
      decision: 'always',
      phase: 'execute',
      reason: 'ineligible',
      detail: 'secret-consuming execution is not reusable',
    });
  });

  it('fails when an input is missing', async () => {
    await unlink(path.join(work, 'in.txt'));
    const dag = buildDag();
    const step = await BuildStep.prepare({
      store,
      dag,
      step: dag.steps[0],
      plan: await planOf(dag),
      runId: 'run-1',
      attempt: 1,
      noReuse: false,
      dry: false,
      deferred: false,
      controlDependencyRan: false,
      controlTokens: {},
    });
    open.push(step);
    await expect(step.evaluate(recipeFor(dag.steps[0], {}))).rejects.toThrow(/ENOENT/);
    expect(step.metadata).toMatchObject({ decision: 'none', phase: 'evaluate', reason: 'input_missing' });
    expect(step.metadata.detail).toContain(path.join(work, 'in.txt'));
  });
});

describe('locks', () => {
  it('holds the output until closed', async () => {
    const first = await evaluated();
    const stop = new AbortController();
    // Another evaluation of the same step waits for it (giving up after 10 s, if the lock is never released).
    const waiting = evaluated({ runId: 'run-3', signal: AbortSignal.timeout(10_000) });
    setTimeout(() => stop.abort(), 200);
    const dag = buildDag();
    const blocked = await BuildStep.prepare(
      {
        store,
        dag,
        step: dag.steps[0],
        plan: await planOf(dag),
        runId: 'run-2',
        attempt: 1,
        noReuse: false,
        dry: false,
        deferred: false,
        controlDependencyRan: false,
        controlTokens: {},
      },
      stop.signal,
    );
    expect(blocked.failure).not.toBeNull();
    expect(blocked.metadata).toMatchObject({ decision: 'none', reason: 'cancelled_before_decision' });
    await first.step.close();
    expect((await waiting).step.metadata.reason).toBe('manifest_missing');
  });

  it('releases its locks once, however often it is closed', async () => {
    let releases = 0;
    const counting: MaterializationStore = {
      get: (key) => store.get(key),
      commit: (locks, req) => store.commit(locks, req),
      acquire: async (requests, signal) => {
        const held = await store.acquire(requests, signal);
        return {
          release: () => {
            releases++;
            return held.release();
          },
        };
      },
    };
    const { step } = await evaluated({ store: counting });
    await step.close();
    await step.close();
    expect(releases).toBe(1);
  });

  it('reports a missing store', async () => {
    const dag = buildDag();
    const step = await BuildStep.prepare({
      store: null,
      dag,
      step: dag.steps[0],
      plan: await planOf(dag),
      runId: 'run-1',
      attempt: 1,
      noReuse: false,
      dry: false,
      deferred: false,
      controlDependencyRan: false,
      controlTokens: {},
    });
    expect(step.failure?.message).toBe('build materialization store is unavailable');
    expect(step.metadata).toEqual({ decision: 'none', phase: 'evaluate', reason: 'store_unavailable' });
  });
});

describe('attempts and commits', () => {
  it('gives each attempt a fresh, absent staging file beside the output', async () => {
    const { step } = await evaluated({ attempt: 3 });
    const a = step.newAttempt(0)!;
    const b = step.newAttempt(0)!;
    const c = step.newAttempt(1)!;
    for (const x of [a, b, c]) {
      expect(path.dirname(x.staging)).toBe(work);
      expect(x.outputs).toEqual({ bin: x.staging });
      expect(await exists(x.staging)).toBe(false);
    }
    expect(path.basename(a.staging)).toMatch(/^\.out\.txt\.dagu-3-0-[0-9a-f]{16}\.tmp$/);
    expect(path.basename(c.staging)).toMatch(/^\.out\.txt\.dagu-3-1-[0-9a-f]{16}\.tmp$/);
    expect(new Set([a.staging, b.staging, c.staging]).size).toBe(3);
  });

  it('discards a staging file, and a missing one quietly', async () => {
    const { step } = await evaluated();
    const a = step.newAttempt(0)!;
    await writeFile(a.staging, 'partial');
    await step.discard(a.staging);
    expect(await exists(a.staging)).toBe(false);
    await step.discard(a.staging);
    await step.discard(null);
  });

  it('commits the staged file as the output, with a manifest of it', async () => {
    const { step } = await evaluated({ runId: 'run-7', attempt: 2 });
    const a = step.newAttempt(0)!;
    await writeFile(a.staging, 'made\n');
    await step.commit(a.staging);
    expect(step.metadata.phase).toBe('complete');
    expect(await readFile(OUT(), 'utf8')).toBe('made\n');
    expect(await exists(a.staging)).toBe(false);
    const manifest = await store.get(step.metadata.materialization_key!);
    expect(manifest).toMatchObject({
      dag_name: 'etl',
      step_id: 'make',
      fingerprint: step.metadata.fingerprint,
      producer_run: { dag_name: 'etl', run_id: 'run-7' },
      producer_attempt: 2,
      inputs: [{ name: 'src', path: path.join(work, 'in.txt'), size: 10 }],
      output: { name: 'bin', path: OUT(), size: 5 },
    });
  });

  it('refuses a staging file that was never written, leaving output and manifest', async () => {
    await run({ runId: 'run-1' });
    const before = await store.get((await evaluatedKey())!);
    await writeFile(path.join(work, 'in.txt'), 'source v2\n');
    const { step } = await evaluated({ runId: 'run-2' });
    expect(step.metadata.reason).toBe('input_changed');
    const a = step.newAttempt(0)!;
    await expect(step.commit(a.staging)).rejects.toThrow(/^verify staged output: /);
    expect(step.metadata.phase).toBe('verify');
    expect(await readFile(OUT(), 'utf8')).toBe('source v1\n');
    expect(await store.get(step.metadata.materialization_key!)).toEqual(before);
  });

  it('refuses an input that changed during execution, publishing nothing', async () => {
    await run({ runId: 'run-1' });
    const key = (await evaluatedKey())!;
    const before = await store.get(key);
    await writeFile(path.join(work, 'in.txt'), 'source v2\n');
    const { step } = await evaluated({ runId: 'run-2' });
    const a = step.newAttempt(0)!;
    await writeFile(a.staging, 'from v2\n');
    await writeFile(path.join(work, 'in.txt'), 'source v3, written meanwhile\n');
    await expect(step.commit(a.staging)).rejects.toThrow('input src changed during execution');
    expect(step.metadata.reason).toBe('input_changed_during_execution');
    expect(await readFile(OUT(), 'utf8')).toBe('source v1\n');
    expect(await store.get(key)).toEqual(before);
  });

  it('commits the output of an ineligible step but keeps the manifest as it was', async () => {
    await run({ runId: 'run-1' });
    const key = (await evaluatedKey())!;
    const before = await store.get(key);
    expect(before).not.toBeNull();
    const dag = buildDag({ top: ['secrets:', '  - {name: TOKEN, provider: env, key: TOKEN}'] });
    const metadata = await run({ dag, runId: 'run-2', content: 'secret build\n' });
    expect(metadata).toMatchObject({ decision: 'always', phase: 'complete', reason: 'ineligible' });
    expect(await readFile(OUT(), 'utf8')).toBe('secret build\n');
    expect(await store.get(key)).toEqual(before);
    // So the next run sees an output that is not the manifest's, and executes.
    const { step } = await evaluated({ runId: 'run-3' });
    expect(step.metadata.reason).toBe('output_changed');
  });

  it('writes no manifest for an ineligible step that had none', async () => {
    const dag = buildDag({ rows: ['    output: VAR'] });
    const metadata = await run({ dag, content: 'x\n' });
    expect(metadata).toMatchObject({
      decision: 'always',
      reason: 'ineligible',
      detail: 'step publishes dynamic outputs',
    });
    expect(await readFile(OUT(), 'utf8')).toBe('x\n');
    expect(await store.get(metadata.materialization_key!)).toBeNull();
  });
});

/** The materialization key of `make` (an evaluation computes it). */
async function evaluatedKey(): Promise<string | undefined> {
  const { step } = await evaluated({
    store: {
      ...untouchable,
      get: () => Promise.resolve(null),
      acquire: () => Promise.resolve({ release: () => Promise.resolve() }),
    },
  });
  return step.metadata.materialization_key;
}

describe('recipeEnvironment and normalizeRunText', () => {
  it('drops the variables that change with every run and writes the run as placeholders', () => {
    const env = (id: string, workDir: string) =>
      recipeEnvironment(
        {
          PATH: '/usr/bin',
          DAG_RUN_ID: id,
          DAG_RUN_LOG_FILE: `/logs/${id}.log`,
          DAG_RUN_STEP_STDOUT_FILE: `/logs/${id}.out`,
          DAG_RUN_STEP_STDERR_FILE: `/logs/${id}.err`,
          DAGU_OUTPUT_FILE: `/logs/${id}.output`,
          DAG_RUN_STATUS: 'running',
          DAG_WAITING_STEPS: 'x',
          DAG_RUN_WORK_DIR: workDir,
          DAG_RUN_ARTIFACTS_DIR: `${workDir}/artifacts`,
          DAG_PUSHBACK: '1',
          DAG_PUSHBACK_ITERATION: '1',
          DAG_PUSHBACK_PREVIOUS_STDOUT_FILE: '/x',
          DAG_RUN_SCHEDULE_TIME: '2026-01-01T00:00:00Z',
          PWD: `${workDir}/sub`,
          LABEL: `build-${id}`,
          UNSET: undefined,
        },
        { id, workDir },
      );
    const a = env('run-aaa', '/data/runs/aaa');
    expect(a).toEqual({ PATH: '/usr/bin', PWD: '${DAG_RUN_WORK_DIR}/sub', LABEL: 'build-${DAG_RUN_ID}' });
    expect(env('run-bbb', '/elsewhere/bbb')).toEqual(a);
  });

  it('replaces the work directory before the id it may contain', () => {
    expect(normalizeRunText('/runs/r1/x r1', { id: 'r1', workDir: '/runs/r1' })).toBe(
      '${DAG_RUN_WORK_DIR}/x ${DAG_RUN_ID}',
    );
    expect(normalizeRunText('same', { id: '', workDir: '' })).toBe('same');
  });

  it('is what stepRecipe records of the environment and the working directory', () => {
    const spec = buildDag().steps[0];
    const recipe = (id: string, workDir: string) =>
      stepRecipe(spec, {
        shell: ['/bin/sh', '-c'],
        cwd: `${workDir}/step`,
        params: ['A=1'],
        processEnv: { DAG_RUN_ID: id, HOME: '/home/u' },
        run: { id, workDir },
      });
    expect(recipe('r-1', '/runs/one')).toEqual(recipe('r-2', '/runs/two'));
    expect(recipe('r-1', '/runs/one')).toMatchObject({
      command: spec.command,
      workingDir: '${DAG_RUN_WORK_DIR}/step',
      environment: { HOME: '/home/u' },
      params: ['A=1'],
    });
  });
});
