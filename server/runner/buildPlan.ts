// The plan of a build DAG's run (`type: build`), made when the run starts: every declared input and output
// path resolved against the run scope and the DAG's stable base, made canonical, and compared. A step that
// reads a file another step makes depends on that step, without a `depends` saying so; each output has one
// producer; the graph stays acyclic; no step's stdout or stderr file is a declared path. Dagu's
// prepareBuildPlan, with its error texts.

import { dirname } from 'node:path';
import type { DagSpec, StepSpec } from '../core/types';
import { pathOutputs } from '../core/build/steps';
import { buildPathKey, resolveBuildPath } from '../store/buildFiles';

/** One resolved path: what the step calls it, where it is, and the key it is compared and locked by. */
export interface PlannedPath {
  name: string;
  path: string;
  key: string;
}

export interface BuildStepPlan {
  inputs: PlannedPath[];
  /** The step's one path output, or null. */
  output: PlannedPath | null;
}

export interface BuildPlan {
  /** Every step by name (a step without paths has neither inputs nor output). */
  steps: ReadonlyMap<string, BuildStepPlan>;
  /** Consumer step → the producers its inputs made it depend on (also when its `depends` names them). */
  inferred: ReadonlyMap<string, ReadonlySet<string>>;
  /** The DAG's steps with the inferred producers added to each consumer's `depends`. */
  specs: StepSpec[];
}

/** A plan that cannot be made: the run fails before any step starts, with this message. */
export class BuildPlanError extends Error {
  override name = 'BuildPlanError';
}

/**
 * The base relative paths are resolved against: the DAG's authored working directory, else the directory of
 * its file; null for a DAG with neither (the reader refuses relative paths there).
 */
export function buildPathBase(
  dag: Pick<DagSpec, 'file' | 'source_file'>,
  dagDir: string | null,
): string | null {
  if (dagDir !== null) return dagDir;
  const file = dag.source_file ?? dag.file;
  return file ? dirname(file) : null;
}

/**
 * Plans a build DAG's run. `resolve` gives a path's text with the run's references filled in (params, env);
 * `base` is from buildPathBase. Throws BuildPlanError.
 */
export async function planBuild(
  dag: Pick<DagSpec, 'steps'>,
  base: string | null,
  resolve: (text: string) => string,
  cwdOf: (step: StepSpec) => string | null = () => base,
): Promise<BuildPlan> {
  const steps = new Map<string, BuildStepPlan>();
  const producers = new Map<string, string>();
  const declared = new Map<string, string>();
  const place = async (step: string, what: 'input' | 'output', name: string, raw: string) => {
    const text = resolve(raw);
    if (/\$\{[^}]*\}/.test(text)) {
      throw new BuildPlanError(`step ${step} ${what} ${name} path must resolve before execution`);
    }
    let path: string;
    try {
      path = await resolveBuildPath(text, base, what === 'output');
    } catch (err) {
      throw new BuildPlanError(`step ${step} ${what} ${name}: ${(err as Error).message}`);
    }
    return { name, path, key: await buildPathKey(path) };
  };
  for (const spec of dag.steps) {
    const inputs: PlannedPath[] = [];
    for (const i of spec.inputs ?? []) {
      const p = await place(spec.name, 'input', i.name, i.path);
      inputs.push(p);
      declared.set(p.key, `build input ${i.name} declared by ${spec.name}`);
    }
    const o = pathOutputs(spec)[0];
    const output = o ? await place(spec.name, 'output', o.name, o.path) : null;
    if (output) {
      const previous = producers.get(output.key);
      if (previous !== undefined) {
        throw new BuildPlanError(
          `build output path ${output.path} has multiple producers: ${previous} and ${spec.name}`,
        );
      }
      producers.set(output.key, spec.name);
      declared.set(output.key, `build output produced by ${spec.name}`);
      const same = inputs.find((i) => i.key === output.key);
      if (same) {
        throw new BuildPlanError(
          `step ${spec.name} declares the same path as input and output: ${same.path}`,
        );
      }
    }
    steps.set(spec.name, { inputs, output });
  }

  for (const spec of dag.steps) {
    for (const [field, raw] of [
      ['stdout', spec.stdout_file],
      ['stderr', spec.stderr_file],
    ] as const) {
      if (!raw) continue;
      const text = resolve(raw);
      // A path that still has references is resolved when the step starts, where nothing checks it again:
      // Dagu checks it then; this product leaves it to the step (docs/dag-reference.md says so).
      // A relative file is the step's: in its working directory, as the step opens it.
      const dir = text.startsWith('/') ? '' : cwdOf(spec);
      if (/\$\{[^}]*\}/.test(text) || dir === null) continue;
      const key = await buildPathKey(dir === '' ? text : `${dir}/${text}`);
      const declaration = declared.get(key);
      if (declaration !== undefined) {
        throw new BuildPlanError(`step ${spec.name} ${field} path aliases ${declaration}: ${key}`);
      }
    }
  }

  const inferred = new Map<string, Set<string>>();
  for (const spec of dag.steps) {
    for (const input of steps.get(spec.name)!.inputs) {
      const producer = producers.get(input.key);
      if (producer === undefined || producer === spec.name) continue;
      if (!inferred.has(spec.name)) inferred.set(spec.name, new Set());
      inferred.get(spec.name)!.add(producer);
    }
  }
  const specs = dag.steps.map((s) => {
    const extra = [...(inferred.get(s.name) ?? [])].filter((p) => !s.depends.includes(p));
    return extra.length === 0 ? s : { ...s, depends: [...s.depends, ...extra] };
  });
  const cycle = findCycle(specs);
  if (cycle !== null) {
    const [producer, consumer] = cycle;
    throw new BuildPlanError(
      `infer dependency ${producer} -> ${consumer}: the steps' dependencies would form a cycle`,
    );
  }
  return { steps, inferred, specs };
}

/** An edge (dependency → dependent) that closes a cycle, or null when the graph is acyclic. */
function findCycle(specs: readonly StepSpec[]): [string, string] | null {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string): [string, string] | null => {
    state.set(name, 'visiting');
    for (const dep of byName.get(name)?.depends ?? []) {
      if (!byName.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'visiting') return [dep, name];
      if (s === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    state.set(name, 'done');
    return null;
  };
  for (const s of specs) {
    if (state.has(s.name)) continue;
    const found = visit(s.name);
    if (found) return found;
  }
  return null;
}
