// Which steps of a build DAG declare files, and which of them Dagu could reuse: read by the DAG reader's
// checks and by the runner, which must not load the YAML reader (a run from the DAG cache parses nothing).

import type { DagSpec, StepSpec } from '../types';

/** The path outputs of a step (an `outputs` entry with a `path`). */
export function pathOutputs(step: Pick<StepSpec, 'outputs'>): Array<{ name: string; path: string }> {
  return (step.outputs ?? []).flatMap((o) => (o.path ? [{ name: o.name, path: o.path }] : []));
}

/** Whether a step declares build paths at all. */
export function hasBuildPaths(step: Pick<StepSpec, 'outputs' | 'inputs'>): boolean {
  return (step.inputs ?? []).length > 0 || pathOutputs(step).length > 0;
}

/**
 * Whether Dagu could reuse the step instead of running it (build.go's eligibility, less what only the run
 * knows: secrets): exactly one output, a path, and nothing else it would publish or wait for.
 */
export function mayBeReused(dag: Pick<DagSpec, 'type'>, step: StepSpec): boolean {
  if (dag.type !== 'build' || !step.id) return false;
  const outputs = step.outputs ?? [];
  if (outputs.length !== 1 || !outputs[0].path) return false;
  if (step.output || (step.structured_output ?? []).length > 0 || step.stdout_outputs !== undefined)
    return false;
  if (step.approval || step.repeat_policy?.mode || step.parallel || step.call) return false;
  const kind = step.action?.kind ?? 'command';
  return kind === 'command' || kind === 'exec';
}
