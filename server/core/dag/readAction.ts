// Reads what a step executes: `run:` (shell text), legacy `command`/`script`/`shell`, `exec`, `call`, and
// `action:`/`type:` with `with:`, into the StepSpec fields the runner reads. Actions this product runs keep
// their `with:` map as written; values in it are resolved when the step starts.

import { isMap, isScalar, isSeq } from 'yaml';
import { isValidDagName } from '../names';
import { splitParamString } from '../params';
import type { ParallelSpec, ParamSpec, RouteSpec, StepAction } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import { readParams } from './readFields';
import { DATA_OPS, readDataAction } from './readDataAction';
import { FILE_OPS, readOpAction, WAIT_OPS } from './readOpAction';
import { GIT_OPS, readGitAction } from './readGitAction';
import { readStateAction, STATE_OPS, type StateOp } from './readStateAction';
import { ARCHIVE_OPS, readArchiveAction } from './readArchiveAction';
import { ARTIFACT_OPS, readArtifactAction, type ArtifactOp } from './readArtifactAction';
import { readHumanTask } from './readHumanTask';
import { unknownActionMessage, unsupportedActionReason } from './unsupported';
import { compileTemplate, TemplateParseError, UNSUPPORTED_FUNCTIONS } from '../goTemplate';

/** At most this many literal `parallel` items, and children at once, as in Dagu. */
export const MAX_PARALLEL_ITEMS = 1000;
export const MAX_PARALLEL_CONCURRENCY = 1000;
const DEFAULT_PARALLEL_CONCURRENCY = 10;

/** Legacy execution fields that `run:` may not be combined with. */
const RUN_CONFLICTS = [
  'call',
  'command',
  'config',
  'exec',
  'params',
  'script',
  'shell',
  'shell_args',
  'type',
  'action',
] as const;

/** Kinds an action name chooses (a foreach step is chosen by its own key, readForeach.ts). */
type ActionKind = Exclude<StepAction['kind'], 'foreach'>;

/**
 * Action names and legacy types this product runs, with the action kind they stand for; `op` is the
 * operation of a file or wait action (a legacy `type: file` step names it in `command`).
 */
const KNOWN_ACTIONS: Record<string, { kind: ActionKind; enqueue?: boolean; op?: string }> = {
  command: { kind: 'command' },
  shell: { kind: 'command' },
  exec: { kind: 'exec' },
  'dag.run': { kind: 'dag' },
  dag: { kind: 'dag' },
  subworkflow: { kind: 'dag' },
  parallel: { kind: 'dag' },
  'dag.enqueue': { kind: 'dag', enqueue: true },
  dag_enqueue: { kind: 'dag', enqueue: true },
  'http.request': { kind: 'http' },
  http: { kind: 'http' },
  'jq.filter': { kind: 'jq' },
  jq: { kind: 'jq' },
  'mail.send': { kind: 'mail' },
  mail: { kind: 'mail' },
  'log.write': { kind: 'log' },
  log: { kind: 'log' },
  noop: { kind: 'noop' },
  file: { kind: 'file' },
  ...Object.fromEntries(FILE_OPS.map((op) => [`file.${op}`, { kind: 'file' as const, op }])),
  ...Object.fromEntries(WAIT_OPS.map((op) => [`wait.${op}`, { kind: 'wait' as const, op }])),
  'router.route': { kind: 'router' },
  router: { kind: 'router' },
  'outputs.write': { kind: 'outputs', op: 'write' },
  outputs: { kind: 'outputs' },
  data: { kind: 'data' },
  ...Object.fromEntries(DATA_OPS.map((op) => [`data.${op}`, { kind: 'data' as const, op }])),
  'template.render': { kind: 'template' },
  template: { kind: 'template' },
  git: { kind: 'git' },
  ...Object.fromEntries(GIT_OPS.map((op) => [`git.${op}`, { kind: 'git' as const, op }])),
  state: { kind: 'state' },
  ...Object.fromEntries(STATE_OPS.map((op) => [`state.${op}`, { kind: 'state' as const, op }])),
  archive: { kind: 'archive' },
  ...Object.fromEntries(ARCHIVE_OPS.map((op) => [`archive.${op}`, { kind: 'archive' as const, op }])),
  artifact: { kind: 'artifact' },
  ...Object.fromEntries(ARTIFACT_OPS.map((op) => [`artifact.${op}`, { kind: 'artifact' as const, op }])),
  'human.task': { kind: 'human' },
};

