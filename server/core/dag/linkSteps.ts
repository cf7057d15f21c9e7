// Links the steps of a DAG: unique names, chain or graph dependencies, dependencies that exist, no cycles.

import { findCycle } from '../graph';
import type { DagReader } from './dagReader';
import type { ReadStep } from './readStep';
import { textOf } from './readFields';

/**
 * Fills each step's `depends`. When no step has a `depends` key the steps form a chain, each depending on the
 * one before; otherwise the DAG is a graph and a step without `depends` is a root.
 */
export function linkSteps(r: DagReader, steps: readonly ReadStep[]): void {
  const firstByName = new Map<string, ReadStep>();
  let duplicates = false;
  for (const step of steps) {
    const name = step.spec.name;
    if (name === '') continue;
    const first = firstByName.get(name);
    if (first) {
      duplicates = true;
      r.error(
        step.nameEntry?.value ?? step.node,
        `${step.field}.name`,
        `step name ${JSON.stringify(name)} is already used by ${first.field}`,
      );
    } else {
      firstByName.set(name, step);
    }
  }

  const isGraph = steps.some((s) => s.declaresDepends);
  if (!isGraph) {
    for (let i = 1; i < steps.length; i++) {
      if (steps[i - 1].spec.name !== '') steps[i].spec.depends = [steps[i - 1].spec.name];
    }
    return;
  }

  for (const step of steps) {
    const depends: string[] = [];
    for (const entry of step.dependsEntries) {
      const dep = textOf(entry).trim();
      if (depends.includes(dep)) {
        r.warnings.push(`${step.field}.depends: step ${JSON.stringify(dep)} is listed more than once`);
      } else if (!firstByName.has(dep)) {
        r.error(entry.value, `${step.field}.depends`, `step ${JSON.stringify(dep)} does not exist`);
      } else {
        depends.push(dep);
      }
    }
    step.spec.depends = depends;
  }

  // With two steps of one name the edges are ambiguous; that error is enough until the names are fixed.
  if (duplicates) return;
  const cycle = findCycle(steps.map((s) => s.spec));
  if (cycle) {
    const first = firstByName.get(cycle[0])!;
    r.error(first.node, `${first.field}.depends`, `dependency cycle: ${describeCycle(cycle)}`);
  }
}

/** "a depends on c, which depends on b, which depends on a", or "b depends on itself". */
function describeCycle(cycle: string[]): string {
  if (cycle.length === 1) return `${cycle[0]} depends on itself`;
  const loop = [...cycle, cycle[0]];
  let text = `${loop[0]} depends on ${loop[1]}`;
  for (const name of loop.slice(2)) text += `, which depends on ${name}`;
  return text;
}
