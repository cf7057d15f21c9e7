// Dagu's DAG-local custom steps: `actions:` (custom actions, called with `action: <name>`) and their legacy form
// `step_types:` (called with `type: <name>`), from the DAG document and from base.yaml. A definition has an
// input schema and a step template; a call's `with:` is checked against the schema (defaults filled in), the
// template rendered with it — `{$input: a.b}` takes an input value whole, a text with `{{ }}` is a Go template
// over `.input` — and the call's own step keys laid over the result. The expanded step is then read like any
// step (readStep.ts), so every step feature applies. This follows internal/spec/step_types.go of Dagu.
//
// Expanded steps are made of the file's own YAML nodes wherever they can be, so a problem in one is reported
// at its place: in the call (its keys, its `with` values) or in the definition's template.

import { isAlias, isMap, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Node } from 'yaml';
import {
  compileStepTemplate,
  executeStepTemplate,
  TemplateExecError,
  TemplateParseError,
} from '../goTemplate';
import { outputSchemaProblem } from '../outputSchema';
import { schemaProblem } from '../paramSchema';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull, placeAt } from './dagReader';
import { deprecation } from './deprecations';
import { checkInput, compileInputSchema, declaresObject, type InputSchema } from './inputSchema';
import { DAGU_ACTIONS } from './unsupported';

type JsonObject = Record<string, unknown>;

/** One definition of `actions:` or `step_types:`. */
export interface CustomDefinition {
  name: string;
  kind: 'action' | 'step_type';
  /** A legacy definition's builtin type (`command`, `http`, ...); empty for an action. */
  target: string;
  targetNode: Node | null;
  description: string;
  schema: JsonObject;
  compiled: Extract<InputSchema, { ok: true }>;
  outputSchema: JsonObject | null;
  template: YAMLMap;
  /** Where it is defined, as a field path (`actions.greet`). */
  field: string;
}

/** A definition with an error (reported where it is defined): its calls are not expanded, nor reported again. */
interface BrokenDefinition {
  name: string;
  kind: 'action' | 'step_type';
  broken: true;
}

type Definition = CustomDefinition | BrokenDefinition;

interface Registry {
  defs: Map<string, Definition>;
  /** Characters of expanded steps so far in this document (see MAX_DOCUMENT_EXPANSION). */
  expanded: number;
}

const registries = new WeakMap<DagReader, Registry>();

/** A call's `with`, as JSON, may be at most this long. */
export const MAX_INPUT_CHARS = 1024 * 1024;
/** One expanded step may be at most this long (as JSON, about), however its template repeats its inputs. */
export const MAX_STEP_EXPANSION = 1024 * 1024;
/** How deep custom actions may call each other (a loop is refused before: this bounds a long chain). */
export const MAX_NESTING = 32;
/** All expanded steps of a document together. */
export const MAX_DOCUMENT_EXPANSION = 16 * 1024 * 1024;

const STEP_TYPE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ACTION_NAME = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/;

/** Dagu's builtin executor types, the only targets of a legacy definition (and names it may not take). */
const BUILTIN_STEP_TYPES = new Set([
  'action',
  'artifact',
  'archive',
  'chat',
  'command',
  'container',
  'dag',
  'data',
  'dag_enqueue',
  'docker',
  'file',
  'foreach',
  'gha',
  'git',
  'github-action',
  'github_action',
  'harness',
  'http',
  'jq',
  'k8s',
  'kubernetes',
  'log',
  'mail',
  'noop',
  'outputs',
  'parallel',
  'postgres',
  'redis',
  'router',
  's3',
  'sftp',
  'shell',
  'sqlite',
  'ssh',
  'state',
  'subworkflow',
  'template',
  'wait',
]);

/** Dagu's built-in action names (the names a custom action may not take), `redis.<command>` aside. */
const BUILTIN_ACTIONS = new Set([
  ...DAGU_ACTIONS,
  'dag.run',
  'dag.enqueue',
  'exec',
  'http.request',
  'jq.filter',
  'log.write',
  'mail.send',
  'noop',
]);

function isBuiltinAction(name: string): boolean {
  return BUILTIN_ACTIONS.has(name) || (name.startsWith('redis.') && name.length > 'redis.'.length);
}