/** What a step executes, as read. */
export interface StepExecution {
  action: StepAction;
  command: string[] | null;
  script: string | null;
  shell: string | null;
  shell_args: string[];
  shell_explicit: boolean;
  script_interpreter: boolean;
  call: string | null;
  params: ParamSpec[];
  parallel: ParallelSpec | null;
  /** The prefix of a generated step name (`cmd`, `script`, `dag`, `http`, ...). */
  namePrefix: string;
}

/** An execution that runs nothing yet, for a reader to fill in. */
export function emptyExecution(action: StepAction): StepExecution {
  return {
    action,
    command: null,
    script: null,
    shell: null,
    shell_args: [],
    shell_explicit: false,
    script_interpreter: false,
    call: null,
    params: [],
    parallel: null,
    namePrefix: 'step',
  };
}

/**
 * Whether a step map has `key` with a value. A module function, not a closure in readExecution: the bundle names
 * every named closure when it is made, which costs each step a property definition.
 */
function hasValue(map: Map<string, Entry>, key: string): boolean {
  const entry = map.get(key);
  return entry !== undefined && !isNull(entry.value);
}

/** Reads the execution fields of a step map. `where` names the step in messages. */
export function readExecution(r: DagReader, map: Map<string, Entry>, stepEntry: Entry): StepExecution {
  const out = emptyExecution({ kind: 'command' });
  if (hasValue(map, 'run')) {
    // Indexed: most steps have `run`, and a for-of loop allocates on every turn in V8's interpreter.
    for (let i = 0; i < RUN_CONFLICTS.length; i++) {
      const key = RUN_CONFLICTS[i];
      if (hasValue(map, key)) r.errorAt(map.get(key)!, `run cannot be used together with ${key}`);
    }
  }
  if (hasValue(map, 'with') && hasValue(map, 'config'))
    r.errorAt(map.get('config')!, 'use with or its old name config, not both');
  const withEntry = map.get('with') ?? map.get('config');

  const actionEntry = hasValue(map, 'action')
    ? map.get('action')!
    : hasValue(map, 'type')
      ? map.get('type')!
      : undefined;
  let name: string | undefined;
  if (actionEntry) {
    name = r.string(actionEntry, 'an action name')?.trim();
    if (name === '') name = r.errorAt(actionEntry, 'must not be empty');
  }
  if (hasValue(map, 'action') && hasValue(map, 'type'))
    r.errorAt(map.get('type')!, 'use action or its old form type, not both');
  if (name === undefined && hasValue(map, 'call')) name = 'dag.run';
  if (name === undefined && hasValue(map, 'exec')) name = 'exec';
  const known = Object.hasOwn(KNOWN_ACTIONS, name ?? 'command') ? KNOWN_ACTIONS[name ?? 'command'] : null;
  if (!known) {
    const reason = unsupportedActionReason(name!);
    if (reason) r.unsupported(actionEntry!.value, actionEntry!.field, reason);
    else r.errorAt(actionEntry!, unknownActionMessage(name!));
    return out;
  }

  switch (known.kind) {
    case 'command':
      readCommandStep(r, map, stepEntry, withEntry, out);
      break;
    case 'exec':
      readExec(r, map, withEntry, out);
      break;
    case 'dag':
      readDagCall(r, map, withEntry, known.enqueue === true, out);
      break;
    case 'file':
    case 'wait':
      readOpAction(r, map, known.kind, known.op ?? null, withEntry, out);
      break;
    case 'router':
      readRouter(r, map, withEntry, out);
      break;
    case 'data':
      readDataAction(r, map, known.op ?? null, withEntry, out);
      break;
    case 'outputs':
      readOutputsWrite(r, map, withEntry, known.op === undefined, out);
      break;
    case 'template':
      readTemplate(r, map, withEntry, name === 'template', out);
      break;
    case 'git':
      readGitAction(r, map, (known.op as (typeof GIT_OPS)[number] | undefined) ?? null, withEntry, out);
      break;
    case 'state':
      readStateAction(r, map, (known.op as StateOp | undefined) ?? null, withEntry, out);
      break;
    case 'archive':
      readArchiveAction(
        r,
        map,
        (known.op as (typeof ARCHIVE_OPS)[number] | undefined) ?? null,
        withEntry,
        out,
      );
      break;
    case 'artifact':
      readArtifactAction(r, map, (known.op as ArtifactOp | undefined) ?? null, withEntry, out);
      break;
    case 'human':
      readHumanTask(r, map, withEntry, actionEntry!, out);
      break;
    default:
      readNamedAction(r, map, known.kind, withEntry, out);
  }
  if (hasValue(map, 'params') && known.kind !== 'dag') {
    r.errorAt(map.get('params')!, 'params are only for sub-DAG steps (call, action: dag.run)');
  }
  if (hasValue(map, 'parallel') && known.kind !== 'dag') {
    r.errorAt(map.get('parallel')!, 'parallel needs call, action: dag.run or action: dag.enqueue');
  }
  return out;
}

