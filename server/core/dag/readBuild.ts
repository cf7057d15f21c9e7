// Dagu's build DAGs (`type: build`) as the reader sees them: a step's `inputs:` (the regular files it reads)
// and the rules its declared paths must follow, which Dagu checks when it loads the file. Paths are resolved,
// compared and locked when a run starts (server/runner/buildPlan.ts); these are the checks a file can fail
// before anything runs. Error texts are Dagu's.

import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { hasBuildPaths, mayBeReused, pathOutputs } from '../build/steps';
import type { BuildInputSpec } from '../build/types';
import type { ConditionSpec, DagSpec, StepSpec } from '../types';
import { describe, isNull, type DagReader, type Entry } from './dagReader';
import type { ReadStep } from './readStep';

/** Input and output names: a letter, then letters, digits and `_` (Dagu's declaredOutputNamePattern). */
const BUILD_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/**
 * `inputs:`: a non-empty list of `{name, path}`, names unique; the step needs an `id`. Whether the DAG is a
 * build DAG is checked with the rest of the paths (checkBuildPaths).
 */
export function readStepInputs(
  r: DagReader,
  entry: Entry | undefined,
  idEntry: Entry | null,
  stepNode: Node,
): BuildInputSpec[] | undefined {
  if (!entry) return undefined;
  if (!isSeq(entry.value) || entry.value.items.length === 0) {
    return r.errorAt(
      entry,
      `inputs must be a non-empty sequence (list) of {name, path}, got ${describe(entry.value)}`,
    );
  }
  if (
    !idEntry ||
    isNull(idEntry.value) ||
    (isScalar(idEntry.value) && String(idEntry.value.value).trim() === '')
  ) {
    r.error(stepNode, entry.field, 'a step with inputs must define id');
  }
  const out: BuildInputSpec[] = [];
  const seen = new Set<string>();
  for (const item of r.list(entry, 'inputs') ?? []) {
    const read = readDeclaredEntry(r, item, ['name', 'path'], 'input', 'a name and a path', seen);
    if (!read) continue;
    const { m, name } = read;
    const pathEntry = m.get('path');
    if (!pathEntry || isNull(pathEntry.value)) {
      r.errorAt(pathEntry ?? item, 'path is required');
      continue;
    }
    const path = r.string(pathEntry, 'a string')?.trim();
    if (path === undefined) continue;
    if (path === '') {
      r.errorAt(pathEntry, 'path must not be empty');
      continue;
    }
    out.push({ name, path });
  }
  return out;
}

/**
 * One entry of a step's `inputs:` or `outputs:`: a non-empty map of `keys` whose `name` is a letter, then
 * letters, digits and `_`, and unique in the list (`seen`, added to). Null, with the error reported, when not.
 */
export function readDeclaredEntry(
  r: DagReader,
  item: Entry,
  keys: readonly string[],
  kind: 'input' | 'output',
  shape: string,
  seen: Set<string>,
): { m: Map<string, Entry>; name: string } | null {
  if (!isMap(item.value) || item.value.items.length === 0) {
    r.errorAt(item, `an ${kind} must be a map with ${shape}, got ${describe(item.value)}`);
    return null;
  }
  const m = r.map(item, keys, `an ${kind}`);
  if (!m) return null;
  const nameEntry = m.get('name');
  if (!nameEntry || isNull(nameEntry.value)) {
    r.errorAt(nameEntry ?? item, 'name is required');
    return null;
  }
  const written = r.string(nameEntry, 'a string');
  if (written === undefined) return null;
  const name = written.trim();
  if (!BUILD_NAME.test(name)) {
    r.errorAt(
      nameEntry,
      `name must match ${BUILD_NAME.source} (a letter, then letters, digits and _), got ${JSON.stringify(written)}`,
    );
    return null;
  }
  if (seen.has(name)) {
    r.errorAt(nameEntry, `duplicate ${kind} name ${JSON.stringify(name)}`);
    return null;
  }
  seen.add(name);
  return { m, name };
}