/** Legacy execution keys: not in a custom action's template, and not beside `action:` at a call. */
const LEGACY_EXECUTION_KEYS = [
  'call',
  'command',
  'config',
  'exec',
  'llm',
  'messages',
  'params',
  'routes',
  'script',
  'shell',
  'shell_args',
  'shell_packages',
  'type',
  'value',
];

/** Keys a call of a custom definition may not have: what the step runs is the template's. */
const FORBIDDEN_CALL_KEYS = [
  'call',
  'command',
  'container',
  'exec',
  'llm',
  'messages',
  'parallel',
  'params',
  'routes',
  'script',
  'shell',
  'shell_args',
  'shell_packages',
  'value',
  'working_dir',
];

/** Keys of a call that are not laid over the template: the input and the name of what is called. */
const CALL_ONLY_KEYS = new Set(['with', 'config', 'type', 'action']);

const DEFINITION_KEYS = ['type', 'description', 'input_schema', 'output_schema', 'template'];

/** Definitions base.yaml gives every DAG (plain values: base.yaml is read apart from the DAG file). */
export interface BaseDefinitions {
  step_types?: unknown;
  actions?: unknown;
}

/**
 * Reads the document's `step_types:` and `actions:`, with those of base.yaml, into the reader's registry.
 * Names are trimmed; one name may be defined once across all four (base ones first, as in Dagu).
 */
export function readCustomDefinitions(
  r: DagReader,
  root: ReadonlyMap<string, Entry>,
  base: BaseDefinitions | null,
): void {
  const defs = new Map<string, Definition>();
  const baseEntry = (value: unknown, key: string): Entry | undefined => {
    if (value === undefined || value === null) return undefined;
    const node = r.createNode(value, null);
    return { key, field: key, value: node, keyNode: node };
  };
  const scopes: Array<[Entry | undefined, 'step_type' | 'action', 'base config' | 'DAG']> = [
    [baseEntry(base?.step_types, 'step_types'), 'step_type', 'base config'],
    [baseEntry(base?.actions, 'actions'), 'action', 'base config'],
    [root.get('step_types'), 'step_type', 'DAG'],
    [root.get('actions'), 'action', 'DAG'],
  ];
  for (const [entry, kind, scope] of scopes) {
    if (!entry || isNull(entry.value)) continue;
    const section = kind === 'action' ? 'actions' : 'step_types';
    const map = r.map(entry, null, section);
    if (!map) continue;
    for (const [written, item] of map) {
      const name = written.trim();
      const fail = (node: Node | null, field: string, message: string): undefined =>
        r.error(node, field, scope === 'base config' ? `base config: ${message}` : message);
      const existing = defs.get(name);
      if (existing) {
        fail(item.keyNode, item.field, duplicateMessage(kind, name, existing, scope));
        continue;
      }
      const before = r.errors.length;
      const def = readDefinition(r, name, item, kind, fail);
      defs.set(name, def && r.errors.length === before ? def : { name, kind, broken: true });
    }
  }
  if (root.has('step_types')) r.warnings.push(deprecation('step_types', 'use actions'));
  if (defs.size > 0) registries.set(r, { defs, expanded: 0 });
}

function duplicateMessage(
  kind: 'step_type' | 'action',
  name: string,
  existing: Definition,
  scope: 'base config' | 'DAG',
): string {
  if (existing.kind === 'action')
    return `duplicate custom action ${JSON.stringify(name)} conflicts with an existing custom action or legacy step_types definition in ${scope}`;
  if (scope === 'DAG' && kind === 'step_type')
    return `duplicate legacy step_types definition ${JSON.stringify(name)} is defined in both base config and DAG`;
  return `duplicate legacy step_types definition ${JSON.stringify(name)} is defined in ${scope}`;
}

type Fail = (node: Node | null, field: string, message: string) => undefined;

