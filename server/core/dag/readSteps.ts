// Reads the `steps` of a DAG in all of Dagu's forms (maps, string shorthand, nested groups, a map of named
// steps), gives unnamed steps their generated names, and links dependencies: by name or id under `graph`,
// implied by order under `chain` (written into each step's `depends`, so the runner reads only `depends`).

import { isMap, isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import { findCycle } from '../graph';
import type { StepSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { isNull } from './dagReader';
import { stepDeprecations } from './deprecations';
import { textOf } from './readFields';
import { readStep } from './readStep';
import { resolveRewindTargets } from './readApproval';
import type { ReadStep, StepDefaults } from './readStep';

/** The steps of a DAG, read and linked. */
export function readSteps(
  r: DagReader,
  entry: Entry | undefined,
  root: Node,
  type: 'graph' | 'chain' | 'build',
  defaults: StepDefaults,
): ReadStep[] {
  if (!entry || isNull(entry.value)) {
    r.error(entry?.keyNode ?? root, 'steps', 'steps is required: a non-empty list of steps');
    return [];
  }
  let steps: ReadStep[];
  let groups: ReadStep[][];
  if (isMap(entry.value)) {
    steps = readStepMap(r, entry, defaults);
    groups = [];
  } else {
    const items = r.list(entry, 'steps');
    if (!items) return [];
    if (items.length === 0) r.errorAt(entry, 'must not be an empty list');
    groups = items.map((item, i) => readEntry(r, item, i, defaults));
    steps = groups.flat();
  }
  if (steps.length === 0) return steps;
  nameSteps(r, steps);
  const index = indexSteps(r, steps);
  if (type === 'chain') chainSteps(r, steps, groups);
  else linkGraph(r, steps, index);
  if (index.duplicates) return steps;
  routeSteps(r, steps, index, type === 'chain' ? 'chain' : 'graph');
  resolveRewindTargets(r, steps);
  const cycle = findCycle(steps.map((s) => s.spec));
  if (cycle) {
    const first = index.byName.get(cycle[0])!;
    const message = `dependency cycle: ${describeCycle(cycle)}`;
    // As in Dagu, validate passes a cycle (it is found when the run's plan is made); it still says so.
    if (r.validating) r.warnings.push(`${first.field}.depends: ${message}; the run fails when it starts`);
    else r.error(first.node, `${first.field}.depends`, message);
  }
  return steps;
}

/** One entry of the steps list: a step map, a string (shorthand) or a list (a group of steps). */
function readEntry(r: DagReader, item: Entry, index: number, defaults: StepDefaults): ReadStep[] {
  if (isSeq(item.value)) {
    const members: ReadStep[] = [];
    for (const member of r.list(item, 'a step group') ?? []) {
      if (isSeq(member.value)) {
        r.errorAt(member, 'a step group holds steps, not other groups');
        continue;
      }
      members.push(...readEntry(r, member, index, defaults).map((s) => ({ ...s, group: index })));
    }
    if (members.length === 0) r.errorAt(item, 'a step group must not be empty');
    return members;
  }
  if (isScalar(item.value) && typeof item.value.value === 'string') {
    r.warnings.push(...stepDeprecations(item.field, null));
    return readShorthand(r, item, index);
  }
  const step = readStep(r, item, defaults, index, null, foreachBody(r, item, defaults));
  return step ? [step] : [];
}

/**
 * How a foreach step's body is read: as steps of their own (a graph: Dagu links a body by its `depends` only),
 * with the DAG's step defaults; null when the body has an error.
 */
function foreachBody(r: DagReader, item: Entry, defaults: StepDefaults) {
  return (entry: Entry) => {
    const before = r.errors.length;
    const body = readSteps(r, entry, item.value as Node, 'graph', defaults);
    for (const step of body) {
      if (step.approvalEntry && step.spec.approval)
        r.errorAt(
          step.approvalEntry,
          'a foreach body step cannot have an approval (approve the foreach step)',
        );
    }
    return r.errors.length > before ? null : body.map((s) => s.spec);
  };
}

/** `- echo hi`: a step that runs the text, named like any unnamed step. */
function readShorthand(r: DagReader, item: Entry, index: number): ReadStep[] {
  const text = r.string(item, 'a command')!;
  if (text.trim() === '') {
    r.errorAt(item, 'a step must not be empty');
    return [];
  }
  const multiLine = /[\r\n]/.test(text.trim());
  const spec: StepSpec = {
    name: '',
    id: null,
    description: '',
    action: { kind: 'command' },
    shell_args: [],
    shell_explicit: false,
    script_interpreter: false,
    preconditions: [],
    repeat_policy: null,
    retry_exit_codes: [],
    signal_on_stop: null,
    stdout_file: null,
    stderr_file: null,
    log_output: 'separate',
    mail_on_error: false,
    parallel: null,
    command: multiLine ? null : [text],
    script: multiLine ? text : null,
    shell: null,
    dir: null,
    env: {},
    depends: [],
    timeout_sec: null,
    retry_policy: null,
    continue_on: { failure: false, skipped: false, exit_code: [], output: [], mark_success: false },
    output: null,
    call: null,
    params: [],
    worker_selector: null,
  };
  return [
    {
      spec,
      field: item.field,
      node: item.value!,
      nameEntry: null,
      idEntry: null,
      declaresDepends: false,
      dependsEntries: [],
      namePrefix: multiLine ? 'script' : 'cmd',
      index,
      group: null,
    },
  ];
}

/** `steps: {build: {...}}`: each key names its step (over any `name` inside); steps sorted by name. */
function readStepMap(r: DagReader, entry: Entry, defaults: StepDefaults): ReadStep[] {
  const map = r.map(entry, null, 'steps');
  if (!map) return [];
  if (map.size === 0) r.errorAt(entry, 'must not be empty');
  const names = [...map.keys()].sort();
  const out: ReadStep[] = [];
  names.forEach((name, i) => {
    const item = map.get(name)!;
    const step = readStep(r, item, defaults, i, null, foreachBody(r, item, defaults));
    if (!step) return;
    step.spec.name = name.trim();
    step.nameEntry = { ...item, value: item.keyNode };
    out.push(step);
  });
  return out;
}

/** A step without name takes its id, or `<prefix>_<n>` with n from its entry's position upwards. */
function nameSteps(r: DagReader, steps: readonly ReadStep[]): void {
  const taken = new Set<string>();
  for (const step of steps) {
    if (step.spec.name === '' && step.nameEntry === null) {
      if (step.spec.id) {
        step.spec.name = step.spec.id;
      } else {
        let n = step.index + 1;
        while (taken.has(`${step.namePrefix}_${n}`)) n++;
        step.spec.name = `${step.namePrefix}_${n}`;
      }
    }
    if (step.spec.name !== '') taken.add(step.spec.name);
  }
}

interface StepIndex {
  byName: Map<string, ReadStep>;
  byId: Map<string, ReadStep>;
  duplicates: boolean;
}

/** Unique names and ids; an id may not be another step's name. */
function indexSteps(r: DagReader, steps: readonly ReadStep[]): StepIndex {
  const index: StepIndex = { byName: new Map(), byId: new Map(), duplicates: false };
  for (const step of steps) {
    const name = step.spec.name;
    if (name === '') continue;
    const first = index.byName.get(name);
    if (first) {
      index.duplicates = true;
      r.error(
        step.nameEntry?.value ?? step.node,
        `${step.field}.name`,
        `step name ${JSON.stringify(name)} is already used by ${first.field}`,
      );
    } else {
      index.byName.set(name, step);
    }
  }
  for (const step of steps) {
    const id = step.spec.id;
    if (!id) continue;
    const first = index.byId.get(id);
    const named = index.byName.get(id);
    if (first) {
      index.duplicates = true;
      r.error(
        step.idEntry!.value,
        `${step.field}.id`,
        `id ${JSON.stringify(id)} is already used by ${first.field}`,
      );
    } else if (named && named !== step) {
      r.error(
        step.idEntry!.value,
        `${step.field}.id`,
        `id ${JSON.stringify(id)} is the name of ${named.field}`,
      );
    } else {
      index.byId.set(id, step);
    }
  }
  return index;
}

/** `graph`: each `depends` entry names a step by name or id; ids become names. */
function linkGraph(r: DagReader, steps: readonly ReadStep[], index: StepIndex): void {
  for (const step of steps) {
    const depends: string[] = [];
    for (const entry of step.dependsEntries) {
      // Matched as written: ids and names are trimmed when read, a dependency is not (as in Dagu).
      const written = textOf(entry);
      const target = index.byName.get(written) ?? index.byId.get(written);
      if (!target) {
        r.error(entry.value, `${step.field}.depends`, `step ${JSON.stringify(written)} does not exist`);
      } else if (depends.includes(target.spec.name)) {
        r.warnings.push(`${step.field}.depends: step ${JSON.stringify(written)} is listed more than once`);
      } else {
        depends.push(target.spec.name);
      }
    }
    step.spec.depends = depends;
  }
}

/**
 * Router steps, as Dagu builds them: each target of a route gets the precondition "the router's value matches
 * the route's pattern", a dependency on the router (when it has none yet) and `continue_on.skipped`, so that a
 * target whose route was not taken is skipped and what follows it still runs; the router gets
 * `continue_on.skipped` too. A step may be the target of one route of a router only. `graph` only.
 */
function routeSteps(
  r: DagReader,
  steps: readonly ReadStep[],
  index: StepIndex,
  type: 'graph' | 'chain',
): void {
  for (const router of steps) {
    const action = router.spec.action;
    if (action?.kind !== 'router') continue;
    const name = router.spec.name;
    if (type === 'chain') {
      r.error(
        router.node,
        `${router.field}.type`,
        `step '${name}': router steps require type 'graph'; change DAG type from 'chain' to 'graph' to use router steps`,
      );
      continue;
    }
    const seen = new Map<string, string>();
    for (const route of action.routes) {
      for (const targetName of route.targets) {
        const first = seen.get(targetName);
        if (first !== undefined) {
          r.error(
            router.node,
            `${router.field}.routes`,
            `router ${JSON.stringify(name)}: step ${JSON.stringify(targetName)} is targeted by multiple routes (${JSON.stringify(first)} and ${JSON.stringify(route.pattern)}); each step can only be a target of one route`,
          );
          return;
        }
        seen.set(targetName, route.pattern);
        const target = index.byName.get(targetName);
        if (!target) {
          r.error(
            router.node,
            `${router.field}.routes`,
            `router ${JSON.stringify(name)} references non-existent step ${JSON.stringify(targetName)}`,
          );
          return;
        }
        const spec = target.spec;
        spec.preconditions = [
          ...(spec.preconditions ?? []),
          { condition: action.value, eval: null, expected: route.pattern, negate: false },
        ];
        if (!spec.depends.includes(name)) spec.depends = [...spec.depends, name];
        spec.continue_on = { ...spec.continue_on, skipped: true };
      }
    }
    router.spec.continue_on = { ...router.spec.continue_on, skipped: true };
  }
}

/**
 * `chain`: each entry depends on the entry before it (a group: on all its members, and each member on the
 * whole previous entry). A `depends` key is an error. A map of steps has no order and gets no chain.
 */
function chainSteps(r: DagReader, steps: readonly ReadStep[], groups: readonly ReadStep[][]): void {
  for (const step of steps) {
    if (step.declaresDepends) {
      r.error(
        step.node,
        `${step.field}.depends`,
        'depends is not allowed in a DAG of type chain, whose steps run in order; use type: graph for explicit dependencies',
      );
    }
  }
  let previous: string[] = [];
  for (const group of groups) {
    if (group.length === 0) continue;
    for (const step of group) step.spec.depends = [...previous];
    previous = group.map((s) => s.spec.name);
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