/** A `${inputs.x}` / `${outputs.x}` reference in a text. */
function refersTo(text: string | null | undefined, ns: 'inputs' | 'outputs'): boolean {
  return text != null && new RegExp(`\\$\\{\\s*${ns}\\.`).test(text);
}

const ATTEMPT_ONLY = 'path output references are available only during executor attempts';
const NOT_YET = 'input path references are unavailable before step execution';

/** Checks every rule about build paths Dagu checks at load (its validator.go), on the DAG as read. */
export function checkBuildPaths(
  r: DagReader,
  dag: DagSpec,
  steps: readonly ReadStep[],
  root: Node,
  entries: { handlers: Entry | undefined; selector: Entry | undefined },
): void {
  const selectorEntry = entries.selector;
  const build = dag.type === 'build';
  if (build) {
    for (const [field, text] of [
      ['working_dir', dag.working_dir],
      ['shell', dag.shell],
      ...(dag.shell_args ?? []).map((a) => ['shell_args', a]),
    ] as Array<[string, string | null | undefined]>) {
      if (refersTo(text, 'outputs')) r.error(root, field, ATTEMPT_ONLY);
      if (refersTo(text, 'inputs')) r.error(root, field, NOT_YET);
    }
    for (const c of dag.preconditions ?? []) {
      if (conditionRefers(c, 'outputs') || conditionRefers(c, 'inputs'))
        r.error(root, 'preconditions', 'build path references are unavailable to DAG preconditions');
    }
    if (selectorEntry && Object.keys(dag.worker_selector ?? {}).length > 0) {
      // Dagu: build DAGs are local-only; workers do not share the materialization fencing.
      r.errorAt(selectorEntry, 'build DAGs run on this host only: they cannot be dispatched to workers');
    }
  }
  let relative = false;
  for (const { spec, node, field } of steps) {
    const outputs = pathOutputs(spec);
    if (!hasBuildPaths(spec)) continue;
    const err = (sub: string, message: string) => r.error(node, `${field}.${sub}`, message);
    if (!build) {
      const where = (spec.inputs ?? []).length > 0 ? 'inputs' : 'outputs';
      err(where, `step ${spec.name} declares build paths but DAG type is not "build"`);
    }
    if (outputs.length > 1) err('outputs', `step ${spec.name} declares more than one path output`);
    const kind = spec.call !== null || spec.parallel ? 'dag' : (spec.action?.kind ?? 'command');
    if (kind !== 'command' && kind !== 'exec') {
      err('type', `build paths are not supported by executor ${JSON.stringify(kind)}`);
    }
    for (const [sub, path] of [
      ...(spec.inputs ?? []).map((i) => ['inputs', i.path]),
      ...outputs.map((o) => ['outputs', o.path]),
    ] as Array<[string, string]>) {
      if (path.includes('$(') || path.includes('`')) err(sub, 'build paths cannot use command substitution');
      if (path.includes('${steps.') || refersTo(path, 'inputs'))
        err(sub, 'build paths must resolve before step execution');
      if (refersTo(path, 'outputs')) err(sub, ATTEMPT_ONLY);
      if (!path.startsWith('/')) relative = true;
    }
    for (const [sub, text] of preExecutionTexts(spec)) {
      if (refersTo(text, 'outputs')) err(sub, ATTEMPT_ONLY);
      if (refersTo(text, 'inputs')) err(sub, NOT_YET);
    }
    for (const o of spec.continue_on.output ?? []) {
      if (refersTo(o, 'outputs')) err('continue_on.output', ATTEMPT_ONLY);
    }
    if (outputs.length > 0 && spec.continue_on.mark_success) {
      err(
        'continue_on.mark_success',
        `build path output step ${spec.name} cannot mark a failed attempt as successful`,
      );
    }
    for (const c of [...(spec.preconditions ?? []), ...repeatCondition(spec)]) {
      if (conditionRefers(c, 'outputs')) err('preconditions', ATTEMPT_ONLY);
    }
  }
  const handlers = Object.values(dag.handler_on ?? {}).filter((h): h is StepSpec => !!h);
  if (entries.handlers && handlers.some(hasBuildPaths)) {
    r.errorAt(entries.handlers, 'build paths are not supported in lifecycle handlers');
  }
  for (const { spec, node, field } of steps) {
    if (spec.action?.kind === 'foreach' && spec.action.foreach.steps.some(hasBuildPaths)) {
      r.error(node, `${field}.foreach.steps`, 'build paths are not supported in foreach steps');
    }
  }
  if (build && relative && !dag.working_dir && !dag.file) {
    r.error(root, 'working_dir', 'relative build paths require an authored or caller-supplied working_dir');
  }
  if (build) checkRuntimeOutputRefs(r, dag, steps);
}

