// Reads one step (or one handler) of a DAG file into a StepSpec; dependencies are linked later, once every
// step is known.

import { isSeq } from 'yaml';
import type { Node } from 'yaml';
import { isValidDagName } from '../names';
import type { StepSpec } from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import {
  ENV_NAME_PATTERN,
  readEnv,
  readNameList,
  readParams,
  readRetryPolicy,
  readWorkerSelector,
} from './readFields';

const STEP_KEYS = [
  'name',
  'command',
  'script',
  'shell',
  'dir',
  'env',
  'depends',
  'timeout_sec',
  'retry_policy',
  'continue_on',
  'output',
  'call',
  'worker_selector',
  'params',
] as const;

/** A step as read, with what linking its dependencies needs to report problems at the right place. */
export interface ReadStep {
  spec: StepSpec;
  field: string;
  /** The step's map, where errors about the whole step point. */
  node: Node;
  /** The `name` entry, or null when the step has none (its name was defaulted or is missing). */
  nameEntry: Entry | null;
  /** True when the step has a `depends` key at all, even an empty one: the DAG is then a graph. */
  declaresDepends: boolean;
  /** Each dependency name with its place in the file. */
  dependsEntries: Entry[];
}

/**
 * Reads a step. `defaultName` is given for handlers (`on_success`, ...), which need no name and may not
 * depend on anything. Returns null when the entry is not a map at all.
 */
export function readStep(r: DagReader, entry: Entry, defaultName: string | null = null): ReadStep | null {
  const map = r.map(entry, STEP_KEYS, 'a step');
  if (!map) return null;
  const node = entry.value as Node;
  const nameEntry = map.get('name') ?? null;
  const name = readStepName(r, nameEntry) ?? defaultName;
  if (name === null && !nameEntry) r.error(node, entry.field, 'name is required');

  const command = readCommand(r, map.get('command'));
  const script = r.string(map.get('script'));
  if (script !== undefined && script.trim() === '') r.errorAt(map.get('script')!, 'must not be empty');
  const call = r.string(map.get('call'));
  if (call !== undefined && !isValidDagName(call)) {
    r.errorAt(map.get('call')!, `${JSON.stringify(call)} is not a valid DAG name`);
  }
  const has = (key: string) => map.has(key) && !isNull(map.get(key)!.value);
  if (has('command') && has('script')) {
    r.errorAt(map.get('script')!, 'use either command or script, not both');
  }
  if (has('call') && (has('command') || has('script'))) {
    r.errorAt(map.get('call')!, 'a call step runs another DAG and has no command or script');
  }
  if (!has('command') && !has('script') && !has('call')) {
    r.error(node, entry.field, 'a step needs a command, a script or a call');
  }
  if (has('params') && !has('call')) r.errorAt(map.get('params')!, 'params are only for call steps');
  // A step's selector picks the worker of the sub-DAG it calls; anywhere else it would be silently ignored.
  if (has('worker_selector') && !has('call')) {
    r.errorAt(
      map.get('worker_selector')!,
      'worker_selector on a step is only for call steps (use the DAG-level key)',
    );
  }

  const dependsEntry = map.get('depends');
  if (defaultName !== null && dependsEntry) {
    r.errorAt(dependsEntry, 'a handler has no dependencies: it runs once the steps are done');
  }
  const dependsEntries = defaultName === null ? readNameList(r, dependsEntry, 'depends') : [];

  const output = r.string(map.get('output'));
  if (output !== undefined && !ENV_NAME_PATTERN.test(output)) {
    r.errorAt(map.get('output')!, `${JSON.stringify(output)} is not a valid variable name`);
  }
  const continueOn = readContinueOn(r, map.get('continue_on'));
  const spec: StepSpec = {
    name: name ?? '',
    command: command ?? null,
    script: script ?? null,
    shell: readNonEmpty(r, map.get('shell')) ?? null,
    dir: readNonEmpty(r, map.get('dir')) ?? null,
    env: readEnv(r, map.get('env')),
    depends: [],
    timeout_sec: r.integer(map.get('timeout_sec'), 1) ?? null,
    retry_policy: readRetryPolicy(r, map.get('retry_policy')),
    continue_on: continueOn,
    output: output ?? null,
    call: call ?? null,
    params: readParams(r, map.get('params')),
    worker_selector: readWorkerSelector(r, map.get('worker_selector')),
  };
  return {
    spec,
    field: entry.field,
    node,
    nameEntry,
    declaresDepends: dependsEntry !== undefined,
    dependsEntries,
  };
}

function readStepName(r: DagReader, entry: Entry | null): string | undefined {
  if (!entry) return undefined;
  const raw = r.scalarText(entry, 'a string');
  if (raw === undefined) return isNull(entry.value) ? r.errorAt(entry, 'must not be empty') : undefined;
  const name = raw.trim();
  if (name === '') return r.errorAt(entry, 'must not be empty');
  if (name.includes('/')) return r.errorAt(entry, `step name ${JSON.stringify(name)} must not contain "/"`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return r.errorAt(entry, 'a step name must not contain control characters');
  }
  return name;
}

/** `command`: one command line, or a list of them run one after another. */
function readCommand(r: DagReader, entry: Entry | undefined): string[] | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  if (!isSeq(entry.value)) {
    const one = r.string(entry, 'a string or a list of strings');
    if (one === undefined) return undefined;
    if (one.trim() === '') return r.errorAt(entry, 'must not be empty');
    return [one];
  }
  const items = r.list(entry, 'command') ?? [];
  if (items.length === 0) return r.errorAt(entry, 'must not be an empty list');
  const commands: string[] = [];
  for (const item of items) {
    const text = r.string(item, 'a string');
    if (text === undefined && isNull(item.value)) r.errorAt(item, 'must be a string, got nothing');
    else if (text !== undefined && text.trim() === '') r.errorAt(item, 'must not be empty');
    else if (text !== undefined) commands.push(text);
  }
  return commands;
}

function readContinueOn(r: DagReader, entry: Entry | undefined): { failure: boolean } {
  if (!entry || isNull(entry.value)) return { failure: false };
  const map = r.map(entry, ['failure'], 'continue_on');
  return { failure: r.boolean(map?.get('failure')) ?? false };
}

function readNonEmpty(r: DagReader, entry: Entry | undefined): string | undefined {
  const text = r.string(entry);
  if (text !== undefined && text.trim() === '') {
    return r.errorAt(entry!, `must not be empty, got ${describe(entry!.value)}`);
  }
  return text;
}
