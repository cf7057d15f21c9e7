// Reads one step (or one handler) of a DAG file into a StepSpec; names, ids and dependencies are settled
// later (readSteps.ts), once every step is known.

import { isMap, isScalar, isSeq, Pair, YAMLMap } from 'yaml';
import type { Node } from 'yaml';
import { readsStream } from '../structuredOutput';
import type {
  ApprovalSpec,
  DeclaredOutputSpec,
  StdoutOutputsSpec,
  StepSpec,
  StructuredOutputEntry,
} from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull, writtenKey } from './dagReader';
import { envEvalNames } from './dagu1';
import { stepDeprecations } from './deprecations';
import { readExecution } from './readAction';
import { readForeachExecution, type ReadForeachBody } from './readForeach';
import { readArtifactRedirect, readStdoutObject, readStructuredOutput } from './readOutputs';
import { ENV_NAME_PATTERN, readEnv, readNameList, readWorkerSelector } from './readFields';
import {
  readContinueOn,
  readCount,
  readPreconditions,
  readRepeatPolicy,
  readSignal,
  readStepRetryPolicy,
} from './readPolicies';
import { UNSUPPORTED_STEP_KEYS } from './unsupported';
import { readDeclaredEntry, readStepInputs } from './readBuild';
import { readApproval } from './readApproval';
import { outputSchemaProblem } from '../outputSchema';
import { customCall, customContext, expandCustomStep, type CustomCall } from './customSteps';

export const STEP_KEYS = [
  'name',
  'id',
  'description',
  'approval',
  'working_dir',
  'run',
  'action',
  'with',
  'command',
  'script',
  'exec',
  'shell',
  'shell_args',
  'type',
  'config',
  'call',
  'params',
  'parallel',
  'foreach',
  'value',
  'routes',
  'stdout',
  'stderr',
  'log_output',
  'output',
  'outputs',
  'inputs',
  'output_schema',
  'depends',
  'dependencies',
  'continue_on',
  'retry_policy',
  'repeat_policy',
  'mail_on_error',
  'preconditions',
  'signal_on_stop',
  'worker_selector',
  'env',
  'timeout_sec',
] as const;

/** The keys `defaults:` may give every step. */
export const DEFAULTS_KEYS = [
  'continue_on',
  'retry_policy',
  'repeat_policy',
  'timeout_sec',
  'mail_on_error',
  'signal_on_stop',
  'env',
  'preconditions',
] as const;

/** Steps run for at most this long (about 68 years): a bigger number is a typo, not a limit. */
const MAX_TIMEOUT_SEC = 2 ** 31 - 1;

/** A step as read, with what settling its name and dependencies needs to report problems at the right place. */
export interface ReadStep {
  spec: StepSpec;
  field: string;
  /** The step's map (or string), where errors about the whole step point. */
  node: Node;
  /** The `name` entry, or null when the step has none. */
  nameEntry: Entry | null;
  idEntry: Entry | null;
  /** True when the step has a `depends` key at all, even an empty one. */
  declaresDepends: boolean;
  /** Each dependency (name or id) with its place in the file. */
  dependsEntries: Entry[];
  /** The prefix of the step's generated name when it has neither name nor id. */
  namePrefix: string;
  /** The `approval` entry, when the step has one. */
  approvalEntry?: Entry;
  /** The top-level index of the step's entry in `steps` (a group's members share it). */
  index: number;
  /** Members of a group (`- [a, b]`) share a group number; null for a plain entry. */
  group: number | null;
}

/** Step `defaults:` of the DAG, applied to every key a step does not set itself. */
export type StepDefaults = ReadonlyMap<string, Entry> | null;

/**
 * Reads a step map. `handlerName` is given for handlers (`onSuccess`, ...), whose name is fixed and which may
 * not depend on anything. Returns null when the entry is not a map at all.
 */
