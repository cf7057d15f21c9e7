// The step graph of a DAG: cycle detection and order for validation, and which steps may start or can never
// start for the runner. Edges are `depends` lists; names that are not steps are left to the DAG validator.

import type { StepSpec, StepState } from './types';

/** What the graph needs to know of a step. */
export type GraphStep = Pick<StepSpec, 'name' | 'depends'>;

/** What the runner's questions need to know of a step. */
export type RunnableStep = Pick<StepSpec, 'name' | 'depends' | 'continue_on'>;

export interface NextRunnableOptions {
  /** At most this many steps run at once (running or waiting to retry); unlimited when absent. */
  maxActive?: number;
}

/**
 * A dependency cycle, or null. The names are in "depends on" order, starting from the cycle's member declared
 * first: `['a', 'c', 'b']` means a depends on c, c on b and b on a. A step that depends on itself gives `['a']`.
 */
export function findCycle(steps: readonly GraphStep[]): string[] | null {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const order = new Map(steps.map((s, i) => [s.name, i]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];

  const visit = (name: string): string[] | null => {
    state.set(name, 'visiting');
    path.push(name);
    for (const dep of byName.get(name)?.depends ?? []) {
      if (!byName.has(dep)) continue;
      if (state.get(dep) === 'visiting') return path.slice(path.indexOf(dep));
      if (state.get(dep) === undefined) {
        const cycle = visit(dep);
        if (cycle) return cycle;
      }
    }
    path.pop();
    state.set(name, 'done');
    return null;
  };

  for (const step of steps) {
    if (state.has(step.name)) continue;
    const cycle = visit(step.name);
    if (cycle) {
      const first = cycle.reduce((best, n, i) => (order.get(n)! < order.get(cycle[best])! ? i : best), 0);
      return [...cycle.slice(first), ...cycle.slice(0, first)];
    }
  }
  return null;
}

/**
 * The steps ordered so that every step comes after the steps it depends on; among steps that could go in
 * either order, declaration order wins. Null when the graph has a cycle.
 */
export function topoOrder<T extends GraphStep>(steps: readonly T[]): T[] | null {
  const names = new Set(steps.map((s) => s.name));
  const placed = new Set<string>();
  const out: T[] = [];
  // Quadratic, and fine: DAG files have tens of steps, and this keeps declaration order without a heap.
  while (out.length < steps.length) {
    const next = steps.find(
      (s) => !placed.has(s.name) && s.depends.every((d) => placed.has(d) || !names.has(d)),
    );
    if (!next) return null;
    placed.add(next.name);
    out.push(next);
  }
  return out;
}

/**
 * Steps that may start now: not started, and every dependency succeeded or failed with
 * `continue_on.failure`. In declaration order, limited by `maxActive`.
 */
export function nextRunnable<T extends RunnableStep>(
  steps: readonly T[],
  states: Readonly<Record<string, StepState>>,
  opts: NextRunnableOptions = {},
): T[] {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const ready = steps.filter(
    (s) =>
      stateOf(states, s.name) === 'not_started' &&
      s.depends.every((d) => {
        const dep = byName.get(d);
        return dep !== undefined && lets(dep, stateOf(states, d)) === 'through';
      }),
  );
  if (opts.maxActive === undefined) return ready;
  const active = steps.filter((s) => ['running', 'retrying'].includes(stateOf(states, s.name))).length;
  return ready.slice(0, Math.max(0, opts.maxActive - active));
}

/**
 * Steps that can never start because a dependency failed (without `continue_on.failure`), was aborted or
 * skipped, or is itself blocked. The runner marks them `skipped`. In declaration order.
 */
export function blockedSteps<T extends RunnableStep>(
  steps: readonly T[],
  states: Readonly<Record<string, StepState>>,
): T[] {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const blocked = new Set<string>();
  // Repeat until nothing changes so that blocking travels down chains whatever the declaration order.
  for (let changed = true; changed;) {
    changed = false;
    for (const s of steps) {
      if (blocked.has(s.name) || stateOf(states, s.name) !== 'not_started') continue;
      const stuck = s.depends.some((d) => {
        const dep = byName.get(d);
        return dep === undefined || blocked.has(d) || lets(dep, stateOf(states, d)) === 'never';
      });
      if (stuck) {
        blocked.add(s.name);
        changed = true;
      }
    }
  }
  return steps.filter((s) => blocked.has(s.name));
}

/** Whether a dependency in this state lets its dependents through, not yet, or never. */
function lets(dep: RunnableStep, state: StepState): 'through' | 'not_yet' | 'never' {
  switch (state) {
    case 'succeeded':
    case 'partially_succeeded':
      return 'through';
    case 'failed':
      return dep.continue_on.failure ? 'through' : 'never';
    case 'aborted':
    case 'skipped':
    case 'rejected':
      return 'never';
    case 'not_started':
    case 'running':
    case 'retrying':
    case 'waiting':
      return 'not_yet';
  }
}

function stateOf(states: Readonly<Record<string, StepState>>, name: string): StepState {
  return states[name] ?? 'not_started';
}
