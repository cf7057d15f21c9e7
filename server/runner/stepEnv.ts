// The environment of a run and of each of its steps, in Dagu 2.x's order (research note §2.2), lowest first:
// the filtered host environment, params, the run variables dagu manages, DAG `env` then dotenv, and the
// protected run variables again; per step on top: DAG_RUN_STEP_NAME and PWD, outputs of the steps it depends
// on, its own `env`, then the attempt's file variables. Values are resolved with core's resolver.

import { parseParamWord } from '../core/params';
import { resolveValue, type ValueScope } from '../core/dag/values';

/** A run's params split the way steps see them. */
export interface StepParams {
  /** `$1`, `$2`, ... */
  positional: string[];
  /** Environment variables, in order. */
  named: Record<string, string>;
}

/**
 * Splits a run's resolved param list (`RunStatus.params`) with the rule that wrote it: `KEY=value` with a
 * valid variable name is named, anything else (including `--flag=x`) is positional.
 */
export function splitParams(list: readonly string[]): StepParams {
  const words = list.map(parseParamWord);
  return {
    positional: words.filter((p) => p.name === null).map((p) => p.value),
    // fromEntries defines own properties: a param named __proto__ stays a variable, not a prototype.
    named: Object.fromEntries(words.flatMap((p) => (p.name === null ? [] : [[p.name, p.value]]))),
  };
}

/** The variables `env:` cannot override (Dagu's protected run variables). */
export const PROTECTED_RUN_VARS = [
  'DAG_NAME',
  'DAG_RUN_ID',
  'DAG_RUN_LOG_FILE',
  'DAG_RUN_WORK_DIR',
  'DAG_RUN_ARTIFACTS_DIR',
  'DAG_PARAMS_JSON',
] as const;

/** What dagu knows of a run before its DAG env is evaluated. */
export interface RunEnvInput {
  /** The dagu process's whole environment: DAG `env` values may read any of it (`TOKEN: ${TOKEN}`). */
  processEnv: Readonly<Record<string, string | undefined>>;
  /** The part of it steps inherit (see hostEnv.ts). */
  filteredHost: Readonly<Record<string, string>>;
  /** `RunStatus.params`. */
  params: readonly string[];
  /** `RunStatus.params_json`: the caller's JSON text, which DAG_PARAMS_JSON is then as it is (as in Dagu). */
  paramsJson?: string | null;
  /** The run variables dagu manages: DAG_NAME, DAG_RUN_ID, DAG_RUN_WORK_DIR, ... */
  managed: Readonly<Record<string, string>>;
  /** `${context.*}` values known for the whole run (`dag.name`, `run.id`, `paths.work_dir`, ...). */
  context: Readonly<Record<string, string>>;
  /** The DAG's `consts` (resolved at load), for `${consts.x}` in every field that resolves values. */
  consts?: Readonly<Record<string, string>>;
}

/** The run's scope: what every step and handler starts from. */
export interface RunEnv {
  /** The filtered host environment (the lowest layer of each step's process environment). */
  host: Record<string, string>;
  /** params < managed < DAG env < dotenv < protected; positional params under "1", "2", ... */
  vars: Record<string, string>;
  params: StepParams;
  /** Null when the run has no params at all: `${params}` then stays as written, DAG_PARAMS_JSON is unset. */
  paramsJson: string | null;
  context: Record<string, string>;
  consts: Readonly<Record<string, string>>;
}

/**
 * Resolved params as JSON (DAG_PARAMS_JSON, `${params}`): named by name, positional by place, written as Dagu
 * writes a Go map: keys in byte order (`"1"`, `"10"`, `"2"`, `"A"`), and `<`, `>`, `&`, U+2028 and U+2029
 * escaped.
 */