function readDefinition(
  r: DagReader,
  name: string,
  item: Entry,
  kind: 'step_type' | 'action',
  fail: Fail,
): CustomDefinition | undefined {
  const section = kind === 'action' ? 'actions' : 'step_types';
  if (kind === 'action') {
    if (!ACTION_NAME.test(name))
      return fail(item.keyNode, item.field, `custom action names must match ${ACTION_NAME.source}`);
    if (isBuiltinAction(name))
      return fail(
        item.keyNode,
        item.field,
        `custom action name ${JSON.stringify(name)} conflicts with a builtin action`,
      );
  } else {
    if (!STEP_TYPE_NAME.test(name))
      return fail(
        item.keyNode,
        item.field,
        `legacy step_types definition names must match ${STEP_TYPE_NAME.source}`,
      );
    if (BUILTIN_STEP_TYPES.has(name))
      return fail(
        item.keyNode,
        item.field,
        `legacy step_types definition name ${JSON.stringify(name)} conflicts with a builtin action`,
      );
  }
  const what = kind === 'action' ? 'a custom action definition' : 'a legacy step_types definition';
  const map = r.map(item, DEFINITION_KEYS, what);
  if (!map) return undefined;
  const at = (e: Entry | undefined) =>
    e ? (isNull(e.value) ? e.keyNode : e.value) : (item.value ?? item.keyNode);
  const field = (key: string) => `${item.field}.${key}`;

  const typeEntry = map.get('type');
  const typeWritten = r.string(typeEntry);
  // A type that is not text at all is reported by r.string already.
  const typeNotText = typeEntry !== undefined && !isNull(typeEntry.value) && typeWritten === undefined;
  const typeText = typeWritten?.trim() ?? '';
  let target = '';
  if (kind === 'action') {
    if (typeText !== '')
      fail(
        at(typeEntry),
        field('type'),
        `type is not supported for actions; put run or action in ${section}.${name}.template`,
      );
  } else if (typeText === '') {
    if (!typeNotText) fail(at(typeEntry), field('type'), 'type is required');
  } else if (!BUILTIN_STEP_TYPES.has(typeText)) {
    fail(at(typeEntry), field('type'), `unknown builtin action ${JSON.stringify(typeText)}`);
  } else target = typeText;

  const schemaEntry = map.get('input_schema');
  let schema: JsonObject | undefined;
  let compiled: InputSchema | undefined;
  if (!schemaEntry || isNull(schemaEntry.value)) {
    fail(at(schemaEntry), field('input_schema'), 'input_schema is required');
  } else {
    const value = isMap(schemaEntry.value) ? plain(r, schemaEntry) : null;
    const problem =
      value === undefined
        ? null // reported by plain
        : !isObject(value)
          ? 'input_schema must be an inline JSON Schema object'
          : (schemaProblem(value) ??
            (declaresObject(value, value) ? null : 'input_schema must resolve to an object schema'));
    if (problem !== null) fail(schemaEntry.value, field('input_schema'), problem);
    else if (value !== undefined) {
      schema = value as JsonObject;
      compiled = compileInputSchema(schema);
      if (!compiled.ok) fail(schemaEntry.value, field('input_schema'), compiled.error);
    }
  }

  let outputSchema: JsonObject | null = null;
  const outputEntry = map.get('output_schema');
  if (outputEntry && !isNull(outputEntry.value)) {
    const value = isMap(outputEntry.value) ? plain(r, outputEntry) : null;
    const problem = value === undefined ? null : outputSchemaProblem(value);
    if (problem !== null) fail(outputEntry.value, field('output_schema'), problem);
    else if (value !== undefined) outputSchema = value as JsonObject;
  }

  const templateEntry = map.get('template');
  let template: YAMLMap | undefined;
  if (
    !templateEntry ||
    isNull(templateEntry.value) ||
    (isMap(templateEntry.value) && templateEntry.value.items.length === 0)
  ) {
    fail(at(templateEntry), field('template'), 'template is required');
  } else if (!isMap(templateEntry.value)) {
    fail(
      templateEntry.value,
      field('template'),
      `template must be a map, got ${describe(templateEntry.value)}`,
    );
  } else {
    template = templateEntry.value;
    const keys = templateKeys(template);
    if (kind === 'step_type') {
      const typeKey = keys.get('type');
      if (typeKey)
        fail(
          typeKey,
          field('template.type'),
          `template.type is not allowed; use step_types.${name}.type instead`,
        );
    } else {
      if (keys.has('run') === keys.has('action'))
        fail(template, field('template'), 'custom action template must define exactly one of run or action');
      const legacy = LEGACY_EXECUTION_KEYS.filter((k) => keys.has(k)).sort();
      if (legacy.length > 0)
        fail(
          template,
          field('template'),
          `template contains deprecated execution keys: [${legacy.join(' ')}]`,
        );
    }
  }

  if (!schema || !compiled?.ok || !template) return undefined;
  return {
    name,
    kind,
    target,
    targetNode: typeEntry?.value ?? null,
    description: r.string(map.get('description'))?.trim() ?? '',
    schema,
    compiled,
    outputSchema,
    template,
    field: item.field,
  };
}