/** `run`, or legacy `command`/`script`, with the shell from `with` or the legacy step keys. */
function readCommandStep(
  r: DagReader,
  map: Map<string, Entry>,
  stepEntry: Entry,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  const runEntry = map.get('run');
  const commandEntry = map.get('command');
  const scriptEntry = map.get('script');
  if (runEntry && !isNull(runEntry.value)) {
    readRunText(r, runEntry, out);
  } else if (commandEntry && !isNull(commandEntry.value)) {
    readRunText(r, commandEntry, out);
  }
  const script = r.string(scriptEntry);
  if (script !== undefined) {
    if (script.trim() === '') r.errorAt(scriptEntry!, 'must not be empty');
    else if (out.script !== null || (out.command !== null && out.command.length > 1)) {
      r.errorAt(
        scriptEntry!,
        'script goes with a one-line command (the interpreter), not with a script or a list',
      );
    } else {
      // `command: python3` + `script:` runs the interpreter on the script file, with no shell in between.
      out.script_interpreter = out.command !== null;
      out.script = script.trim();
    }
  }
  const written = [runEntry, commandEntry, scriptEntry].some((e) => e !== undefined && !isNull(e.value));
  if (!written) {
    if (!isNull(stepEntry.value))
      r.followOn(stepEntry.value, stepEntry.field, 'a step needs run, an action or a call');
  }
  out.namePrefix = out.script !== null && !out.script_interpreter ? 'script' : 'cmd';
  if (out.script_interpreter) out.namePrefix = 'script';

  let shellEntry = map.get('shell');
  let argsEntry = map.get('shell_args');
  if (withEntry && !isNull(withEntry.value)) {
    const w = r.map(withEntry, ['shell', 'shell_args'], 'with', {
      shell_packages: "Dagu's nix-shell packages are not supported by this product (it runs no nix-shell)",
    });
    shellEntry = w?.get('shell') ?? shellEntry;
    argsEntry = w?.get('shell_args') ?? argsEntry;
  }
  const shell = readShell(r, shellEntry, argsEntry);
  out.shell = shell.shell;
  out.shell_args = shell.args;
  out.shell_explicit = shell.shell !== null;
}

/**
 * `run` (and legacy `command`): one line is a command, a text with a line break is a script, a list runs its
 * entries one after another.
 */
function readRunText(r: DagReader, entry: Entry, out: StepExecution): void {
  if (isSeq(entry.value)) {
    const commands: string[] = [];
    let multiLine = false;
    for (const item of r.list(entry, entry.key) ?? []) {
      const text = listEntryText(r, item);
      if (text === undefined || text.trim() === '') continue;
      if (/[\r\n]/.test(text)) {
        multiLine = true;
        r.errorAt(item, 'a list entry must be one line (use a text block for a script)');
      } else commands.push(text);
    }
    if (commands.length === 0 && !multiLine) r.errorAt(entry, 'must hold at least one command');
    else out.command = commands;
    return;
  }
  const text = isScalar(entry.value) ? r.scalarText(entry, 'a string or a list') : undefined;
  if (text === undefined) {
    if (!isScalar(entry.value)) r.errorAt(entry, `must be a string or a list, got ${describe(entry.value)}`);
    return;
  }
  if (text.trim() === '') r.errorAt(entry, 'must not be empty');
  else if (/[\r\n]/.test(text.trim())) out.script = text;
  else out.command = [text];
}

