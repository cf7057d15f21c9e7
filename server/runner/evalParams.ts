// `params[].eval` at run start (research note §2.1): each rich definition with `eval` that the caller did not
// give is evaluated in source order, so a later one sees the earlier values; references and variables are
// resolved first, then backtick and `$(...)` bodies run with the DAG shell. A failure falls back to the
// `default`; without one the run fails before any step. The final values are then checked against the
// rich definitions.

import { resolveEvalValue, type ValueScope } from '../core/dag/values';
import { checkParams, paramList, pendingEval, readParamList, type LaidParam } from '../core/params';
import type { DagSpec } from '../core/types';
import { checkSchemaParams } from './schemaParams';
import { filterHostEnv } from './hostEnv';
import { substituteCommand } from './commandSubstitution';
import { chooseShell, defaultShellOf } from './stepCommand';

export interface EvalParamsOptions {
  /** The dagu process's environment: an `eval` may read all of it, and its commands run with it. */
  baseEnv: NodeJS.ProcessEnv;
  /** Where the commands run (the run's work directory). */
  cwd: string;
  /** Stops a running command (a stop of the run). */
  signal?: AbortSignal;
  /** How long one command substitution may run; default {@link EVAL_TIMEOUT_MS}; null: no limit. */
  timeoutMs?: number | null;
}

export type EvalParamsResult = { ok: true; list: string[] } | { ok: false; error: string };

/** How long one backtick or `$(...)` body of a param's `eval` may run. */
export const EVAL_TIMEOUT_MS = 10_000;

/**
 * The run's final params: `list` (RunStatus.params as created) with every pending `eval` filled in (and any
 * declared default the list lacks), in the DAG's declared order, and checked; an error names the param.
 */
export async function evaluateRunParams(
  dag: Pick<DagSpec, 'params' | 'shell' | 'shell_args'> &
    Partial<Pick<DagSpec, 'param_schema' | 'file' | 'working_dir'>>,
  list: readonly string[],
  opts: EvalParamsOptions,
): Promise<EvalParamsResult> {
  if (dag.param_schema) return checkSchemaParams(dag, dag.param_schema, list);
  const params = readParamList(dag.params, list);
  const pending = params.filter((p) => !p.has_value && pendingEval(p));
  if (pending.length > 0) {
    const hostEnv = definedOnly(opts.baseEnv);
    const shell = chooseShell({
      stepShell: null,
      stepShellArgs: [],
      dagShell: dag.shell ?? null,
      dagShellArgs: dag.shell_args ?? [],
      defaultShell: defaultShellOf(filterHostEnv(opts.baseEnv)),
    }).words;
    for (const [index, p] of params.entries()) {
      if (p.has_value || !pendingEval(p)) continue;
      const scope = scopeBefore(params, index, hostEnv);
      const env = { ...opts.baseEnv, ...scope.params };
      try {
        p.value = await resolveEvalValue(p.rich!.eval!, scope, (command) =>
          runSubstitution(shell, command, {
            ...opts,
            env,
            timeoutMs: p.rich!.unbounded ? null : (opts.timeoutMs ?? EVAL_TIMEOUT_MS),
          }),
        );
        p.has_value = true;
      } catch (err) {
        if (!p.rich!.has_default) {
          const why = err instanceof Error ? err.message : String(err);
          return { ok: false, error: `params: parameter ${JSON.stringify(p.name)} eval failed: ${why}` };
        }
        // `value` still holds the default.
        p.has_value = true;
      }
    }
  }
  const problem = checkParams(params);
  if (problem !== null) return { ok: false, error: `params: ${problem}` };
  return { ok: true, list: paramList(params) };
}

/** What the `eval` of the param at `index` sees: the params before it that have a value, and the host env. */
function scopeBefore(
  params: readonly LaidParam[],
  index: number,
  hostEnv: Record<string, string>,
): ValueScope {
  const vars: Record<string, string> = Object.create(null);
  const named: Record<string, string> = Object.create(null);
  params.slice(0, index).forEach((p, i) => {
    if (!p.has_value) return;
    if (p.name === null) vars[String(i + 1)] = p.value;
    else named[p.name] = vars[p.name] = p.value;
  });
  return { vars, params: named, hostEnv };
}

/** One backtick or `$(...)` body: `<shell> <args> -c <command>`; its stdout is the value. */
function runSubstitution(
  shell: readonly string[],
  command: string,
  o: EvalParamsOptions & { env: NodeJS.ProcessEnv },
): Promise<string> {
  // A configured -c is dropped: the body goes after the one -c added here.
  return substituteCommand(
    shell.filter((a, i) => i === 0 || a !== '-c'),
    command,
    {
      cwd: o.cwd,
      env: o.env,
      timeoutMs: o.timeoutMs === undefined ? EVAL_TIMEOUT_MS : o.timeoutMs,
      signal: o.signal,
    },
  );
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