/** The keys of a template map, lower-cased (step keys ignore case), with their key nodes. */
function templateKeys(template: YAMLMap): Map<string, Node> {
  const keys = new Map<string, Node>();
  for (const pair of template.items) {
    if (isScalar(pair.key) && typeof pair.key.value === 'string')
      keys.set(pair.key.value.toLowerCase(), pair.key);
  }
  return keys;
}

/**
 * Whether a definition's template (used or not) is an `artifact.*` action or sends a stream to an artifact
 * (`stdout: {artifact}`), which turns the DAG's artifacts on as such a step does (readArtifacts.ts).
 */
export function customTemplatesUseArtifacts(r: DagReader): { action: boolean; output: boolean } {
  const out = { action: false, output: false };
  for (const def of registries.get(r)?.defs.values() ?? []) {
    if ('broken' in def) continue;
    if (def.target === 'artifact') out.action = true;
    for (const pair of def.template.items) {
      const key = isScalar(pair.key) ? String(pair.key.value).toLowerCase() : '';
      const value = resolved(r, pair.value);
      if (key === 'action' && isScalar(value) && String(value.value).trim().startsWith('artifact.'))
        out.action = true;
      if ((key === 'stdout' || key === 'stderr') && isMap(value) && templateKeys(value).has('artifact'))
        out.output = true;
    }
  }
  return out;
}

/** A step's call of a custom definition: the definition and the `action` or `type` entry naming it. */
export interface CustomCall {
  name: string;
  def: Definition;
  via: Entry;
  /** Called with `action:` (a custom action) rather than the legacy `type:`. */
  viaAction: boolean;
}

/**
 * The custom definition a step map calls, or null: `action: <name>` names a custom action, `type: <name>` any
 * definition (as in Dagu, where an action call becomes a typed step).
 */
export function customCall(r: DagReader, map: ReadonlyMap<string, Entry>): CustomCall | null {
  const registry = registries.get(r);
  if (!registry) return null;
  const named = (key: string): [string, Definition, Entry] | null => {
    const e = map.get(key);
    if (!e || !isScalar(e.value) || typeof e.value.value !== 'string') return null;
    const name = e.value.value.trim();
    const def = registry.defs.get(name);
    return def ? [name, def, e] : null;
  };
  const action = named('action');
  if (action && action[1].kind === 'action')
    return { name: action[0], def: action[1], via: action[2], viaAction: true };
  const type = named('type');
  if (type) return { name: type[0], def: type[1], via: type[2], viaAction: false };
  return null;
}

/** `custom action "x"` or `legacy step_types definition "x"`, as errors about a definition's use start. */
export function customContext(call: CustomCall): string {
  return call.def.kind === 'action'
    ? `custom action ${JSON.stringify(call.name)}`
    : `legacy step_types definition ${JSON.stringify(call.name)}`;
}

class ExpansionError extends Error {}

/**
 * The step a call expands to (an entry at the call's place), or null when it cannot be expanded (the
 * problems reported). `stack` lists the definitions being expanded around this call, outermost first.
 */