export function readStep(
  r: DagReader,
  entry: Entry,
  defaults: StepDefaults,
  index: number,
  handlerName: string | null = null,
  readBody: ReadForeachBody | null = null,
  expanding: readonly string[] | null = null,
): ReadStep | null {
  const firstError = r.errors.length;
  const map = r.map(entry, STEP_KEYS, 'a step', UNSUPPORTED_STEP_KEYS, true);
  if (!map) return null;
  checkExactCase(r, map);
  const node = entry.value as Node;
  // An expanded custom step is not written as such: its template's spellings are the definition's business.
  if (expanding === null) r.warnings.push(...stepDeprecations(entry.field, map));
  const custom = customCall(r, map);
  if (custom)
    return readCustomStep(r, entry, map, custom, defaults, index, handlerName, readBody, expanding ?? []);

  const nameEntry = handlerName === null ? (map.get('name') ?? null) : null;
  const name = handlerName ?? readStepName(r, nameEntry);
  const idEntry = map.get('id') ?? null;
  const id = readStepId(r, idEntry);

  const beforeExecution = r.errors.length;
  const foreachEntry = map.get('foreach');
  const exec =
    foreachEntry && !isNull(foreachEntry.value)
      ? readForeachExecution(r, map, foreachEntry, readBody)
      : readExecution(r, map, entry);
  const afterExecution = r.errors.length;
  if (handlerName !== null && exec.action.kind === 'human') {
    r.errorAt(map.get('action')!, 'a handler cannot be a human.task step');
  }
  const approvalEntry = map.get('approval');
  const approval = readApproval(r, approvalEntry);
  if (handlerName !== null && approval) r.errorAt(approvalEntry!, 'a handler cannot have an approval');
  const dependsEntry = map.get('depends');
  readFileDependencies(r, map.get('dependencies'));
  const dependsEntries = handlerName === null ? readNameList(r, dependsEntry, 'depends') : [];

  const outputEntry = map.get('output');
  const objectOutput = outputEntry !== undefined && isMap(outputEntry.value);
  const structured = objectOutput ? readStructuredOutput(r, outputEntry) : undefined;
  const output = objectOutput ? undefined : readOutputName(r, outputEntry);
  const outputs = readDeclaredOutputs(r, map.get('outputs'), idEntry, node);
  const inputs = readStepInputs(r, map.get('inputs'), idEntry, node);
  const stdoutEntry = map.get('stdout');
  const stdoutObject = stdoutEntry && isMap(stdoutEntry.value) ? readStdoutObject(r, stdoutEntry) : {};
  const stdoutOutputs = stdoutObject.outputs;
  const stdout = readRedirect(r, stdoutEntry);
  const stderrEntry = map.get('stderr');
  const stderr = readRedirect(r, stderrEntry);
  const stderrArtifact =
    stderrEntry && isMap(stderrEntry.value) ? readStderrObject(r, stderrEntry) : undefined;
  if (stdoutObject.artifact !== undefined && stdoutObject.artifact === stderrArtifact) {
    r.errorAt(
      stderrEntry!,
      `stdout.artifact and stderr.artifact cannot point to the same file ${JSON.stringify(stderrArtifact)}; use log_output: merged instead`,
    );
  }
  // Dagu runs a step that has nothing to execute but an object output reading no stream as a noop step.
  if (
    structured &&
    structured.length > 0 &&
    exec.action.kind === 'command' &&
    exec.command === null &&
    exec.script === null &&
    !readsStream(structured, 'stdout') &&
    !readsStream(structured, 'stderr')
  ) {
    exec.action = { kind: 'noop' };
    withdrawNeedsRun(r, beforeExecution, afterExecution);
  }
  if (stdout !== null && stdout === stderr) {
    r.errorAt(map.get('stderr')!, 'stdout and stderr name the same file; use log_output: merged instead');
  }
  const retry = readStepRetryPolicy(r, ownOrDefault(map, defaults, 'retry_policy'));
  const timeout = readCount(r, ownOrDefault(map, defaults, 'timeout_sec'), 0, MAX_TIMEOUT_SEC);
  const selector = readWorkerSelector(r, map.get('worker_selector'));
  if (selector && exec.action.kind !== 'dag') {
    r.errorAt(
      map.get('worker_selector')!,
      'worker_selector on a step is only for sub-DAG steps (use the DAG-level key)',
    );
  }
  const spec: StepSpec = {
    name: name ?? '',
    id: id ?? null,
    ...optional<'approval', ApprovalSpec>('approval', approval),
    description: r.string(map.get('description'))?.trim() ?? '',
    action: exec.action,
    shell_args: exec.shell_args,
    shell_explicit: exec.shell_explicit,
    script_interpreter: exec.script_interpreter,
    preconditions: readPreconditions(r, ownOrDefault(map, defaults, 'preconditions')),
    repeat_policy:
      handlerName === null ? readRepeatPolicy(r, ownOrDefault(map, defaults, 'repeat_policy')) : null,
    retry_exit_codes: retry.exitCodes,
    signal_on_stop: readSignal(r, ownOrDefault(map, defaults, 'signal_on_stop')),
    stdout_file: stdout,
    stderr_file: stderr,
    // Absent when the step has none (the DAG's log_output applies then). Absent, not undefined: a parsed DAG
    // must survive JSON unchanged to be kept in the DAG parse cache.
    ...optional('log_output', readLogOutput(r, map.get('log_output'))),
    mail_on_error: r.boolean(ownOrDefault(map, defaults, 'mail_on_error')) ?? false,
    parallel: exec.parallel,
    command: exec.command,
    script: exec.script,
    shell: exec.shell,
    dir: readNonEmpty(r, map.get('working_dir')) ?? null,
    env: readStepEnv(r, map.get('env'), defaults?.get('env')),
    depends: [],
    timeout_sec: timeout === undefined || timeout === 0 ? null : timeout,
    retry_policy: handlerName === null ? retry.policy : null,
    continue_on: readContinueOn(r, ownOrDefault(map, defaults, 'continue_on')),
    output: output ?? null,
    ...(outputs ? { outputs } : {}),
    ...(inputs ? { inputs } : {}),
    ...optional<'structured_output', Array<[string, StructuredOutputEntry]>>(
      'structured_output',
      structured && structured.length > 0 ? structured : undefined,
    ),
    ...optional<'stdout_outputs', StdoutOutputsSpec>('stdout_outputs', stdoutOutputs),
    ...optional<'stdout_artifact', string>('stdout_artifact', stdoutObject.artifact),
    ...optional<'stderr_artifact', string>('stderr_artifact', stderrArtifact),
    ...optional('output_schema', readOutputSchema(r, map.get('output_schema'))),
    call: exec.call,
    params: exec.params,
    worker_selector: selector,
  };
  const envEval = envEvalNames(r.evalEnv, map.get('env')?.value);
  if (envEval.length > 0) spec.env_eval = envEval;
  r.dropFollowOns(firstError);
  return {
    spec,
    field: entry.field,
    node,
    nameEntry,
    idEntry,
    declaresDepends: dependsEntry !== undefined,
    dependsEntries,
    namePrefix: exec.namePrefix,
    ...(approvalEntry ? { approvalEntry } : {}),
    index,
    group: null,
  };
}

