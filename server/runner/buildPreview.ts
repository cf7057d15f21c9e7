// `dagu dry` of a build DAG: the decision each step would take (reuse, execute, deferred, ...) without
// running anything or writing anything: no locks, no staging files, no manifests, no run record. The run's
// scope is set up as executeRun sets it up (params, DAG env, dotenv) so that a step's recipe is the one a run
// would compute; a step whose upstream producer would execute is `deferred`, as in Dagu.
// Differences from a run, said in docs/dag-reference.md: preconditions are not evaluated (nothing runs), and
// values only a run makes (an upstream step's `output:` variable, secrets) are not in the preview's scope.

import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import type { MaterializationStore, StepBuildStatus } from '../core/build/types';
import { topoOrder } from '../core/graph';
import { resolveValue } from '../core/dag/values';
import type { DagSpec, StepSpec } from '../core/types';
import { buildPathBase, planBuild } from './buildPlan';
import { BuildStep, stepRecipe } from './buildStep';
import { loadDotenv } from './dotenv';
import { filterHostEnv, type HostEnvPassthrough } from './hostEnv';
import { chooseShell, defaultShellOf } from './stepCommand';
import { buildStepEnv, evaluateDagEnv, scopeOf, withDotenv } from './stepEnv';
import { expandHome, stepDirPath } from './workDir';

export interface BuildPreviewOptions {
  store: MaterializationStore | null;
  baseEnv: NodeJS.ProcessEnv;
  envPassthrough?: HostEnvPassthrough;
  noReuse: boolean;
}

/** The stand-in run ID of a preview: the recipe leaves run IDs out, so any would do. */
const PREVIEW_RUN_ID = 'dry-run';

/**
 * Each step's decision by step name, and the steps with the dependencies their inputs imply; throws BuildPlanError when the plan
 * cannot be made (a path with two producers, a cycle), as `dagu start` would fail.
 */
export async function previewBuild(
  dag: DagSpec,
  params: readonly string[],
  o: BuildPreviewOptions,
): Promise<{ specs: StepSpec[]; decisions: Map<string, StepBuildStatus> }> {
  const hostEnv = filterHostEnv(o.baseEnv, o.envPassthrough);
  const runWorkDir = join(tmpdir(), `dagu_${dag.name}_${PREVIEW_RUN_ID}`);
  let run = evaluateDagEnv(
    {
      processEnv: o.baseEnv,
      filteredHost: hostEnv,
      params,
      managed: {
        DAG_NAME: dag.name,
        DAG_RUN_ID: PREVIEW_RUN_ID,
        DAG_RUN_WORK_DIR: runWorkDir,
        DAG_RUN_SCHEDULE_TIME: '',
        DAG_RUN_LOG_FILE: join(runWorkDir, 'run.log'),
      },
      context: { 'dag.name': dag.name, 'run.id': PREVIEW_RUN_ID, 'paths.work_dir': runWorkDir },
      consts: dag.consts,
    },
    dag.env,
  );
  const definedEnv = Object.fromEntries(
    Object.entries(o.baseEnv).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const rootValue = (text: string) =>
    resolveValue(text, scopeOf(run, run.vars, { hostEnv: definedEnv }), 'hostValue');
  const dagDir = dag.working_dir
    ? resolvePath(
        dag.file ? dirname(dag.file) : runWorkDir,
        expandHome(rootValue(dag.working_dir), hostEnv.HOME),
      )
    : runWorkDir;
  const fileDir = dag.file ? dirname(dag.file) : dagDir;
  const loaded = await loadDotenv(
    (dag.dotenv ?? []).map(rootValue),
    dag.working_dir ? [dagDir, fileDir] : [fileDir],
  );
  run = withDotenv(run, loaded.values);

  const plan = await planBuild(
    dag,
    buildPathBase(dag, dag.working_dir ? dagDir : null),
    (text) => resolveValue(text, scopeOf(run, run.vars, {}), 'value'),
    (spec) => {
      const dir = spec.dir ? rootValue(spec.dir) : null;
      return dir?.includes('${') ? null : stepDirPath(dagDir, dir, hostEnv.HOME);
    },
  );
  const shellDag = {
    shell: dag.shell ? rootValue(dag.shell) : (dag.shell ?? null),
    args: (dag.shell_args ?? []).map(rootValue),
  };
  const decisions = new Map<string, StepBuildStatus>();
  for (const spec of topoOrder(plan.specs) ?? plan.specs) {
    const planned = plan.steps.get(spec.name)!;
    const inferred = plan.inferred.get(spec.name) ?? new Set<string>();
    const explicit = dag.steps.find((s) => s.name === spec.name)?.depends ?? [];
    const controlTokens: Record<string, string> = {};
    let controlDependencyRan = false;
    for (const dep of explicit) {
      const b = decisions.get(dep);
      if (b?.fingerprint) controlTokens[dep] = b.fingerprint;
      if (b?.decision !== 'reuse') controlDependencyRan = true;
    }
    const deferred = [...inferred].some((p) => decisions.get(p)?.decision !== 'reuse');
    const step = await BuildStep.prepare({
      store: o.store,
      dag,
      step: spec,
      plan: planned,
      runId: PREVIEW_RUN_ID,
      attempt: 1,
      noReuse: o.noReuse,
      dry: true,
      deferred,
      controlDependencyRan,
      controlTokens,
    });
    const cwd = stepDirPath(dagDir, spec.dir ? rootValue(spec.dir) : null, hostEnv.HOME);
    const env = buildStepEnv(run, {
      name: spec.name,
      pwd: cwd,
      outputs: {},
      env: spec.env,
      files: { stdout: '', stderr: '', outputFile: '' },
      extra: {},
      handler: false,
      steps: {},
      context: spec.id ? { 'step.id': spec.id } : {},
      buildPaths: { inputs: step.inputPaths() },
    });
    try {
      await step.evaluate(
        stepRecipe(spec, {
          shell: chooseShell({
            stepShell: spec.shell,
            stepShellArgs: spec.shell_args ?? [],
            dagShell: shellDag.shell,
            dagShellArgs: shellDag.args,
            defaultShell: defaultShellOf(hostEnv),
          }).words,
          cwd,
          params,
          processEnv: env.processEnv,
          run: { id: PREVIEW_RUN_ID, workDir: runWorkDir },
        }),
      );
    } catch {
      // The decision says why (an input that is not there yet): a run would fail the step there.
    }
    decisions.set(spec.name, { ...step.metadata });
  }
  return { specs: plan.specs, decisions };
}