export function expandCustomStep(
  r: DagReader,
  step: Entry,
  map: ReadonlyMap<string, Entry>,
  call: CustomCall,
  stack: readonly string[],
): Entry | null {
  const def = call.def;
  if ('broken' in def) return null;
  const ctx = customContext(call);
  if (stack.includes(def.name)) {
    r.error(
      call.via.value,
      call.via.field,
      `recursive custom action reference: ${[...stack, def.name].join(' -> ')}`,
    );
    return null;
  }
  if (stack.length >= MAX_NESTING) {
    r.error(
      call.via.value,
      call.via.field,
      `${ctx}: custom actions call each other more than ${MAX_NESTING} deep (${stack[0]} -> … -> ${def.name})`,
    );
    return null;
  }
  if (!checkCallKeys(r, map, call, ctx)) return null;

  const withEntry = map.get('with') ?? map.get('config');
  const inputAt = withEntry && !isNull(withEntry.value) ? withEntry.value : call.via.value;
  const inputField = withEntry?.field ?? `${step.field}.with`;
  let input: JsonObject = {};
  if (withEntry && !isNull(withEntry.value)) {
    if (!isMap(withEntry.value)) {
      r.errorAt(withEntry, `with must be an object, got ${describe(withEntry.value)}`);
      return null;
    }
    const value = plain(r, withEntry);
    if (value === undefined) return null;
    input = value as JsonObject;
  }
  const inputChars = JSON.stringify(input).length;
  if (inputChars > MAX_INPUT_CHARS) {
    r.error(
      inputAt,
      inputField,
      `${ctx}: the input has ${inputChars} characters as JSON; at most ${MAX_INPUT_CHARS} are accepted`,
    );
    return null;
  }
  const checked = checkInput(def.schema, def.compiled, input);
  if (!checked.ok) {
    r.error(inputAt, inputField, `invalid ${JSON.stringify(def.name)} input: ${checked.error}`);
    return null;
  }

  const registry = registries.get(r)!;
  const renderer = new Renderer(
    r,
    def,
    checked.value,
    withEntry && !isNull(withEntry.value) ? withEntry.value : null,
    registry,
  );
  let rendered: Node | null;
  try {
    rendered = renderer.render(def.template, `${def.field}.template`);
  } catch (err) {
    if (!(err instanceof ExpansionError)) throw err;
    r.error(call.via.value, call.via.field, `${ctx}: ${err.message}`);
    return null;
  }
  if (!isMap(rendered)) {
    r.error(
      call.via.value,
      call.via.field,
      `${ctx}: custom step template for ${JSON.stringify(def.name)} must render to an object`,
    );
    return null;
  }
  return { ...step, value: mergeCall(r, rendered, map, def, step.value) };
}

/** The call's keys that Dagu refuses beside a custom definition; false when there is one. */
function checkCallKeys(
  r: DagReader,
  map: ReadonlyMap<string, Entry>,
  call: CustomCall,
  ctx: string,
): boolean {
  let ok = true;
  const refuse = (key: string, message: string) => {
    const e = map.get(key)!;
    r.error(e.keyNode, e.field, message);
    ok = false;
  };
  const reported = new Set<string>();
  if (call.viaAction) {
    if (map.has('run')) refuse('run', 'run cannot be used together with action');
    for (const key of LEGACY_EXECUTION_KEYS) {
      if (!map.has(key)) continue;
      refuse(key, `action cannot be used together with ${key}`);
      reported.add(key);
    }
  } else {
    if (map.has('action')) refuse('action', 'action cannot be used together with type');
    if (map.has('run')) refuse('run', 'run cannot be used together with type');
    if (map.has('with') && map.has('config'))
      refuse('config', `${ctx}: fields "with" and "config" cannot be used together`);
  }
  for (const key of FORBIDDEN_CALL_KEYS) {
    if (!map.has(key) || reported.has(key)) continue;
    refuse(
      key,
      `${ctx}: field ${JSON.stringify(key)} is not allowed when using a legacy step_types definition`,
    );
  }
  return ok;
}

/**
 * The expanded step map: the rendered template's keys, a legacy definition's `type` (its target, unless a
 * command, which a template says with run/command/script/exec itself), then the call's keys over them — `env`
 * and `preconditions` added after the template's rather than replacing them, as in Dagu.
 */
