// The order the console lists a run's (or a DAG's) steps in: the order the DAG runs them, which is also the
// graph's left-to-right order. A step comes in the wave after the deepest step it waits for (a chain DAG's
// steps depend each on the one before, so they come out as the chain); inside a wave, declaration order,
// in which the runner dispatches steps that become ready together.

import { assignLayers, stepEdges, type LayoutStep } from './graphLayout';

/** What the order needs of a step; `depends` absent on every step means a record of an older version. */
export type OrderedStep = LayoutStep;

/**
 * The steps in run order. Records written before steps carried `depends` ran their steps one after another
 * in declaration order, so they keep it. A dependency that closes a cycle is ignored (that graph never ran),
 * and no step is ever dropped.
 */
export function orderStepsAsRun<T extends OrderedStep>(steps: readonly T[]): T[] {
  const layers = assignLayers(steps, stepEdges(steps));
  return steps
    .map((step, index) => ({ step, index, layer: layers.get(step.name) ?? 0 }))
    .sort((a, b) => a.layer - b.layer || a.index - b.index)
    .map((e) => e.step);
}