/**
 * A step that calls a custom action or legacy step type (customSteps.ts): its expansion read as a step, every
 * problem in it told as the definition's (`custom action "x": ...`). A call that cannot be expanded is read as
 * a step that does nothing, so that its name and dependencies still count.
 */
function readCustomStep(
  r: DagReader,
  entry: Entry,
  map: Map<string, Entry>,
  call: CustomCall,
  defaults: StepDefaults,
  index: number,
  handlerName: string | null,
  readBody: ReadForeachBody | null,
  expanding: readonly string[],
): ReadStep | null {
  const expanded = expandCustomStep(r, entry, map, call, expanding);
  if (!expanded) return placeholderStep(r, entry, map, call, index, handlerName);
  const from = r.errors.length;
  const read = readStep(r, expanded, defaults, index, handlerName, readBody, [...expanding, call.name]);
  const context = customContext(call);
  for (let i = from; i < r.errors.length; i++) r.errors[i].message = `${context}: ${r.errors[i].message}`;
  if (!read || 'broken' in call.def) return read;
  // The outermost definition names the step, as in Dagu (`greet_1`).
  read.namePrefix = call.name;
  read.node = entry.value as Node;
  if (call.def.description !== '' && read.spec.description === '')
    read.spec.description = call.def.description;
  if (call.def.outputSchema && read.spec.output_schema === undefined)
    read.spec.output_schema = structuredClone(call.def.outputSchema);
  return read;
}