function mergeCall(
  r: DagReader,
  rendered: YAMLMap,
  map: ReadonlyMap<string, Entry>,
  def: CustomDefinition,
  callNode: Node | null,
): YAMLMap {
  const merged = new YAMLMap();
  if (callNode?.range) merged.range = callNode.range;
  const index = new Map<string, number>();
  for (const pair of rendered.items) {
    if (isScalar(pair.key) && pair.key.value !== null && typeof pair.key.value !== 'object')
      index.set(String(pair.key.value).toLowerCase(), merged.items.length);
    merged.items.push(pair as Pair<unknown, unknown>);
  }
  if (def.kind === 'step_type' && def.target !== 'command' && def.target !== 'shell') {
    index.set('type', merged.items.length);
    merged.items.push(
      new Pair(r.createNode('type', def.targetNode), r.createNode(def.target, def.targetNode)),
    );
  }
  for (const [key, e] of map) {
    if (CALL_ONLY_KEYS.has(key)) continue;
    const at = index.get(key);
    let value: unknown = e.value;
    if (at !== undefined && (key === 'env' || key === 'preconditions'))
      value = concatenated(r, key, (merged.items[at] as Pair).value, e.value);
    const pair = new Pair(e.keyNode, value);
    if (at !== undefined) merged.items[at] = pair;
    else {
      index.set(key, merged.items.length);
      merged.items.push(pair);
    }
  }
  return merged;
}

/**
 * The template's entries then the call's, as one list: an `env` map becomes one-variable maps, a single
 * precondition (text or map) one item.
 */
function concatenated(r: DagReader, key: 'env' | 'preconditions', first: unknown, second: Node | null): Node {
  const items = (value: unknown): unknown[] => {
    const node = r.resolve(value);
    if (isNull(node)) return [];
    if (isSeq(node)) return node.items;
    if (key === 'env' && isMap(node))
      return node.items.map((pair) => {
        const one = new YAMLMap();
        one.range = node.range;
        one.items.push(pair);
        return one;
      });
    return [node];
  };
  const seq = new YAMLSeq();
  if (second?.range) seq.range = second.range;
  seq.items.push(...items(first), ...items(second));
  return seq;
}

/** Renders a template's nodes: `{$input: path}` maps and `{{ }}` texts replaced, the rest kept as it is. */
class Renderer {
  private chars = 0;
  private readonly sizes = new WeakMap<object, number>();

  constructor(
    private readonly r: DagReader,
    private readonly def: CustomDefinition,
    private readonly input: JsonObject,
    private readonly withNode: Node | null,
    private readonly registry: Registry,
  ) {}

  render(nodeIn: unknown, path: string): Node | null {
    // An alias costs more than its node: a template of aliases to aliases stops after about a thousand.
    if (isAlias(nodeIn)) this.count(1024);
    const node = resolved(this.r, nodeIn);
    if (node === null) return null;
    // Every node counts too, so that even a bomb of empty values ("billion laughs") stops at the limit.
    this.count(2);
    if (isScalar(node)) {
      if (typeof node.value === 'string' && node.value.includes('{{')) {
        const text = new Scalar(this.text(node.value, path));
        text.range = node.range;
        return text;
      }
      this.count(typeof node.value === 'string' ? node.value.length : 8);
      return node;
    }
    if (isSeq(node)) {
      const seq = new YAMLSeq();
      seq.range = node.range;
      node.items.forEach((item, i) => seq.items.push(this.render(item, `${path}[${i}]`)));
      return seq;
    }
    if (isMap(node)) {
      const only = node.items.length === 1 ? node.items[0] : null;
      if (only && isScalar(only.key) && only.key.value === '$input') {
        const ref = resolved(this.r, only.value);
        if (isScalar(ref) && typeof ref.value === 'string') return this.inputValue(ref.value, node, path);
      }
      const map = new YAMLMap();
      map.range = node.range;
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '?';
        this.count(key.length + 4);
        map.items.push(new Pair(pair.key, this.render(pair.value, `${path}.${key}`)));
      }
      return map;
    }
    return node;
  }

  /** A `{{ }}` text rendered as a Go template with `.input`. */
  private text(source: string, path: string): string {
    const name = this.def.name;
    let out: string;
    try {
      out = executeStepTemplate(compileStepTemplate(source, name), { input: this.input });
    } catch (err) {
      if (err instanceof TemplateParseError)
        throw new ExpansionError(`${path}: failed to parse template string: ${err.message}`);
      if (err instanceof TemplateExecError)
        throw new ExpansionError(`${path}: failed to execute template string: ${err.message}`);
      if (err instanceof RangeError)
        throw new ExpansionError(`${path}: failed to execute template string: ${err.message}`);
      throw err;
    }
    this.count(out.length);
    return out;
  }

  /** The input value at `ref` (`a.b.0`), as nodes placed where the call wrote it (else at the template's map). */
  private inputValue(ref: string, at: YAMLMap, path: string): Node {
    const fail = (why: string) =>
      new ExpansionError(
        `${path}: failed to resolve ${JSON.stringify(this.def.name)} template input ${JSON.stringify(ref)}: ${why}`,
      );
    let current: unknown = this.input;
    let origin: Node | null = this.withNode;
    for (const segment of ref.trim().split('.')) {
      if (segment === '') throw fail('path contains an empty segment');
      if (isObject(current)) {
        if (!Object.hasOwn(current, segment)) throw fail(`field ${JSON.stringify(segment)} does not exist`);
        current = current[segment];
        origin = childNode(this.r, origin, segment);
      } else if (Array.isArray(current)) {
        if (!/^[+-]?\d+$/.test(segment))
          throw fail(`segment ${JSON.stringify(segment)} is not a valid array index`);
        const i = Number(segment);
        if (i < 0 || i >= current.length) throw fail(`array index ${i} is out of range`);
        current = current[i] as unknown;
        origin = childNode(this.r, origin, i);
      } else {
        throw fail(`segment ${JSON.stringify(segment)} cannot be resolved from ${goType(current)}`);
      }
    }
    this.count(this.size(current));
    const node = this.r.createNode(current, null);
    placeLike(this.r, node, origin);
    if (at.range) placeAt(node, at.range);
    return node;
  }

  private size(value: unknown): number {
    if (value === null || typeof value !== 'object') return JSON.stringify(value)?.length ?? 4;
    const known = this.sizes.get(value);
    if (known !== undefined) return known;
    const size = JSON.stringify(value).length;
    this.sizes.set(value, size);
    return size;
  }

  private count(chars: number): void {
    this.chars += chars;
    this.registry.expanded += chars;
    if (this.chars > MAX_STEP_EXPANSION)
      throw new ExpansionError(
        `the expanded step has more than ${MAX_STEP_EXPANSION} characters; at most ${MAX_STEP_EXPANSION} are accepted`,
      );
    if (this.registry.expanded > MAX_DOCUMENT_EXPANSION)
      throw new ExpansionError(
        `the document's expanded custom steps have more than ${MAX_DOCUMENT_EXPANSION} characters; at most ${MAX_DOCUMENT_EXPANSION} are accepted`,
      );
  }
}