/** A `run:` list entry: text, a number or boolean, or a one-key map written `k: v` (a YAML slip). */
function listEntryText(r: DagReader, item: Entry): string | undefined {
  if (isMap(item.value) && item.value.items.length === 1) {
    const pair = item.value.items[0];
    const k = isScalar(pair.key) ? pair.key.value : undefined;
    const v = isScalar(pair.value) ? pair.value.value : undefined;
    if (k !== undefined && k !== null && (v === null || typeof v !== 'object'))
      return `${String(k)}: ${String(v ?? '')}`;
  }
  if (isNull(item.value)) return undefined;
  return r.scalarText(item, 'a command');
}

/** A shell: a string split into words like a command line, or a list; `shell_args` are added after. */
export function readShell(
  r: DagReader,
  shellEntry: Entry | undefined,
  argsEntry: Entry | undefined,
): { shell: string | null; args: string[] } {
  const words: string[] = [];
  if (shellEntry && !isNull(shellEntry.value)) {
    if (isSeq(shellEntry.value)) {
      for (const item of r.list(shellEntry, 'shell') ?? []) {
        const w = r.scalarText(item);
        if (w !== undefined) words.push(w);
      }
    } else {
      const text = r.string(shellEntry, 'a string or a list');
      if (text !== undefined) {
        const split = splitParamString(text);
        if (split.ok) words.push(...split.words);
        else r.errorAt(shellEntry, split.error);
      }
    }
    if (words.length === 0) r.errorAt(shellEntry, 'must name a shell');
  }
  const args = words.slice(1);
  if (argsEntry && !isNull(argsEntry.value)) {
    for (const item of r.list(argsEntry, 'shell_args') ?? []) {
      const a = r.scalarText(item);
      if (a !== undefined) args.push(a);
    }
  }
  return { shell: words[0] ?? null, args };
}

/** `exec: {command, args}` or `action: exec` with the same keys under `with`. */
function readExec(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  for (const key of ['command', 'script', 'shell', 'run']) {
    const e = map.get(key);
    if (e && !isNull(e.value))
      r.errorAt(e, `exec runs its command directly; it cannot be combined with ${key}`);
  }
  const source = map.get('exec') ?? withEntry;
  out.namePrefix = 'cmd';
  if (!source || isNull(source.value)) {
    r.errorAt(map.get('action') ?? map.get('type')!, 'exec needs with: {command, args}');
    return;
  }
  // `exec:` is a struct in Dagu (its keys ignore case); `with:` of `action: exec` is a plain map.
  const m = r.map(source, ['command', 'args'], 'exec', undefined, source === map.get('exec'));
  if (!m) return;
  const command = r.string(m.get('command'));
  if (command === undefined || command.trim() === '') {
    r.errorAt(m.get('command') ?? source, 'exec needs a command');
    return;
  }
  const args: string[] = [];
  const argsEntry = m.get('args');
  if (argsEntry && !isNull(argsEntry.value)) {
    for (const item of r.list(argsEntry, 'args') ?? []) {
      const a = r.scalarText(item, 'a string, number or boolean');
      if (a !== undefined) args.push(a);
    }
  }
  out.action = { kind: 'exec', command, args };
  out.command = [command, ...args];
}