export function paramsJson(params: StepParams): string {
  const out = new Map<string, string>();
  params.positional.forEach((v, i) => out.set(String(i + 1), v));
  for (const [k, v] of Object.entries(params.named)) out.set(k, v);
  const keys = [...out.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((k) => `${goJsonString(k)}:${goJsonString(out.get(k)!)}`).join(',')}}`;
}

/** A JSON string as Go's encoding/json writes it (HTML-safe). */
function goJsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The value scope of a field with `vars` as its run scope. */
export function scopeOf(
  run: RunEnv,
  vars: Record<string, string>,
  extra: Partial<ValueScope> = {},
): ValueScope {
  return {
    vars,
    params: { ...positionalVars(run.params.positional), ...run.params.named },
    paramsJson: run.paramsJson,
    context: run.context,
    consts: run.consts,
    ...extra,
  };
}

/**
 * Evaluates the DAG `env` entries in order (each sees params, the managed variables, earlier entries and the
 * whole process environment) and returns the run scope without dotenv; {@link withDotenv} completes it.
 */
export function evaluateDagEnv(input: RunEnvInput, dagEnv: Readonly<Record<string, string>>): RunEnv {
  const params = splitParams(input.params);
  // Dagu: the caller's JSON text as it is; else without any resolved param there is no payload: `${params}`
  // stays, DAG_PARAMS_JSON is not set.
  const json = input.paramsJson ?? (input.params.length > 0 ? paramsJson(params) : null);
  const managed: Record<string, string> =
    json === null
      ? { ...input.managed }
      : { ...input.managed, DAG_PARAMS_JSON: json, DAGU_PARAMS_JSON: json };
  const run: RunEnv = {
    host: { ...input.filteredHost },
    vars: nullProto({ ...positionalVars(params.positional), ...params.named, ...managed }),
    params,
    paramsJson: json,
    context: { ...input.context },
    consts: nullProto({ ...(input.consts ?? {}) }),
  };
  const hostEnv = definedOnly(input.processEnv);
  for (const [name, text] of Object.entries(dagEnv)) {
    run.vars[name] = resolveValue(text, scopeOf(run, run.vars, { hostEnv }), 'dagEnv');
  }
  protect(run.vars, managed);
  return run;
}

/** Adds dotenv values after the DAG env (a dotenv value wins), then the protected variables again. */
export function withDotenv(run: RunEnv, values: ReadonlyArray<readonly [string, string]>): RunEnv {
  const vars = nullProto({ ...run.vars });
  const managed = Object.fromEntries(PROTECTED_RUN_VARS.flatMap((k) => (k in vars ? [[k, vars[k]]] : [])));
  for (const [name, value] of values) vars[name] = value;
  protect(vars, managed);
  return { ...run, vars };
}

/**
 * `run` with its secrets laid over everything else (Dagu puts them last). Load refuses the names Dagu manages,
 * so no protected variable is replaced.
 */
export function withSecrets(run: RunEnv, values: ReadonlyArray<readonly [string, string]>): RunEnv {
  const vars = nullProto({ ...run.vars });
  for (const [name, value] of values) vars[name] = value;
  return { ...run, vars };
}

/** What one step (or handler) adds to the run scope. */
export interface StepEnvInput {
  name: string;
  /** The step's working directory. */
  pwd: string;
  /** Output variables it may see: of the steps it depends on (directly or not), or of all for a handler. */
  outputs: Readonly<Record<string, string>>;
  /** The step's `env`, in order, unresolved. */
  env: Readonly<Record<string, string>>;
  /** Per-attempt files; null for a handler (Dagu gives handlers none of them). */
  files: { stdout: string; stderr: string; outputFile: string } | null;
  /** Other variables this step gets after its own env (a handler: before it, see `handler`). */
  extra?: Readonly<Record<string, string>>;
  /**
   * A handler, set up as Dagu's setupEnvironEventHandler does: `extra` (DAG_RUN_STATUS) is in scope before
   * its env, and the steps' output variables are laid over after it, so its env cannot read them and an
   * output wins over an env entry of the same name.
   */
  handler?: boolean;
  /** Step references (`${id.stdout}`, `${steps.id.outputs.x}`) the step's fields may use. */
  steps?: ValueScope['steps'];
  /** `${context.*}` values of this step only: `step.id`, a handler's `run.status`. */
  context?: Readonly<Record<string, string>>;
  /** A build DAG step's `${inputs.*}` and (during an attempt) `${outputs.*}` paths. */
  buildPaths?: ValueScope['buildPaths'];
}

/** A step's resolved environment: the run scope it sees, and the environment its process gets. */
export interface StepEnv {
  /** The scope for resolving the step's fields (no host environment in it). */
  scope: ValueScope;
  /** The process environment: filtered host, then the scope's variables (positional params left out). */
  processEnv: NodeJS.ProcessEnv;
}

/** Builds a step's environment; its `env` entries are resolved in order, without host-environment fallback. */
export function buildStepEnv(run: RunEnv, step: StepEnvInput): StepEnv {
  const vars = nullProto({
    ...run.vars,
    DAG_RUN_STEP_NAME: step.name,
    PWD: step.pwd,
    ...(step.handler ? step.extra : step.outputs),
  });
  const context: Record<string, string> = { ...run.context, ...step.context, 'step.name': step.name };
  if (step.files) {
    context['paths.step_stdout_file'] = step.files.stdout;
    context['paths.step_stderr_file'] = step.files.stderr;
    context['paths.step_output_file'] = step.files.outputFile;
  }
  const scopeRun = { ...run, context };
  for (const [name, text] of Object.entries(step.env)) {
    vars[name] = resolveValue(
      text,
      scopeOf(scopeRun, vars, { steps: step.steps, buildPaths: step.buildPaths }),
      'stepEnv',
    );
  }
  if (step.handler) Object.assign(vars, step.outputs);
  if (step.files) {
    vars.DAG_RUN_STEP_STDOUT_FILE = step.files.stdout;
    vars.DAG_RUN_STEP_STDERR_FILE = step.files.stderr;
    vars.DAGU_OUTPUT_FILE = step.files.outputFile;
  }
  if (!step.handler) Object.assign(vars, step.extra ?? {});
  const processEnv = nullProto({ ...run.host });
  for (const [name, value] of Object.entries(vars)) if (!/^\d+$/.test(name)) processEnv[name] = value;
  return {
    scope: scopeOf(scopeRun, vars, { steps: step.steps, buildPaths: step.buildPaths }),
    processEnv: processEnv as NodeJS.ProcessEnv,
  };
}

function positionalVars(positional: readonly string[]): Record<string, string> {
  return Object.fromEntries(positional.map((v, i) => [String(i + 1), v]));
}

function protect(vars: Record<string, string>, managed: Readonly<Record<string, string>>): void {
  for (const name of PROTECTED_RUN_VARS) if (managed[name] !== undefined) vars[name] = managed[name];
}

function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = nullProto({});
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** A copy with a null prototype: a variable named __proto__ stays a variable. */
function nullProto(entries: Record<string, string>): Record<string, string> {
  return Object.assign(Object.create(null) as Record<string, string>, entries);
}