/**
 * A value as plain data, or undefined (reported) when it cannot be made: the YAML library refuses to expand an
 * alias bomb ("billion laughs").
 */
function plain(r: DagReader, entry: Entry): unknown {
  try {
    return r.toJS(entry.value);
  } catch (err) {
    r.errorAt(entry, `invalid YAML: ${(err as Error).message}`);
    return undefined;
  }
}

const aliasTargets = new WeakMap<object, Node | null>();

/**
 * What an alias stands for, looked up once per alias: the YAML library searches the whole document for the
 * anchor each time, which a template that repeats an alias would make costly.
 */
function resolved(r: DagReader, node: unknown): Node | null {
  if (!isAlias(node)) return (node as Node | null) ?? null;
  let target = aliasTargets.get(node);
  if (target === undefined) {
    target = r.resolve(node);
    aliasTargets.set(node, target);
  }
  return target;
}

/** The node under `key` (a map key or list index) of a node of the call's `with`, or null. */
function childNode(r: DagReader, node: Node | null, key: string | number): Node | null {
  const n = resolved(r, node);
  if (typeof key === 'string' && isMap(n)) {
    const pair = n.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    return pair ? resolved(r, pair.value) : null;
  }
  if (typeof key === 'number' && isSeq(n)) return resolved(r, n.items[key]);
  return null;
}

/** Gives a node made from an input value the places of the call's nodes it was read from. */
function placeLike(r: DagReader, node: unknown, origin: Node | null): void {
  const source = resolved(r, origin);
  if (!source?.range) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : null;
      const child = key === null ? null : childNode(r, source, key);
      placeLike(r, pair.key, source);
      placeLike(r, pair.value, child ?? source);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => placeLike(r, item, childNode(r, source, i) ?? source));
  }
  if (isScalar(node) || isMap(node) || isSeq(node)) node.range ??= source.range;
}

/** Go's `%T` of a decoded YAML value, for messages. */
function goType(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'uint64' : 'float64';
  return typeof value;
}

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
