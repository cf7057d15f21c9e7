// One build DAG step's materialization, from the moment it is ready until it is done with its paths (Dagu's
// build.Session): it holds shared locks on its inputs and an exclusive lock on its output through its
// preconditions, its evaluation, every attempt and the commit; it decides whether the committed output can
// be reused (the recipe, the inputs' contents and the output still match the manifest); each attempt writes a
// fresh staging file beside the output, and only a successful attempt's file replaces the output, verified,
// under the store's journal. A failed attempt leaves the previous output and manifest as they were.

import { basename, dirname, join } from 'node:path';
import {
  MANIFEST_SCHEMA_VERSION,
  type BuildReason,
  type FileSnapshot,
  type Materialization,
  type MaterializationStore,
  type PathLocks,
  type StepBuildStatus,
} from '../core/build/types';
import { mayBeReused } from '../core/build/steps';
import type { DagSpec, StepSpec } from '../core/types';
import { snapshotFile } from '../store/buildFiles';
// Loaded when a build step first needs them: every run imports this module, few run build DAGs.
import { fsPromises } from '../store/fsPromises';
import { nodeCrypto } from '../store/nodeCrypto';
import type { BuildStepPlan } from './buildPlan';

/** Everything in a step's recipe: what, with what and where it runs (before any attempt's paths exist). */
export interface BuildRecipe {
  command: string[] | null;
  script: string | null;
  action: unknown;
  shell: string[];
  workingDir: string;
  params: readonly string[];
  /** The step's process environment, without the variables that change with every run (recipeEnvironment). */
  environment: Readonly<Record<string, string>>;
  stepEnv: Readonly<Record<string, string>>;
}

/** What the run knows of the step's place in it when the step becomes ready. */
export interface BuildStepContext {
  store: MaterializationStore | null;
  dag: Pick<DagSpec, 'name' | 'type' | 'secrets'>;
  step: StepSpec;
  plan: BuildStepPlan;
  runId: string;
  attempt: number;
  noReuse: boolean;
  /** A preview (`dagu dry`): no locks, no staging, nothing written. */
  dry: boolean;
  /** Dry only: a producer this step reads from would execute, so its input is not known yet. */
  deferred: boolean;
  /** An explicit dependency executed in this run (or was not reused): this step executes too. */
  controlDependencyRan: boolean;
  /** The fingerprints of the explicit dependencies, by step name: part of this step's fingerprint. */
  controlTokens: Readonly<Record<string, string>>;
}

/**
 * A step's recipe as a run sees it when the step is ready: what executeRun and a dry run's preview both
 * compute, so that a preview's decision is the run's.
 */
export function stepRecipe(
  spec: StepSpec,
  o: {
    shell: string[];
    cwd: string;
    params: readonly string[];
    processEnv: Readonly<Record<string, string | undefined>>;
    run: { id: string; workDir: string };
  },
): BuildRecipe {
  return {
    command: spec.command,
    script: spec.script,
    action: spec.action ?? null,
    shell: o.shell,
    workingDir: normalizeRunText(o.cwd, o.run),
    params: o.params,
    environment: recipeEnvironment(o.processEnv, o.run),
    stepEnv: spec.env,
  };
}

/** The variables that change with every run, left out of a recipe (Dagu's volatileRuntimeEnvironment). */
const VOLATILE_VARS = new Set([
  'DAG_RUN_ID',
  'DAG_RUN_LOG_FILE',
  'DAG_RUN_STEP_STDOUT_FILE',
  'DAG_RUN_STEP_STDERR_FILE',
  'DAGU_OUTPUT_FILE',
  'DAG_RUN_STATUS',
  'DAG_WAITING_STEPS',
  'DAG_RUN_WORK_DIR',
  'DAG_RUN_ARTIFACTS_DIR',
  'DAG_PUSHBACK',
  'DAG_PUSHBACK_ITERATION',
  'DAG_PUSHBACK_PREVIOUS_STDOUT_FILE',
  // Not in Dagu's list, but a scheduled run's slot time would make every scheduled run of a build DAG
  // execute: nothing would ever be reused on a schedule.
  'DAG_RUN_SCHEDULE_TIME',
]);

