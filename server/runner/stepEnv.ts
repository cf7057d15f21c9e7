// The environment and positional arguments a step's shell receives. Params travel only as environment
// values and argv entries, never as text inside the command, so no value can be parsed by the shell.

import { parseParamWord } from '../core/params';

/** A run's params split the way steps see them. */
export interface StepParams {
  /** `$1`, `$2`, ... of the step's shell. */
  positional: string[];
  /** Environment variables. */
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

/** The `DAG_*` variables every step gets. */
export interface DagRunVars {
  dagName: string;
  runId: string;
  stepName: string;
  stdoutLogFile: string;
  scheduleTime: string | null;
}

/**
 * Layers, later wins: the runner's own environment, DAG env, step env, named params, outputs of earlier
 * steps, then the `DAG_*` variables (reserved: a DAG cannot fake its own run ID).
 */
export function buildStepEnv(layers: {
  base: NodeJS.ProcessEnv;
  dagEnv: Record<string, string>;
  stepEnv: Record<string, string>;
  params: Record<string, string>;
  outputs: Record<string, string>;
  vars: DagRunVars;
}): NodeJS.ProcessEnv {
  return {
    ...layers.base,
    ...layers.dagEnv,
    ...layers.stepEnv,
    ...layers.params,
    ...layers.outputs,
    DAG_NAME: layers.vars.dagName,
    DAG_RUN_ID: layers.vars.runId,
    DAG_RUN_STEP_NAME: layers.vars.stepName,
    DAG_RUN_LOG_FILE: layers.vars.stdoutLogFile,
    DAG_RUN_SCHEDULE_TIME: layers.vars.scheduleTime ?? '',
  };
}