/** The fields of a step read before its command runs, where no attempt's paths exist yet. */
function preExecutionTexts(spec: StepSpec): Array<[string, string | null | undefined]> {
  const counts = [
    ...Object.entries(spec.retry_policy?.deferred ?? {}).map(([k, v]) => [`retry_policy.${k}`, String(v)]),
    ...Object.entries(spec.repeat_policy?.deferred ?? {}).map(([k, v]) => [`repeat_policy.${k}`, String(v)]),
  ] as Array<[string, string]>;
  return [
    ['working_dir', spec.dir],
    ['stdout', spec.stdout_file],
    ['stdout.artifact', spec.stdout_artifact],
    ['stderr', spec.stderr_file],
    ['stderr.artifact', spec.stderr_artifact],
    ['shell', spec.shell],
    ...(spec.shell_args ?? []).map((a) => ['shell_args', a] as [string, string]),
    ['signal_on_stop', spec.signal_on_stop],
    ...counts,
  ];
}

/** A repeat policy's condition, as a precondition-like check of the same texts. */
function repeatCondition(spec: StepSpec): ConditionSpec[] {
  const p = spec.repeat_policy;
  if (!p?.condition) return [];
  return [{ condition: p.condition, eval: null, expected: p.expected, negate: false }];
}

function conditionRefers(c: ConditionSpec, ns: 'inputs' | 'outputs'): boolean {
  return refersTo(c.condition, ns) || refersTo(c.eval, ns) || refersTo(c.expected, ns);
}

/**
 * A step that may be reused leaves no stdout, stderr, exit code or output variable behind when it is: Dagu
 * refuses `${id.stdout}`, `${id.output...}` and the like of such a step anywhere in the DAG (later steps read
 * `${steps.<id>.outputs.<name>}`, the final path, instead).
 */
function checkRuntimeOutputRefs(r: DagReader, dag: DagSpec, steps: readonly ReadStep[]): void {
  const producers = dag.steps.filter((s) => mayBeReused(dag, s));
  if (producers.length === 0) return;
  for (const { spec, node, field } of steps) {
    const texts = stepTexts(spec);
    for (const p of producers) {
      const ref = new RegExp(`\\$\\{\\s*${escapeRe(p.id!)}\\.(stdout|stderr|exit_code|outputs?)\\b`);
      if (texts.some((t) => ref.test(t))) {
        r.error(
          node,
          field,
          `runtime outputs from reusable build step ${p.name} are unavailable on reuse; use \${steps.${p.id}.outputs.<name>}`,
        );
      }
    }
  }
}

/** The texts of a step that may hold references to other steps. */
function stepTexts(spec: StepSpec): string[] {
  const conditions = [...(spec.preconditions ?? []), ...repeatCondition(spec)].flatMap((c) =>
    [c.condition, c.eval, c.expected].filter((t): t is string => t !== null),
  );
  return [
    ...(spec.command ?? []),
    spec.script ?? '',
    ...Object.values(spec.env ?? {}),
    ...conditions,
    ...(spec.continue_on.output ?? []),
    spec.dir ?? '',
    spec.stdout_file ?? '',
    spec.stderr_file ?? '',
    JSON.stringify(spec.action ?? null),
    JSON.stringify(spec.call ?? null),
  ];
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
