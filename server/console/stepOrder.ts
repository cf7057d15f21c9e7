// The order the console lists a run's (or a DAG's) steps in: the order the DAG runs them. A chain DAG's
// steps depend each on the one before, so they come out as the chain; a graph DAG's steps come after the
// steps they wait for, declaration order breaking ties (as the runner dispatches them).

import { topoOrder } from '../core/graph';

/** What the order needs of a step; `depends` absent on every step means a record of an older version. */
export interface OrderedStep {
  name: string;
  depends?: readonly string[] | null;
}

/**
 * The steps in run order. Records written before steps carried `depends` ran their steps one after another
 * in declaration order, so they keep it; so does a graph with a cycle (it never ran), rather than lose steps.
 */
export function orderStepsAsRun<T extends OrderedStep>(steps: readonly T[]): T[] {
  if (!steps.some((s) => s.depends !== undefined && s.depends !== null)) return [...steps];
  const byName = new Map(steps.map((s) => [s.name, s]));
  const sorted = topoOrder(steps.map((s) => ({ name: s.name, depends: [...(s.depends ?? [])] })));
  if (!sorted || byName.size !== steps.length) return [...steps];
  return sorted.map((s) => byName.get(s.name)!);
}