/** A call that could not be expanded, as a step that runs nothing: its `name`, `id` and `depends` only. */
function placeholderStep(
  r: DagReader,
  entry: Entry,
  map: Map<string, Entry>,
  call: CustomCall,
  index: number,
  handlerName: string | null,
): ReadStep | null {
  const kept = new YAMLMap();
  kept.range = (entry.value as Node | null)?.range;
  for (const key of ['name', 'id', 'depends']) {
    const e = map.get(key);
    if (e) kept.items.push(new Pair(e.keyNode, e.value));
  }
  kept.items.push(new Pair(r.createNode('action', call.via.keyNode), r.createNode('noop', call.via.value)));
  const read = readStep(r, { ...entry, value: kept }, null, index, handlerName, null, [call.name]);
  if (read) read.namePrefix = call.name;
  return read;
}

/**
 * A step's own entry for `key`, else the one `defaults:` gives. A module function, not a closure in readStep:
 * the bundle names every named closure when it is made, which costs each step a property definition.
 */
function ownOrDefault(map: Map<string, Entry>, defaults: StepDefaults, key: string): Entry | undefined {
  return map.get(key) ?? defaults?.get(key);
}

/** A step's env: the defaults' entries first, then the step's own (a later entry wins). */
function readStepEnv(
  r: DagReader,
  own: Entry | undefined,
  fromDefaults: Entry | undefined,
): Record<string, string> {
  if (!fromDefaults) return readEnv(r, own);
  return { ...readEnv(r, fromDefaults), ...readEnv(r, own) };
}

function readStepName(r: DagReader, entry: Entry | null): string | undefined {
  if (!entry) return undefined;
  const raw = r.scalarText(entry, 'a string');
  if (raw === undefined) return isNull(entry.value) ? r.errorAt(entry, 'must not be empty') : undefined;
  const name = raw.trim();
  if (name === '') return r.errorAt(entry, 'must not be empty');
  // Dagu counts the bytes of the name's UTF-8 form.
  const bytes = utf8Length(name);
  if (bytes > MAX_STEP_NAME_BYTES) {
    return r.errorAt(
      entry,
      `a step name has at most ${MAX_STEP_NAME_BYTES} bytes in UTF-8, got ${bytes}${bytes === name.length ? '' : ` (${name.length} characters)`}`,
    );
  }
  // A "/" is allowed, as in Dagu: log file names are made file-safe (runner/logFiles.ts).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return r.errorAt(entry, 'a step name must not contain control characters');
  }
  return name;
}

const MAX_STEP_NAME_BYTES = 255;

/** The length of a text in UTF-8 bytes. */
export function utf8Length(text: string): number {
  // By UTF-16 unit rather than for-of by code point: every step name is measured, mostly in V8's interpreter,
  // where for-of allocates a string and a result at every turn. A surrogate pair is one 4-byte code point; a
  // lone surrogate counts 3 bytes, as its own code point did.
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
const RESERVED_IDS = new Set(['env', 'params', 'args', 'stdout', 'stderr', 'output', 'outputs']);

function readStepId(r: DagReader, entry: Entry | null): string | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const written = r.string(entry, 'a string');
  if (written === undefined) return undefined;
  // Dagu trims an id before checking it and matching dependencies against it; a blank id is no id.
  const id = written.trim();
  if (id === '') return undefined;
  if (!ID_PATTERN.test(id)) {
    return r.errorAt(
      entry,
      `id ${JSON.stringify(id)} must start with a letter and hold only letters, digits and _`,
    );
  }
  if (id.length > 40) return r.errorAt(entry, `an id has at most 40 characters, got ${id.length}`);
  if (RESERVED_IDS.has(id.toLowerCase()))
    return r.errorAt(entry, `id ${JSON.stringify(id)} is a reserved word`);
  return id;
}