/** The stand-in for the per-run work directory in a recipe: a new run ID alone must not change it. */
const RUN_WORK_DIR = '${DAG_RUN_WORK_DIR}';

/**
 * The environment a recipe records: the step's, without the variables of VOLATILE_VARS, and with the run's
 * work directory and ID written as placeholders wherever a value contains them (PWD under the work dir).
 */
export function recipeEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  run: { id: string; workDir: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || VOLATILE_VARS.has(k)) continue;
    out[k] = normalizeRunText(v, run);
  }
  return out;
}

/** `text` with the run's work directory and ID as placeholders. */
export function normalizeRunText(text: string, run: { id: string; workDir: string }): string {
  let t = text;
  if (run.workDir && t.includes(run.workDir)) t = t.split(run.workDir).join(RUN_WORK_DIR);
  if (run.id && t.includes(run.id)) t = t.split(run.id).join('${DAG_RUN_ID}');
  return t;
}

/** JSON with object keys sorted, so that a digest does not depend on insertion order. */
function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : value,
  );
}

function digest(text: string): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(text).digest('hex')}`;
}

const FINGERPRINT_SCHEMA = 1;

export class BuildStep {
  readonly metadata: StepBuildStatus = { decision: 'none', phase: 'precondition' };
  private locks: PathLocks | null = null;
  private inputs: FileSnapshot[] = [];
  private recipeDigest = '';
  private closed = false;

  private constructor(private readonly c: BuildStepContext) {}

  /**
   * Why the step could not take its locks (the run stopping while it waited, an interrupted commit that
   * cannot be recovered, no store); null when it holds them. `metadata` says it too.
   */
  failure: Error | null = null;

  /**
   * Takes the step's path locks (not in a dry run) before its preconditions run. A step without build paths
   * needs none: it always executes. Never throws: see `failure`.
   */
  static async prepare(c: BuildStepContext, signal?: AbortSignal): Promise<BuildStep> {
    const s = new BuildStep(c);
    if (c.plan.inputs.length === 0 && c.plan.output === null) {
      s.set('always', 'execute', 'ineligible', 'step has no build file paths');
      return s;
    }
    if (c.dry) return s;
    if (c.store === null) {
      s.set('none', 'evaluate', 'store_unavailable');
      s.failure = new Error('build materialization store is unavailable');
      return s;
    }
    try {
      s.locks = await c.store.acquire(
        [
          ...c.plan.inputs.map((i) => ({ key: i.key, mode: 'shared' as const })),
          ...(c.plan.output ? [{ key: c.plan.output.key, mode: 'exclusive' as const }] : []),
        ],
        signal,
      );
    } catch (err) {
      const reason: BuildReason = signal?.aborted
        ? 'cancelled_before_decision'
        : (err as Error).name === 'MaterializationRecoveryError'
          ? 'recovery_failed'
          : 'evaluation_failed';
      s.set('none', 'evaluate', reason, (err as Error).message);
      s.failure = err instanceof Error ? err : new Error(String(err));
      return s;
    }
    if (c.plan.output) await removeLeftStaging(c.plan.output.path);
    return s;
  }

  /** The step's final input paths by name, for `${inputs.<name>}`. */
  inputPaths(): Record<string, string> {
    return Object.fromEntries(this.c.plan.inputs.map((i) => [i.name, i.path]));
  }

  /** Whether attempts stage and commit an output. */
  get hasOutput(): boolean {
    return this.c.plan.output !== null;
  }

  get reused(): boolean {
    return this.metadata.decision === 'reuse';
  }

  /** The final output path by its name (`${steps.<id>.outputs.<name>}`), once reused or committed. */
  published(): Record<string, string> {
    const o = this.c.plan.output;
    return o ? { [o.name]: o.path } : {};
  }

  /** The step's preconditions were not met (or could not be checked): no decision was reached. */
  preconditionEnded(reason: 'precondition_not_met' | 'precondition_error', detail: string): void {
    this.set('none', 'precondition', reason, detail);
  }

  /**
   * Decides between reuse and execution, after the preconditions passed. Throws (with `metadata` saying
   * why) when an input cannot be read: the step fails.
   */
  async evaluate(recipe: BuildRecipe): Promise<void> {
    if (this.metadata.decision === 'always') return;
    const { c } = this;
    this.set('none', 'evaluate', 'evaluation_failed');
    if (c.dry && c.deferred) {
      this.set(
        'deferred',
        'evaluate',
        'upstream_would_execute',
        'an upstream file producer would execute; evaluate after its output is known',
      );
      return;
    }
    const inputs: FileSnapshot[] = [];
    for (const i of c.plan.inputs) {
      try {
        inputs.push(await snapshotFile(i.name, i.path));
      } catch (err) {
        this.set('none', 'evaluate', 'input_missing', (err as Error).message);
        throw err;
      }
    }
    this.inputs = inputs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const output = c.plan.output;
    if (output) {
      this.metadata.materialization_key = nodeCrypto()
        .createHash('sha256')
        .update(`${c.dag.name}\0${c.step.id ?? c.step.name}\0${output.key}`)
        .digest('hex');
    }
    const ineligible = this.ineligibility();
    if (ineligible !== null) {
      this.set('always', 'execute', 'ineligible', ineligible);
      return;
    }
    this.recipeDigest = digest(
      canonicalJson({
        schema: FINGERPRINT_SCHEMA,
        ...recipe,
        inputs: [...c.plan.inputs]
          .map((i) => ({ name: i.name, path: i.path }))
          .sort((a, b) => (a.name < b.name ? -1 : 1)),
        output: output ? { name: output.name, path: output.path } : null,
        platform: `${process.platform}/${process.arch}`,
      }),
    );
    this.metadata.fingerprint = digest(
      canonicalJson({
        schema: FINGERPRINT_SCHEMA,
        recipe: this.recipeDigest,
        inputs: this.inputs,
        control: c.controlTokens,
      }),
    );
    if (c.controlDependencyRan) {
      return this.execute('control_dependency_ran', 'an explicit control dependency executed in this run');
    }
    if (c.noReuse) return this.execute('reuse_disabled', 'reuse was disabled for this run');
    const manifest = c.store ? await c.store.get(this.metadata.materialization_key!) : null;
    if (manifest === null) {
      return this.execute('manifest_missing', 'no prior successful materialization exists');
    }
    if (manifest.recipe_digest !== this.recipeDigest) {
      return this.execute('recipe_changed', 'the step recipe changed');
    }
    if (!sameSnapshots(manifest.inputs, this.inputs) || manifest.fingerprint !== this.metadata.fingerprint) {
      return this.execute('input_changed', 'declared input content changed');
    }
    let current: FileSnapshot;
    try {
      current = await snapshotFile(output!.name, output!.path);
    } catch {
      return this.execute('output_missing', 'the prior materialized output is unavailable');
    }
    if (!sameSnapshot(current, manifest.output)) {
      return this.execute('output_changed', 'the prior materialized output changed');
    }
    this.set('reuse', 'complete', 'matched', 'recipe, inputs, and output match the committed manifest');
    this.metadata.producer_run = manifest.producer_run;
    this.metadata.producer_attempt = manifest.producer_attempt;
  }

  /** Why the step cannot be reused, or null (Dagu's eligibility, with what only the run knows). */
  private ineligibility(): string | null {
    const { step, dag } = this.c;
    if (!step.id) return 'step has no id';
    const outputs = step.outputs ?? [];
    if (outputs.length !== 1 || !outputs[0].path) return 'step does not declare exactly one path output';
    if (!mayBeReused(dag, step)) {
      if (step.output || (step.structured_output ?? []).length > 0 || step.stdout_outputs !== undefined)
        return 'step publishes dynamic outputs';
      const kind = step.action?.kind ?? 'command';
      if (kind !== 'command' && kind !== 'exec') return 'executor does not support build paths';
      return 'step lifecycle is not reusable';
    }
    if ((dag.secrets ?? []).length > 0) return 'secret-consuming execution is not reusable';
    return null;
  }

  /**
   * A fresh, absent staging path beside the output for attempt `retry` (`${outputs.<name>}`), or null when
   * the step has no path output.
   */
  newAttempt(retry: number): { staging: string; outputs: Record<string, string> } | null {
    const o = this.c.plan.output;
    if (!o) return null;
    const staging = join(
      dirname(o.path),
      `${stagingPrefix(o.path)}${this.c.attempt}-${retry}-${nodeCrypto().randomBytes(8).toString('hex')}.tmp`,
    );
    return { staging, outputs: { [o.name]: staging } };
  }

  /**
   * Publishes a successful attempt's staged file: it must be there, the inputs unchanged since evaluation,
   * then the store replaces the output and the manifest under its journal. Throws, with `metadata` saying how
   * far it came; the previous output and manifest are then as they were.
   */
  async commit(staging: string): Promise<void> {
    const o = this.c.plan.output;
    if (!o) {
      this.metadata.phase = 'complete';
      return;
    }
    if (this.c.store === null || this.locks === null)
      throw new Error('build materialization store is unavailable');
    this.metadata.phase = 'verify';
    let output: FileSnapshot;
    try {
      output = await snapshotFile(o.name, staging);
    } catch (err) {
      throw new Error(`verify staged output: ${(err as Error).message}`, { cause: err });
    }
    for (const expected of this.inputs) {
      const now = await snapshotFile(expected.name, expected.path).catch(() => null);
      if (now === null || !sameSnapshot(now, expected)) {
        this.metadata.reason = 'input_changed_during_execution';
        throw new Error(`input ${expected.name} changed during execution`);
      }
    }
    const manifest: Materialization = {
      schema_version: MANIFEST_SCHEMA_VERSION,
      materialization_key: this.metadata.materialization_key ?? '',
      commit_id: nodeCrypto().randomBytes(16).toString('hex'),
      dag_name: this.c.dag.name,
      step_id: this.c.step.id ?? this.c.step.name,
      recipe_digest: this.recipeDigest,
      fingerprint: this.metadata.fingerprint ?? '',
      inputs: this.inputs,
      output: { ...output, path: o.path },
      producer_run: { dag_name: this.c.dag.name, run_id: this.c.runId },
      producer_attempt: this.c.attempt,
      completed_at: new Date().toISOString(),
    };
    this.metadata.phase = 'commit';
    await this.c.store.commit(this.locks, {
      stagingPath: staging,
      finalPath: o.path,
      manifest,
      preserveManifest: this.metadata.decision === 'always',
    });
    this.metadata.phase = 'complete';
  }

  /** Removes an attempt's staging file (gone already after a commit). */
  async discard(staging: string | null): Promise<void> {
    if (staging)
      await fsPromises()
        .unlink(staging)
        .catch(() => undefined);
  }

  /** Releases the path locks; once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.locks?.release();
  }

  private execute(reason: BuildReason, detail: string): void {
    this.set('execute', 'execute', reason, detail);
  }

  private set(
    decision: StepBuildStatus['decision'],
    phase: StepBuildStatus['phase'],
    reason?: BuildReason,
    detail?: string,
  ): void {
    this.metadata.decision = decision;
    this.metadata.phase = phase;
    if (reason === undefined) delete this.metadata.reason;
    else this.metadata.reason = reason;
    if (detail === undefined) delete this.metadata.detail;
    else this.metadata.detail = detail;
  }
}

/** The name prefix of the staging files of `output` (newAttempt). */
function stagingPrefix(output: string): string {
  return `.${basename(output).slice(0, 128)}.dagu-`;
}

/**
 * Removes the staging files an attempt of another run left beside `output` when its process was killed
 * before it could: the exclusive lock on the output, held now, means no live attempt is writing one.
 */
async function removeLeftStaging(output: string): Promise<void> {
  const prefix = stagingPrefix(output);
  const names = await fsPromises()
    .readdir(dirname(output))
    .catch(() => [] as string[]);
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith('.tmp'))
      await fsPromises()
        .unlink(join(dirname(output), name))
        .catch(() => {});
  }
}

function sameSnapshot(a: FileSnapshot, b: FileSnapshot): boolean {
  return a.name === b.name && a.path === b.path && a.size === b.size && a.digest === b.digest;
}

function sameSnapshots(a: readonly FileSnapshot[], b: readonly FileSnapshot[]): boolean {
  return a.length === b.length && a.every((x, i) => sameSnapshot(x, b[i]));
}