/** `call` + `params` (legacy) or `action: dag.run|dag.enqueue` + `with: {dag, params, queue}`. */
function readDagCall(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  enqueue: boolean,
  out: StepExecution,
): void {
  for (const key of ['command', 'script', 'run', 'shell', 'exec']) {
    const e = map.get(key);
    if (e && !isNull(e.value)) r.errorAt(e, `a sub-DAG step runs another DAG and has no ${key}`);
  }
  let target = map.get('call');
  let params = map.get('params');
  let queue: string | null = null;
  if (withEntry && !isNull(withEntry.value)) {
    const w = r.map(withEntry, enqueue ? ['dag', 'params', 'queue'] : ['dag', 'params'], 'with');
    target = w?.get('dag') ?? target;
    params = w?.get('params') ?? params;
    const q = r.string(w?.get('queue'));
    if (q !== undefined && !isValidDagName(q))
      r.errorAt(w!.get('queue')!, `${JSON.stringify(q)} is not a valid queue name`);
    queue = q ?? null;
  }
  const name = r.string(target, 'a DAG name');
  if (name === undefined || name.trim() === '') {
    const at = target ?? map.get('action') ?? map.get('type');
    if (at) r.errorAt(at, 'a sub-DAG step needs the DAG to run (call: NAME, or with: {dag: NAME})');
  } else if (!name.includes('$') && (!/^[\w./-]+$/.test(name.trim()) || name.split('/').includes('..'))) {
    r.errorAt(target!, `${JSON.stringify(name)} is not a valid DAG name or path`);
  }
  out.call = name?.trim() ?? null;
  out.params = readParams(r, params);
  // Dagu joins string-form params into the child's params text with such words unquoted (SmartEscape).
  if (params && isScalar(params.value)) {
    for (const p of out.params)
      if (p.name === null && p.value !== '' && !/[ \t\n"]/.test(p.value)) p.split = true;
  }
  out.action = { kind: 'dag', mode: enqueue ? 'enqueue' : 'run', queue };
  out.parallel = readParallel(r, map.get('parallel'));
  out.namePrefix = out.parallel ? 'parallel' : 'dag';
}

/** `parallel`: a variable reference, a literal list, or `{items, max_concurrent}`. */
function readParallel(r: DagReader, entry: Entry | undefined): ParallelSpec | null {
  if (!entry || isNull(entry.value)) return null;
  let itemsEntry: Entry | undefined = entry;
  let maxConcurrent = DEFAULT_PARALLEL_CONCURRENCY;
  if (isMap(entry.value)) {
    const m = r.map(entry, ['items', 'max_concurrent'], 'parallel');
    itemsEntry = m?.get('items');
    const mc = r.integer(m?.get('max_concurrent'), 1);
    if (mc !== undefined && mc > MAX_PARALLEL_CONCURRENCY) {
      r.errorAt(m!.get('max_concurrent')!, `must be at most ${MAX_PARALLEL_CONCURRENCY}, got ${mc}`);
    } else if (mc !== undefined) maxConcurrent = mc;
    if (!itemsEntry || isNull(itemsEntry.value)) {
      r.errorAt(entry, 'parallel needs items');
      return null;
    }
  }
  if (isScalar(itemsEntry.value)) {
    const variable = r.string(itemsEntry, 'a variable reference or a list');
    if (variable === undefined) return null;
    if (variable.trim() === '') return r.errorAt(itemsEntry, 'must not be empty') ?? null;
    return { variable, items: [], max_concurrent: maxConcurrent };
  }
  if (!isSeq(itemsEntry.value)) {
    return (
      r.errorAt(itemsEntry, `must be a variable reference or a list, got ${describe(itemsEntry.value)}`) ??
      null
    );
  }
  const count = itemsEntry.value.items.length;
  if (count > MAX_PARALLEL_ITEMS) {
    return r.errorAt(itemsEntry, `at most ${MAX_PARALLEL_ITEMS} items, got ${count}`) ?? null;
  }
  const items: ParallelSpec['items'] = [];
  for (const item of r.list(itemsEntry, 'items') ?? []) {
    if (isMap(item.value)) {
      const fields: Array<[string, string]> = [];
      for (const f of r.map(item, null, 'an item')?.values() ?? []) {
        const v = r.scalarText(f, 'a string, number or boolean');
        if (v !== undefined) fields.push([f.key, v]);
      }
      items.push(Object.fromEntries(fields));
    } else {
      const v = r.scalarText(item, 'a string, a number or a map');
      if (v !== undefined) items.push(v);
      else if (isNull(item.value)) r.errorAt(item, 'an item must not be empty');
    }
  }
  if (count === 0) r.errorAt(itemsEntry, 'must not be an empty list');
  return { variable: null, items, max_concurrent: maxConcurrent };
}

/** `with` keys each named action accepts (Dagu's schema). */
const ACTION_WITH_KEYS: Record<'http' | 'jq' | 'mail' | 'log' | 'noop', readonly string[]> = {
  http: [
    'method',
    'url',
    'headers',
    'query',
    'body',
    'form',
    'files',
    'timeout',
    'silent',
    'debug',
    'json',
    'format',
    'output',
    'skip_tls_verify',
  ],
  jq: ['filter', 'data', 'input', 'raw'],
  mail: ['from', 'to', 'subject', 'message', 'attachments'],
  log: ['message'],
  noop: [],
};

/** http, jq, mail, log and noop: `with` kept as written, after checking its keys and required inputs. */
function readNamedAction(
  r: DagReader,
  map: Map<string, Entry>,
  kind: 'http' | 'jq' | 'mail' | 'log' | 'noop',
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = kind;
  const legacyType = map.has('type') && !map.has('action');
  const w: Record<string, unknown> = {};
  if (withEntry && !isNull(withEntry.value)) {
    // noop takes nothing: an empty `with: {}` is all Dagu allows.
    if (kind === 'noop' && !(isMap(withEntry.value) && withEntry.value.items.length === 0)) {
      r.errorAt(withEntry, `noop takes no with, got ${describe(withEntry.value)}`);
    } else {
      const m = r.map(withEntry, ACTION_WITH_KEYS[kind], 'with');
      for (const [k, e] of m ?? []) w[k] = r.toJS(e.value);
      if (m && !legacyTypeOf(map)) checkActionShapes(r, kind, m, w);
    }
  }
  // Legacy http and jq steps carry their input in command and script.
  const command = r.string(map.get('command'));
  const script = r.string(map.get('script'));
  if (kind === 'http' && legacyType && command !== undefined) {
    const [method, url] = command.trim().split(/\s+/, 2);
    w.method ??= method;
    if (url !== undefined) w.url ??= url;
  } else if (kind === 'jq' && legacyType && command !== undefined) {
    w.filter ??= command;
  } else if (command !== undefined) {
    r.errorAt(map.get('command')!, `action ${kind} does not take a command`);
  }
  if (script !== undefined && (kind === 'http' || kind === 'jq') && legacyType) {
    try {
      const parsed: unknown = JSON.parse(script);
      if (kind === 'jq') w.data ??= parsed;
      else if (parsed && typeof parsed === 'object') for (const [k, v] of Object.entries(parsed)) w[k] ??= v;
    } catch {
      r.errorAt(map.get('script')!, `the ${kind} step's script must be JSON`);
    }
  } else if (script !== undefined) {
    r.errorAt(map.get('script')!, `action ${kind} does not take a script`);
  }
  const run = map.get('run');
  if (run && !isNull(run.value)) r.errorAt(run, `action ${kind} does not take run`);
  const need = (keys: string[]) => {
    for (const k of keys) {
      if (w[k] === undefined || w[k] === null || (typeof w[k] === 'string' && w[k].trim() === '')) {
        const at = withEntry ?? map.get('action') ?? map.get('type')!;
        r.error(at.value, at.field, `${kind} needs with.${k}`);
      }
    }
  };
  if (kind === 'http') need(['method', 'url']);
  if (kind === 'jq') need(['filter']);
  if (kind === 'mail') need(['to']);
  if (kind === 'log' && !legacyType) need(['message']);
  out.action = kind === 'noop' ? { kind } : { kind, with: w };
}

/** The legacy `type:` spelling of an action (its inputs may come from `command` and `script`). */
function legacyTypeOf(map: Map<string, Entry>): boolean {
  return map.has('type') && !map.has('action');
}

/**
 * What Dagu checks of an action's inputs when it loads the file (internal/spec/step_v2.go), so that a wrong
 * shape is refused by `dagu validate` rather than failing the step when it runs: `http.request`'s `method`
 * and `url` and `log.write`'s `message` are non-empty texts; `jq.filter` runs one filter, so a list of two
 * is refused as Dagu refuses it ("supports only one command") and a list of one is that filter.
 */
function checkActionShapes(
  r: DagReader,
  kind: 'http' | 'jq' | 'mail' | 'log' | 'noop',
  m: Map<string, Entry>,
  w: Record<string, unknown>,
): void {
  // A text that is blank is refused below, as a missing one ("needs with.<key>").
  const text = (key: string) => {
    const e = m.get(key);
    if (e && !isNull(e.value)) r.string(e, 'a non-empty string');
  };
  if (kind === 'http') ['method', 'url'].forEach(text);
  if (kind === 'log') text('message');
  const filter = m.get('filter');
  if (kind === 'jq' && filter && isSeq(filter.value)) {
    const items = filter.value.items;
    if (items.length > 1) r.errorAt(filter, 'action "jq" supports only one command (one filter)');
    else if (
      items.length === 1 &&
      typeof w.filter === 'object' &&
      typeof (w.filter as unknown[])[0] === 'string'
    )
      w.filter = (w.filter as string[])[0];
    else r.errorAt(filter, 'must be a jq filter (a text), got an empty list or a list of other values');
  }
}

/**
 * `action: router.route` with `with: {value, routes}`, or the legacy `type: router` with the step's own
 * `value` and `routes` (`with` wins, as in Dagu). Each route maps a pattern (exact text, or `re:<regexp>`) to
 * the steps it starts; readSteps.ts turns the routes into preconditions of those steps. The routes are kept
 * in Dagu's order: exact patterns, then expressions, `re:.*` last, each group by pattern.
 */
function readRouter(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'router';
  const viaWith = map.has('action') && !map.has('type');
  let valueEntry = map.get('value');
  let routesEntry = map.get('routes');
  const at = map.get('action') ?? map.get('type')!;
  if (withEntry && !isNull(withEntry.value)) {
    const w = r.map(withEntry, ['value', 'routes'], 'with');
    valueEntry = w?.get('value') ?? valueEntry;
    routesEntry = w?.get('routes') ?? routesEntry;
  } else if (viaWith) {
    r.error(at.value, at.field, 'router.route needs with.value and with.routes');
    return;
  }
  for (const key of ['command', 'script', 'run']) {
    const e = map.get(key);
    if (e && !isNull(e.value)) r.errorAt(e, `a router step does not take ${key}`);
  }
  const value = r.scalarText(valueEntry)?.trim();
  if (value === undefined || value === '') {
    r.error(
      valueEntry?.value ?? at.value,
      valueEntry?.field ?? at.field,
      "router step requires 'value' field",
    );
  }
  const routes: RouteSpec[] = [];
  if (!routesEntry || isNull(routesEntry.value)) {
    r.error(at.value, at.field, 'router step requires at least one route');
  } else {
    const m = r.map(routesEntry, null, 'routes');
    if (m && m.size === 0) r.errorAt(routesEntry, 'router step requires at least one route');
    for (const [written, e] of m ?? []) {
      const pattern = written.trim();
      if (pattern === '') {
        r.errorAt(e, 'route pattern cannot be empty');
        continue;
      }
      const items = isScalar(e.value) && typeof e.value.value === 'string' ? null : r.list(e, 'a route');
      if (items === null) {
        if (isScalar(e.value))
          r.errorAt(e, `route pattern ${JSON.stringify(pattern)} needs a list of step names`);
        continue;
      }
      if (items.length === 0) r.errorAt(e, `route pattern ${JSON.stringify(pattern)} has no targets`);
      const targets: string[] = [];
      for (const item of items) {
        const target = r.scalarText(item, 'a step name')?.trim();
        if (target === '') r.errorAt(item, `route pattern ${JSON.stringify(pattern)} has empty target`);
        else if (target !== undefined) targets.push(target);
      }
      routes.push({ pattern, targets });
    }
  }
  routes.sort(routeOrder);
  out.action = { kind: 'router', value: value ?? '', routes };
}

/** Dagu's order of routes: exact patterns first, then `re:` ones with the catch-all `re:.*` last; by pattern. */
function routeOrder(a: RouteSpec, b: RouteSpec): number {
  const ra = a.pattern.startsWith('re:');
  const rb = b.pattern.startsWith('re:');
  if (ra !== rb) return ra ? 1 : -1;
  if (a.pattern === 're:.*') return 1;
  if (b.pattern === 're:.*') return -1;
  return a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0;
}

/**
 * `action: outputs.write` with `with: {values: {<name>: <value>, …}}`, or the legacy `type: outputs` with the
 * operation (`write`, the only one) in `command`: the values become the step's published outputs when it runs.
 */
function readOutputsWrite(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  legacy: boolean,
  out: StepExecution,
): void {
  out.namePrefix = 'outputs';
  const at = map.get('action') ?? map.get('type')!;
  const commandEntry = map.get('command');
  if (legacy) {
    const op = r.string(commandEntry)?.trim().toLowerCase();
    if (op !== 'write') {
      r.error(
        commandEntry?.value ?? at.value,
        commandEntry?.field ?? at.field,
        op === undefined
          ? 'outputs needs command: write'
          : `outputs: unsupported operation ${JSON.stringify(op)}`,
      );
    }
  } else if (commandEntry && !isNull(commandEntry.value)) {
    r.errorAt(commandEntry, 'action outputs.write does not take a command');
  }
  for (const key of ['script', 'run']) {
    const e = map.get(key);
    if (e && !isNull(e.value)) r.errorAt(e, `action outputs.write does not take ${key}`);
  }
  if (!withEntry || isNull(withEntry.value)) {
    r.error(at.value, at.field, 'outputs.write needs with.values');
    return;
  }
  const w = r.map(withEntry, ['values'], 'with');
  const valuesEntry = w?.get('values');
  if (!w) return;
  if (!valuesEntry || isNull(valuesEntry.value)) {
    r.errorAt(withEntry, 'outputs.write needs with.values');
    return;
  }
  const values = r.map(valuesEntry, null, 'values');
  if (!values) return;
  if (values.size === 0) r.errorAt(valuesEntry, 'values must not be empty');
  const kept: Record<string, unknown> = {};
  for (const [key, e] of values) {
    if (key.trim() === '') r.errorAt(e, 'values contains an empty key');
    else kept[key] = r.toJS(e.value);
  }
  out.action = { kind: 'outputs', with: { values: kept } };
}

/** A `with.template_ref`: one whole scoped reference, as Dagu's IsExactRef accepts it (`${env.NAME}`). */
const EXACT_REF =
  /^\$\{(?:(?:consts|env|steps|foreach|inputs|outputs|context)(?:\.[A-Za-z0-9_-]+)+|params\.[A-Za-z0-9_-]+)\}$/;

/**
 * `action: template.render` with `with: {template | template_ref, data, output}`, or the legacy `type: template`
 * with the template in the step's `script` (or `with.template_ref`). The template text becomes the step's
 * script, which is never value-resolved (Dagu renders it as written); a template that does not parse is refused
 * here with Go's parse error, one using a function this product lacks as unsupported.
 */
function readTemplate(
  r: DagReader,
  map: Map<string, Entry>,
  withEntry: Entry | undefined,
  legacy: boolean,
  out: StepExecution,
): void {
  out.namePrefix = 'template';
  const at = map.get('action') ?? map.get('type')!;
  for (const key of legacy ? ['command', 'run'] : ['command', 'script', 'run']) {
    const e = map.get(key);
    if (e && !isNull(e.value)) r.errorAt(e, `action template.render does not take ${key}`);
  }
  const keys = legacy ? ['data', 'output', 'template_ref'] : ['template', 'template_ref', 'data', 'output'];
  const w = withEntry && !isNull(withEntry.value) ? r.map(withEntry, keys, 'with') : new Map<string, Entry>();
  if (!w) return;
  const kept: Record<string, unknown> = {};
  for (const [k, e] of w) if (k !== 'template') kept[k] = r.toJS(e.value);

  let textEntry: Entry | undefined;
  const refEntry = w.get('template_ref');
  if (legacy) {
    textEntry = map.get('script');
    if (textEntry && !isNull(textEntry.value) && refEntry) {
      r.errorAt(refEntry, 'template step cannot use both script and with.template_ref');
    } else if ((!textEntry || isNull(textEntry.value)) && !refEntry) {
      r.error(at.value, at.field, 'script field is required');
    }
  } else {
    textEntry = w.get('template');
    if ((textEntry === undefined) === (refEntry === undefined)) {
      r.error(
        withEntry?.value ?? at.value,
        withEntry?.field ?? at.field,
        'template.render requires exactly one of with.template or with.template_ref',
      );
    }
  }
  if (refEntry) {
    const ref = refEntry.value && isScalar(refEntry.value) ? refEntry.value.value : undefined;
    if (typeof ref !== 'string' || !EXACT_REF.test(ref))
      r.errorAt(
        refEntry,
        'with.template_ref must be one complete scoped value reference such as ${env.NAME}',
      );
  }
  const data = w.get('data');
  if (data && !isNull(data.value) && !isMap(data.value))
    r.errorAt(data, `must be a map, got ${describe(data.value)}`);
  const output = w.get('output');
  if (output && !isNull(output.value)) r.string(output, 'a file path');

  if (textEntry && !isNull(textEntry.value) && !refEntry) {
    const text = r.string(textEntry, 'the template text');
    if (text !== undefined) {
      out.script = text;
      checkTemplate(r, textEntry, text);
    }
  }
  out.action = { kind: 'template', with: kept };
}

/** Parses a template as the step will: Go's parse error refuses the DAG; a function not built here is unsupported. */
function checkTemplate(r: DagReader, entry: Entry, text: string): void {
  try {
    compileTemplate(text);
  } catch (e) {
    if (!(e instanceof TemplateParseError)) throw e;
    const missing = UNSUPPORTED_FUNCTIONS.find((f) => e.message.includes(`function "${f}" is not supported`));
    if (missing) r.unsupported(entry.value, entry.field, `template: ${e.message}`);
    else r.errorAt(entry, `template: parse error: ${e.message}`);
  }
}