const EXACT_CASE_KEYS = ['run', 'action', 'with'] as const;

/**
 * Step keys ignore case as the others do, except three: Dagu tells a `run` or `action` step by its raw keys
 * `run`, `action` and `with`, in lower case only. Written otherwise, Dagu still decodes them but does not treat
 * the step as a run or action step: `Run:`/`Action:` leave a step without a command (a load error), and `With:`
 * beside them is ignored. Refused here, with the spelling that works.
 */
function checkExactCase(r: DagReader, map: Map<string, Entry>): void {
  const runOrAction = map.has('run') || map.has('action');
  // Indexed, over a list made once: this runs for every step, mostly in V8's interpreter.
  for (let i = 0; i < EXACT_CASE_KEYS.length; i++) {
    const key = EXACT_CASE_KEYS[i];
    const entry = map.get(key);
    if (!entry || (key === 'with' && !runOrAction)) continue;
    const written = writtenKey(entry);
    if (written !== key) {
      r.error(
        entry.keyNode,
        entry.field,
        `write "${written}" as ${key}: Dagu reads run, action and with in lower case only (other keys ignore case)`,
      );
    }
  }
}

/** The "needs run" error readExecution gave a step that turned out to be an output-only noop step. */
function withdrawNeedsRun(r: DagReader, from: number, to: number): void {
  for (let i = to - 1; i >= from; i--) {
    if (r.errors[i]?.message === 'a step needs run, an action or a call') r.errors.splice(i, 1);
  }
}

/** `output: NAME` (a leading `$` is dropped); a map is the object form (readOutputs.ts). */
function readOutputName(r: DagReader, entry: Entry | undefined): string | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const text = r.string(entry, 'a variable name or a map');
  if (text === undefined) return undefined;
  const name = text.trim().replace(/^\$/, '');
  if (!ENV_NAME_PATTERN.test(name))
    return r.errorAt(entry, `${JSON.stringify(text)} is not a valid variable name`);
  return name;
}

export /**
 * `outputs:` (Dagu's declared outputs): a non-empty list of `{name, type}` (type string or json, string by
 * default) or, in a build DAG, `{name, path}` (the file the step makes; readBuild.ts checks the rest), names
 * unique; the step needs an `id`, under which later steps read them.
 */
function readDeclaredOutputs(
  r: DagReader,
  entry: Entry | undefined,
  idEntry: Entry | null,
  stepNode: Node,
): DeclaredOutputSpec[] | undefined {
  if (!entry) return undefined;
  if (!isSeq(entry.value) || entry.value.items.length === 0) {
    return r.errorAt(
      entry,
      `outputs must be a non-empty sequence (list) of {name, type}, got ${describe(entry.value)}`,
    );
  }
  if (
    !idEntry ||
    isNull(idEntry.value) ||
    (isScalar(idEntry.value) && String(idEntry.value.value).trim() === '')
  ) {
    r.error(
      stepNode,
      entry.field,
      'a step with outputs must define id (later steps read ${steps.<id>.outputs.<name>})',
    );
  }
  const out: DeclaredOutputSpec[] = [];
  const seen = new Set<string>();
  for (const item of r.list(entry, 'outputs') ?? []) {
    const read = readDeclaredEntry(r, item, ['name', 'type', 'path'], 'output', 'a name', seen);
    if (!read) continue;
    const { m, name } = read;
    const pathEntry = m.get('path');
    let path: string | undefined;
    if (pathEntry) {
      if (isNull(pathEntry.value)) r.errorAt(pathEntry, 'path must be a string');
      path = r.string(pathEntry, 'a string')?.trim();
      if (path === '') r.errorAt(pathEntry, 'path must not be empty');
    }
    let type: DeclaredOutputSpec['type'] = 'string';
    const typeEntry = m.get('type');
    if (typeEntry && pathEntry) {
      r.errorAt(typeEntry, 'type and path cannot be used together');
    } else {
      const typeText = r.string(typeEntry, 'string or json');
      if (typeText !== undefined) {
        const t = typeText.trim();
        if (t === 'string' || t === 'json') type = t;
        else r.errorAt(typeEntry!, `type must be string or json, got ${JSON.stringify(typeText)}`);
      }
    }
    out.push(path ? { name, type, path } : { name, type });
  }
  return out;
}

/**
 * `stdout:` / `stderr:` as a file path. The object forms are read by readStdoutObject and readStderrObject.
 */
function readRedirect(r: DagReader, entry: Entry | undefined): string | null {
  if (!entry || isNull(entry.value)) return null;
  if (isMap(entry.value)) return null;
  return readNonEmpty(r, entry) ?? null;
}

/** `stderr:` as a map: only `artifact` (a run artifact path); `stderr` takes no outputs (in Dagu neither). */
function readStderrObject(r: DagReader, entry: Entry): string | undefined {
  const m = r.map(entry, ['outputs', 'artifact'], 'stderr');
  const outputs = m?.get('outputs');
  if (outputs) r.errorAt(outputs, 'stderr takes no outputs (stdout: {outputs: ...} does)');
  if (isMap(entry.value) && entry.value.items.length === 0)
    r.errorAt(entry, 'a stderr map must not be empty');
  return readArtifactRedirect(r, m?.get('artifact'));
}

export function readLogOutput(r: DagReader, entry: Entry | undefined): 'separate' | 'merged' | undefined {
  const text = r.string(entry, 'separate or merged');
  if (text === undefined) return undefined;
  const v = text.trim().toLowerCase();
  if (v === 'separate' || v === 'merged') return v;
  return r.errorAt(entry!, `must be separate or merged, got ${JSON.stringify(text)}`);
}

export function readNonEmpty(r: DagReader, entry: Entry | undefined): string | undefined {
  const text = r.string(entry);
  if (text !== undefined && text.trim() === '') {
    return r.errorAt(entry!, `must not be empty, got ${describe(entry!.value)}`);
  }
  return text;
}

/**
 * `dependencies`: in Dagu, files of the DAG's folder a step needs when it runs on another machine (not the
 * steps it waits for: that is `depends`). Checked as Dagu checks it; nothing needs shipping here, as workers
 * read DAG files from the shared DAGs directory.
 */
function readFileDependencies(r: DagReader, entry: Entry | undefined): void {
  if (!entry) return;
  const items = isSeq(entry.value) ? (r.list(entry, 'dependencies') ?? []) : [entry];
  if (items.length === 0 || isNull(entry.value)) {
    r.errorAt(entry, 'must not be empty');
    return;
  }
  for (const item of items) {
    const path = r.scalarText(item, 'a file path or glob');
    if (path === undefined) continue;
    if (path.trim() === '') r.errorAt(item, 'must not be empty');
    else if (/\$\{/.test(path))
      r.errorAt(item, 'file dependency paths must be literal (no ${...} references)');
  }
}

/** `{[key]: value}` when value is defined, else nothing: keeps a spec free of undefined-valued keys. */
/** `output_schema`: an inline JSON Schema object that describes an object (core/outputSchema.ts). */
function readOutputSchema(r: DagReader, entry: Entry | undefined): Record<string, unknown> | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const schema = isMap(entry.value) ? r.toJS(entry.value) : undefined;
  const problem = outputSchemaProblem(schema);
  if (problem !== null) return r.errorAt(entry, problem);
  return schema as Record<string, unknown>;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
