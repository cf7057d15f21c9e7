// Dagu 1.x DAG files (camelCase keys, `dir`, `executor`, `precondition`, `run:` for a sub-DAG, chain by default,
// backticks run in env and params) read with their 1.x meaning. The translation works on the parsed YAML
// documents, before the 2.x reader sees them, so positions and comments survive: `parseDag` uses it to read a
// 1.x file ("read"), `dagu migrate` to rewrite one in 2.x spelling ("migrate"). A file that uses no spelling
// only 1.x has is left alone and read as 2.x; `differencesUnder1x` names where 1.x would read it otherwise.

import { isMap, isScalar, isSeq, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Document, Node } from 'yaml';
import { isPosixShellText, backtickConditionCommand } from './dagu1Conditions';

export type Dagu1Mode = 'read' | 'migrate';

export interface Dagu1Translation {
  /** True when some document uses a spelling only Dagu 1.x has; then every document was translated. */
  isDagu1: boolean;
  /** The spellings changed, `old -> new`, each once, in the order met. */
  renames: string[];
  /** 1.x meanings made explicit: `type: chain`, `working_dir: .`, backticks run, ... each once. */
  meanings: string[];
  /** read: env value nodes whose backticks the runner runs when the run (or the step) starts. */
  evalEnv: Set<Node>;
  /**
   * read: text nodes whose backticks run without 2.x's time limit, as in 1.x: a precondition made an `eval`,
   * a repeat condition with `expected`, a param made an `eval`.
   */
  unboundedEvals: Set<Node>;
  /** migrate: why the file cannot be written in 2.x spelling without a change of meaning (empty: it can). */
  blockers: string[];
}

/** Dagu 1.30.2's camelCase root keys (its schema and decoder); other camelCase keys are nobody's. */
const ROOT_CAMEL_1X = new Set([
  'workingDir',
  'skipIfSuccessful',
  'logDir',
  'logOutput',
  'handlerOn',
  'mailOn',
  'errorMail',
  'infoMail',
  'waitMail',
  'timeoutSec',
  'delaySec',
  'restartWaitSec',
  'histRetentionDays',
  'maxActiveRuns',
  'maxActiveSteps',
  'maxCleanUpTimeSec',
  'maxOutputSize',
  'registryAuths',
  'runConfig',
  'workerSelector',
]);
/** Dagu 1.30.2's camelCase step keys. */
const STEP_CAMEL_1X = new Set([
  'workingDir',
  'shellPackages',
  'logOutput',
  'continueOn',
  'retryPolicy',
  'repeatPolicy',
  'mailOnError',
  'signalOnStop',
  'workerSelector',
  'timeoutSec',
]);
/** Step keys whose value is a map of Dagu's own keys (so its camelCase keys are 1.x spellings). */
const STEP_STRUCT_KEYS = new Set(['continueOn', 'retryPolicy', 'repeatPolicy', 'parallel', 'output']);
/** Root keys whose value is a map of Dagu's own keys. */
const ROOT_STRUCT_KEYS = new Set(['mailOn', 'errorMail', 'infoMail', 'waitMail', 'runConfig', 'smtp']);
/** Root keys that are the same word in both releases but hold maps of 1.x spellings to rename. */
const ROOT_PLAIN_STRUCT = new Set(['smtp', 'container', 'ssh', 'llm', 'otel']);

/** camelCase to snake_case, acronyms kept whole: `skipTLSVerify` -> `skip_tls_verify`, `baseURL` -> `base_url`. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

const hasUpper = (key: string) => /[A-Z]/.test(key);
const BACKTICK = /`[^`]*`/;

/** The scalar key of a pair, or null. */
function keyOf(pair: Pair): string | null {
  return isScalar(pair.key) && typeof pair.key.value === 'string' ? pair.key.value : null;
}

/**
 * The first pair of `map` with the scalar key `key`. An indexed loop, not `find`: every file is checked for 1.x
 * spellings, key by key of every step, mostly in V8's interpreter (a cold `dagu validate`), where a callback is
 * a new closure at every call and a for-of loop allocates at every turn. The walks below loop by index too.
 */
function pairOf(map: YAMLMap, key: string): Pair | undefined {
  const items = map.items as Pair[];
  for (let i = 0; i < items.length; i++) if (keyOf(items[i]) === key) return items[i];
  return undefined;
}

function stringOf(node: unknown): string | null {
  return isScalar(node) && typeof node.value === 'string' ? node.value : null;
}

/** A scalar's value as the text Dagu decodes it into a string field (`expected: 3` is "3"), or null. */
function scalarText(node: unknown): string | null {
  if (!isScalar(node) || node.value === null || typeof node.value === 'object') return null;
  return String(node.value);
}

/** The step maps (and string steps) of one document, top-level entries with their group members. */
function stepEntries(root: YAMLMap): Array<Node[]> {
  const steps = pairOf(root, 'steps')?.value;
  if (isSeq(steps))
    return steps.items.map((item) => (isSeq(item) ? [...(item.items as Node[])] : [item as Node]));
  if (isMap(steps)) return steps.items.map((p) => [(p as Pair).value as Node]);
  return [];
}

function handlerSteps(root: YAMLMap): YAMLMap[] {
  const h = pairOf(root, 'handlerOn')?.value ?? pairOf(root, 'handler_on')?.value;
  if (!isMap(h)) return [];
  return h.items.map((p) => (p as Pair).value).filter((v): v is YAMLMap => isMap(v));
}

/** The step maps of one document: top-level steps, group members and handlers, gathered in one array. */
function allStepMaps(root: YAMLMap): YAMLMap[] {
  const out: YAMLMap[] = [];
  const steps = pairOf(root, 'steps')?.value;
  if (isSeq(steps)) {
    for (let i = 0; i < steps.items.length; i++) {
      const item = steps.items[i];
      if (isMap(item)) out.push(item);
      else if (isSeq(item)) for (let j = 0; j < item.items.length; j++) addMap(out, item.items[j]);
    }
  } else if (isMap(steps)) {
    for (let i = 0; i < steps.items.length; i++) addMap(out, (steps.items[i] as Pair).value);
  }
  out.push(...handlerSteps(root));
  return out;
}

function addMap(out: YAMLMap[], node: unknown): void {
  if (isMap(node)) out.push(node);
}

/** Whether one document uses a spelling only Dagu 1.x has. */
function documentIs1x(root: YAMLMap): boolean {
  for (let i = 0; i < root.items.length; i++) {
    const key = keyOf(root.items[i] as Pair);
    if (key !== null && (ROOT_CAMEL_1X.has(key) || key === 'precondition')) return true;
  }
  const steps = allStepMaps(root);
  for (let s = 0; s < steps.length; s++) {
    const items = steps[s].items as Pair[];
    let run: Pair | undefined;
    let params = false;
    for (let i = 0; i < items.length; i++) {
      const p = items[i];
      const key = keyOf(p);
      if (key === null) continue;
      if (STEP_CAMEL_1X.has(key) || key === 'dir' || key === 'executor' || key === 'precondition')
        return true;
      if (key === 'preconditions' && conditionItems(p.value).some((c) => pairOf(c, 'command'))) {
        return true;
      }
      if (key === 'run') run ??= p;
      else if (key === 'params') params = true;
    }
    // `run:` naming a sub-DAG with its params: 2.x refuses the pair, 1.x calls the DAG.
    if (run && params && isScalar(run.value)) return true;
  }
  return false;
}

function conditionItems(node: unknown): YAMLMap[] {
  if (isMap(node)) return [node];
  if (isSeq(node)) return node.items.filter((i): i is YAMLMap => isMap(i));
  return [];
}

/** The root maps of the non-empty documents of a file. */
function roots(docs: readonly Document[]): YAMLMap[] {
  return docs.map((d) => d.contents).filter((c): c is YAMLMap => isMap(c));
}

/** Whether the file uses a spelling only Dagu 1.x has. */
export function isDagu1File(docs: readonly Document[]): boolean {
  return roots(docs).some(documentIs1x);
}

/**
 * Translates a 1.x file in place to 2.x spelling with 1.x meaning. Does nothing (and says so) for a file
 * that uses no 1.x-only spelling.
 */
export function translateDagu1(docs: readonly Document[], mode: Dagu1Mode): Dagu1Translation {
  const t = new Translator(mode);
  if (!isDagu1File(docs)) return t.result(false);
  for (const doc of docs) if (isMap(doc.contents)) t.document(doc.contents);
  return t.result(true);
}

/** The one warning a 1.x file read with 1.x meaning gets. */
export function dagu1Warning(t: Dagu1Translation, file: string): string {
  const parts = [`Dagu 1.x spelling read with 1.x meaning: ${t.renames.join(', ') || 'none renamed'}`];
  if (t.meanings.length > 0) parts.push(`1.x meaning kept: ${t.meanings.join(', ')}`);
  parts.push(`run "dagu migrate ${file}" to rewrite it`);
  return parts.join('; ');
}

class Translator {
  private readonly renames: string[] = [];
  private readonly meanings: string[] = [];
  private readonly evalEnv = new Set<Node>();
  private readonly unboundedEvals = new Set<Node>();
  private readonly blockers: string[] = [];
  /** The `shell` of the document being translated (its steps' conditions run with it), or null. */
  private dagShell: string | null = null;

  constructor(private readonly mode: Dagu1Mode) {}

  result(isDagu1: boolean): Dagu1Translation {
    return {
      isDagu1,
      renames: this.renames,
      meanings: this.meanings,
      evalEnv: this.evalEnv,
      unboundedEvals: this.unboundedEvals,
      blockers: this.blockers,
    };
  }

  private renamed(from: string, to: string): void {
    const text = `${from} -> ${to}`;
    if (!this.renames.includes(text)) this.renames.push(text);
  }

  private meant(text: string): void {
    if (!this.meanings.includes(text)) this.meanings.push(text);
  }

  private block(text: string): void {
    if (!this.blockers.includes(text)) this.blockers.push(text);
  }

  /** Renames a pair's key, keeping the key node (and so its place and comments). */
  private rename(pair: Pair, to: string): void {
    const key = pair.key as Scalar;
    const from = String(key.value);
    if (from === to) return;
    key.value = to;
    this.renamed(from, to);
  }

  /** Renames every camelCase key of a map of Dagu's own keys to snake_case. */
  private snakeKeys(node: unknown): void {
    if (!isMap(node)) return;
    for (const p of node.items as Pair[]) {
      const key = keyOf(p);
      if (key !== null && hasUpper(key)) this.rename(p, snakeCase(key));
    }
  }

  document(root: YAMLMap): void {
    const hadType = pairOf(root, 'type') !== undefined;
    this.dagShell = scalarText(pairOf(root, 'shell')?.value);
    for (const p of [...root.items] as Pair[]) {
      const key = keyOf(p);
      if (key === null) continue;
      if (key === 'precondition') this.precondition(root, p);
      else if (key === 'handlerOn' || key === 'handler_on') {
        if (key === 'handlerOn') this.rename(p, 'handler_on');
        this.handlers(p.value);
      } else if (ROOT_CAMEL_1X.has(key)) {
        this.rename(p, snakeCase(key));
        if (ROOT_STRUCT_KEYS.has(key)) this.snakeKeys(p.value);
      } else if (ROOT_PLAIN_STRUCT.has(key)) {
        this.snakeKeys(p.value);
        if (key === 'container' && isMap(p.value)) {
          const workDir = pairOf(p.value, 'work_dir');
          if (workDir) this.rename(workDir, 'working_dir');
        }
        if (key === 'llm' && isMap(p.value)) this.snakeKeys(pairOf(p.value, 'thinking')?.value);
      }
    }
    const pre = pairOf(root, 'preconditions');
    if (pre) this.conditions(pre.value, 'preconditions', this.dagShell);
    for (const [i, entry] of stepEntries(root).entries()) {
      for (const [j, node] of entry.entries()) {
        if (isMap(node)) this.step(node, entry.length > 1 ? `steps[${i}][${j}]` : `steps[${i}]`);
      }
    }
    this.params(root);
    this.dagEnv(root);
    this.ordering(root, hadType);
    if (!pairOf(root, 'working_dir')) {
      // 1.x runs steps in the DAG file's directory; 2.x in a per-run work directory.
      this.insertBefore(root, 'steps', new Pair(new Scalar('working_dir'), new Scalar('.')));
      this.meant("working_dir: . (1.x runs steps in the DAG file's directory)");
    }
  }

  /**
   * 1.x's `precondition`: renamed, or, when the map has `preconditions` too (1.x applies both), its conditions
   * go first in that list.
   */
  private precondition(map: YAMLMap, pair: Pair): void {
    const list = pairOf(map, 'preconditions');
    if (!list) {
      this.rename(pair, 'preconditions');
      return;
    }
    const items = (node: unknown): unknown[] => (isSeq(node) ? [...node.items] : node == null ? [] : [node]);
    const merged = new YAMLSeq();
    merged.items.push(...items(pair.value), ...items(list.value));
    list.value = merged;
    map.items.splice(map.items.indexOf(pair), 1);
    this.renamed('precondition', 'preconditions');
  }

  private handlers(node: unknown): void {
    if (!isMap(node)) return;
    for (const p of node.items as Pair[]) {
      const key = keyOf(p);
      if (key === 'cancel') this.rename(p, 'abort');
      if (isMap(p.value)) this.step(p.value, `handler_on.${key === 'cancel' ? 'abort' : key}`);
    }
  }

  private step(step: YAMLMap, field: string): void {
    for (const p of [...step.items] as Pair[]) {
      const key = keyOf(p);
      if (key === null) continue;
      if (key === 'dir') this.rename(p, 'working_dir');
      else if (key === 'precondition') this.precondition(step, p);
      else if (key === 'executor') this.executor(step, p, field);
      else if (
        key === 'run' &&
        isScalar(p.value) &&
        // A DAG name has no spaces: `run: echo x` beside 1.x keys is a 2.x shell command in a mixed file.
        /^\S+$/.test(String(p.value.value)) &&
        !pairOf(step, 'command') &&
        !pairOf(step, 'script')
      ) {
        this.rename(p, 'call');
      } else if (STEP_CAMEL_1X.has(key)) {
        this.rename(p, snakeCase(key));
        if (STEP_STRUCT_KEYS.has(key)) this.snakeKeys(p.value);
      } else if (STEP_STRUCT_KEYS.has(key) || key === 'container' || key === 'llm') {
        this.snakeKeys(p.value);
      }
    }
    const retry = pairOf(step, 'retry_policy')?.value;
    if (isMap(retry)) this.snakeKeys(retry);
    const repeat = pairOf(step, 'repeat_policy')?.value;
    if (isMap(repeat)) this.repeatCondition(step, repeat, field);
    const pre = pairOf(step, 'preconditions');
    if (pre)
      this.conditions(
        pre.value,
        `${field}.preconditions`,
        scalarText(pairOf(step, 'shell')?.value) ?? this.dagShell,
      );
    this.stepEnv(step, field);
  }

  /**
   * A repeat condition with backticks and `expected`: 1.x runs the backticks and compares their output. Read,
   * it becomes an unbounded eval; migrated, a 2.x command check that does the same (dagu1Conditions.ts), with the
   * mode 1.x inferred from `condition` + `expected` (until) written out, as 2.x infers `while` without them.
   */
  private repeatCondition(step: YAMLMap, repeat: YAMLMap, field: string): void {
    this.snakeKeys(repeat);
    const condPair = pairOf(repeat, 'condition');
    const cond = stringOf(condPair?.value);
    const expectedPair = pairOf(repeat, 'expected');
    const expected = scalarText(expectedPair?.value);
    if (cond === null || !BACKTICK.test(cond) || !expected) return;
    if (this.mode === 'read') {
      this.unboundedEvals.add(condPair!.value as Node);
      this.meant('backticks in a repeat condition run');
      return;
    }
    const where = `${field}.repeat_policy.condition`;
    const shell = scalarText(pairOf(step, 'shell')?.value) ?? this.dagShell;
    if (shell !== null && !isPosixShellText(shell)) {
      this.block(
        `${where} runs a command in backticks, and the shell ${shell} cannot run its 2.x command check`,
      );
      return;
    }
    const translated = backtickConditionCommand(cond, expected);
    if (!translated.ok) {
      this.block(`${where} runs a command in backticks, and ${translated.reason}`);
      return;
    }
    asCommandCheck(repeat, condPair!, expectedPair!, cond, expected, translated.command);
    if (!pairOf(repeat, 'repeat')) {
      repeat.items.splice(
        repeat.items.indexOf(condPair!),
        0,
        new Pair(new Scalar('repeat'), new Scalar('until')),
      );
    }
    this.meant('backticks in a repeat condition run (a command check comparing their output)');
  }

  /** `executor: name` or `executor: {type, config}`: the legacy `type` + `with` of 2.x. */
  private executor(step: YAMLMap, pair: Pair, field: string): void {
    const value = pair.value;
    let type: Node | null = null;
    let config: Node | null = null;
    if (isScalar(value)) type = value as Node;
    else if (isMap(value)) {
      type = (pairOf(value, 'type')?.value as Node | undefined) ?? null;
      config = (pairOf(value, 'config')?.value as Node | undefined) ?? null;
    }
    if (pairOf(step, 'type') || (config && (pairOf(step, 'with') || pairOf(step, 'config')))) {
      this.block(`${field} has executor and type (or with) both`);
      return;
    }
    const at = step.items.indexOf(pair);
    const added: Pair[] = [];
    if (type) added.push(new Pair(new Scalar('type'), type));
    if (config) {
      this.snakeKeys(config);
      added.push(new Pair(new Scalar('with'), config));
    }
    const key = pair.key as Scalar;
    if (added.length > 0) {
      const first = added[0].key as Scalar;
      first.commentBefore = key.commentBefore;
      first.spaceBefore = key.spaceBefore;
    }
    step.items.splice(at, 1, ...added);
    this.renamed('executor', config ? 'type + with' : 'type');
  }

  /**
   * Precondition maps: `command:` is a condition. A backtick condition with `expected` becomes a command check
   * that runs the backticks and compares their output (dagu1Conditions.ts), read or migrated alike: no time
   * limit and a failing command "not met", as in 1.x. Where that cannot be written (a shell that is not
   * POSIX, a text it cannot carry over), it becomes an `eval`, without 2.x's time limit when read.
   */
  private conditions(node: unknown, field: string, shell: string | null): void {
    for (const c of conditionItems(node)) {
      const command = pairOf(c, 'command');
      if (command && !pairOf(c, 'condition')) this.rename(command, 'condition');
      const cond = pairOf(c, 'condition');
      const text = stringOf(cond?.value);
      const expectedPair = pairOf(c, 'expected');
      const expected = scalarText(expectedPair?.value);
      if (cond && text !== null && BACKTICK.test(text) && expected) {
        const negate =
          isScalar(pairOf(c, 'negate')?.value) && (pairOf(c, 'negate')!.value as Scalar).value === true;
        const check =
          shell === null || isPosixShellText(shell) ? backtickConditionCommand(text, expected, negate) : null;
        if (check?.ok) {
          asCommandCheck(c, cond, expectedPair!, text, expected, check.command);
          this.meant('backticks in a precondition run (a command check comparing their output)');
          continue;
        }
        if (text.includes('$(')) {
          this.block(`${field}: a condition with both backticks and $( ) reads differently under 2.x's eval`);
          continue;
        }
        this.rename(cond, 'eval');
        if (this.mode === 'read') this.unboundedEvals.add(cond.value as Node);
        this.meant('backticks in a precondition run (eval)');
      }
    }
  }

  private stepEnv(step: YAMLMap, field: string): void {
    const found = envBackticks(pairOf(step, 'env')?.value);
    if (found.length === 0) return;
    if (this.mode === 'read') {
      for (const f of found) this.evalEnv.add(f.node);
      this.meant('backticks in env run');
    } else {
      for (const f of found) {
        this.block(
          `${field}.env.${f.name} runs a command in backticks when the step starts; Dagu 2.x has no form for that in a step's env`,
        );
      }
    }
  }

  /** DAG env values with backticks: runner-evaluated (read) or turned into params with `eval` (migrate). */
  private dagEnv(root: YAMLMap): void {
    const envPair = pairOf(root, 'env');
    const found = envBackticks(envPair?.value);
    if (found.length === 0) return;
    if (this.mode === 'read') {
      for (const f of found) this.evalEnv.add(f.node);
      this.meant('backticks in env run');
      return;
    }
    const envNames = this.envNames(envPair!.value);
    const why = (f: { name: string; value: string }): string | null => {
      if (f.value.includes('$(')) return 'it also has $( ), which 1.x keeps as text and eval would run';
      const refs = [...f.value.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
      const envRef = refs.find((r) => envNames.includes(r));
      if (envRef) return `it uses env ${envRef}, which params cannot see`;
      return null;
    };
    const params = pairOf(root, 'params');
    if (params && !isSeq(params.value) && !(isScalar(params.value) && params.value.value === null)) {
      for (const f of found)
        this.block(
          `env.${f.name} runs a command in backticks, and params is not a list to add an eval entry to`,
        );
      return;
    }
    let ok = true;
    for (const f of found) {
      const reason = why(f);
      if (reason) {
        this.block(`env.${f.name} runs a command in backticks: ${reason}`);
        ok = false;
      }
    }
    if (!ok) return;
    let list: YAMLSeq;
    if (params && isSeq(params.value)) list = params.value;
    else {
      list = new YAMLSeq();
      if (params) params.value = list;
      else this.insertBefore(root, 'env', new Pair(new Scalar('params'), list));
    }
    for (const f of found) {
      const item = new YAMLMap();
      item.items.push(new Pair(new Scalar('name'), new Scalar(f.name)));
      item.items.push(new Pair(new Scalar('eval'), new Scalar(f.value)));
      list.items.push(item);
      this.removeEnvEntry(envPair!, f.owner);
    }
    const env = envPair!.value;
    if ((isMap(env) || isSeq(env)) && env.items.length === 0)
      root.items.splice(root.items.indexOf(envPair!), 1);
    this.meant('backticks in env run (params eval)');
  }

  private envNames(env: unknown): string[] {
    const names: string[] = [];
    const fromMap = (m: YAMLMap) => {
      for (const p of m.items as Pair[]) if (keyOf(p) !== null) names.push(keyOf(p)!);
    };
    if (isMap(env)) fromMap(env);
    else if (isSeq(env)) {
      for (const item of env.items) {
        if (isMap(item)) fromMap(item);
        const text = stringOf(item);
        if (text !== null && text.includes('=')) names.push(text.slice(0, text.indexOf('=')));
      }
    }
    return names;
  }

  private removeEnvEntry(envPair: Pair, owner: Pair | Node): void {
    const env = envPair.value;
    if (isMap(env)) env.items.splice(env.items.indexOf(owner as Pair), 1);
    else if (isSeq(env)) {
      for (const [i, item] of env.items.entries()) {
        if (item === owner) {
          env.items.splice(i, 1);
          return;
        }
        if (isMap(item) && item.items.includes(owner as Pair)) {
          item.items.splice(item.items.indexOf(owner as Pair), 1);
          if (item.items.length === 0) env.items.splice(i, 1);
          return;
        }
      }
    }
  }

  /** Params with backticks: 1.x runs them; 2.x runs a rich definition's `eval`. */
  private params(root: YAMLMap): void {
    const pair = pairOf(root, 'params');
    if (!pair) return;
    const value = pair.value;
    const toEval = (name: string, text: string): YAMLMap => {
      const item = new YAMLMap();
      item.items.push(new Pair(new Scalar('name'), new Scalar(name)));
      const evalText = new Scalar(text);
      if (this.mode === 'read') this.unboundedEvals.add(evalText);
      item.items.push(new Pair(new Scalar('eval'), evalText));
      this.meant('backticks in params run (params eval)');
      return item;
    };
    const check = (name: string, text: string): boolean => {
      if (!text.includes('$(')) return true;
      this.block(`params.${name} has backticks and $( ), which 1.x keeps as text and eval would run`);
      return false;
    };
    if (isMap(value)) {
      if (!value.items.some((p) => BACKTICK.test(stringOf((p as Pair).value) ?? ''))) return;
      // A map of params becomes a list in the same order, with eval entries for the backtick ones.
      const list = new YAMLSeq();
      for (const p of value.items as Pair[]) {
        const name = keyOf(p);
        const text = stringOf(p.value);
        if (name !== null && text !== null && BACKTICK.test(text) && check(name, text)) {
          list.items.push(toEval(name, text));
        } else {
          const m = new YAMLMap();
          m.items.push(p);
          list.items.push(m);
        }
      }
      pair.value = list;
    } else if (isSeq(value)) {
      for (const [i, item] of value.items.entries()) {
        if (isMap(item) && item.items.length === 1 && !pairOf(item, 'name')) {
          const p = item.items[0] as Pair;
          const name = keyOf(p);
          const text = stringOf(p.value);
          if (name !== null && text !== null && BACKTICK.test(text) && check(name, text)) {
            value.items[i] = toEval(name, text);
          }
        } else {
          const text = stringOf(item);
          const m = text === null ? null : /^([A-Za-z][A-Za-z0-9_]*)=(.*)$/s.exec(text);
          if (m && BACKTICK.test(m[2]) && check(m[1], m[2])) value.items[i] = toEval(m[1], unquote(m[2]));
          else if (text !== null && !m && BACKTICK.test(text)) {
            this.block(`params[${i}] runs a command in backticks but has no name for 2.x's eval`);
          }
        }
      }
    } else {
      const text = stringOf(value);
      if (text === null || !BACKTICK.test(text)) return;
      const words = [...text.matchAll(/(?:([A-Za-z][A-Za-z0-9_]*)=)?("(?:\\.|[^"\\])*"|`[^`]*`|\S+)/g)];
      const list = new YAMLSeq();
      for (const w of words) {
        const [, name, raw] = w;
        if (BACKTICK.test(raw)) {
          if (name === undefined) {
            this.block(
              'params runs a command in backticks for a positional param, which has no name for eval',
            );
            return;
          }
          if (!check(name, raw)) return;
          list.items.push(toEval(name, raw));
        } else list.items.push(new Scalar(w[0]));
      }
      pair.value = list;
    }
  }

  /**
   * 1.x orders steps as a chain when `type` is not set, and under a chain a step's `depends` adds to the step
   * before it (`depends: []` alone removes it). 2.x's chain takes no `depends`: such a file becomes a graph with
   * each implied dependency written out.
   */
  private ordering(root: YAMLMap, hadType: boolean): void {
    const typePair = pairOf(root, 'type');
    const type = stringOf(typePair?.value)?.trim().toLowerCase() ?? '';
    if (hadType && type !== 'chain' && type !== '') return;
    const entries = stepEntries(root);
    const stepsNode = pairOf(root, 'steps')?.value;
    if (!isSeq(stepsNode)) return;
    const anyDepends = entries.flat().some((n) => isMap(n) && pairOf(n, 'depends'));
    if (!anyDepends) {
      if (!hadType) {
        this.insertBefore(root, 'steps', new Pair(new Scalar('type'), new Scalar('chain')));
        this.meant('type: chain (1.x default)');
      }
      return;
    }
    const used = new Set<string>();
    for (const n of entries.flat()) {
      if (!isMap(n)) continue;
      for (const k of ['name', 'id']) {
        const v = stringOf(pairOf(n, k)?.value);
        if (v !== null) used.add(v.trim());
      }
    }
    // String steps become maps, so that they can carry depends (and a name when one is needed).
    for (const [i, item] of stepsNode.items.entries()) {
      if (isScalar(item)) stepsNode.items[i] = commandStep(item);
      else if (isSeq(item)) {
        for (const [j, member] of item.items.entries())
          if (isScalar(member)) item.items[j] = commandStep(member);
      }
    }
    const fresh = stepEntries(root);
    let previous: YAMLMap[] = [];
    for (const [i, entry] of fresh.entries()) {
      const members = entry.filter((n): n is YAMLMap => isMap(n));
      const prevNames = previous.map((p) => this.referenceOf(p, i, used));
      for (const step of members) {
        const depends = pairOf(step, 'depends');
        const explicitNone =
          depends !== undefined &&
          ((isSeq(depends.value) && depends.value.items.length === 0) ||
            (isScalar(depends.value) && (depends.value.value === null || depends.value.value === '')));
        if (explicitNone || prevNames.length === 0) continue;
        if (!depends) {
          const seq = new YAMLSeq();
          seq.flow = true;
          for (const n of prevNames) seq.items.push(new Scalar(n));
          step.items.push(new Pair(new Scalar('depends'), seq));
          continue;
        }
        let seq: YAMLSeq;
        if (isSeq(depends.value)) seq = depends.value;
        else {
          seq = new YAMLSeq();
          seq.flow = true;
          seq.items.push(depends.value);
          depends.value = seq;
        }
        const have = new Set(seq.items.map((n) => String(stringOf(n) ?? (isScalar(n) ? n.value : ''))));
        for (const n of prevNames) if (!have.has(n)) seq.items.push(new Scalar(n));
      }
      previous = members;
    }
    if (typePair) typePair.value = new Scalar('graph');
    else this.insertBefore(root, 'steps', new Pair(new Scalar('type'), new Scalar('graph')));
    this.meant('the step before as a dependency (1.x chain with depends, written out under type: graph)');
  }

  /** The name a later step's `depends` uses for `step`; an unnamed step gets the name 2.x would give it. */
  private referenceOf(step: YAMLMap, index: number, used: Set<string>): string {
    const name = stringOf(pairOf(step, 'name')?.value)?.trim();
    if (name) return name;
    const id = stringOf(pairOf(step, 'id')?.value)?.trim();
    if (id) return id;
    const prefix = namePrefix(step);
    let n = index; // the entry before the one being linked: its own 1-based number is `index`
    while (used.has(`${prefix}_${n}`)) n++;
    const generated = `${prefix}_${n}`;
    used.add(generated);
    step.items.unshift(new Pair(new Scalar('name'), new Scalar(generated)));
    return generated;
  }

  /** Puts `pair` before the pair with `key` (at the end when there is none); comments stay where they are. */
  private insertBefore(map: YAMLMap, key: string, pair: Pair): void {
    const at = map.items.findIndex((p) => keyOf(p as Pair) === key);
    if (at < 0) map.items.push(pair);
    else map.items.splice(at, 0, pair);
  }
}

/**
 * Turns a 1.x `condition` + `expected` pair of `map` into the 2.x command check `command`, with a comment
 * saying what 1.x compared (shown by `dagu migrate`).
 */
function asCommandCheck(
  map: YAMLMap,
  condPair: Pair,
  expectedPair: Pair,
  condition: string,
  expected: string,
  command: string,
): void {
  const value = new Scalar(command);
  value.type = Scalar.BLOCK_LITERAL;
  condPair.value = value;
  const key = condPair.key as Scalar;
  const note = ` Dagu 1.x ran the backticks of ${JSON.stringify(condition)} and compared with ${JSON.stringify(expected)}`;
  key.commentBefore = key.commentBefore ? `${key.commentBefore}\n${note}` : note;
  map.items.splice(map.items.indexOf(expectedPair), 1);
}

function commandStep(scalar: Node): YAMLMap {
  const m = new YAMLMap();
  m.items.push(new Pair(new Scalar('command'), scalar));
  return m;
}

interface EnvBacktick {
  name: string;
  value: string;
  /** The value node (a map's value, or a `K=V` list item). */
  node: Node;
  /** What removing the entry removes: the map pair or the list item. */
  owner: Pair | Node;
}

/** Env values with backticks: 1.x runs them. */
function envBackticks(env: unknown): EnvBacktick[] {
  const found: EnvBacktick[] = [];
  if (isMap(env)) mapBackticks(env, found);
  else if (isSeq(env)) {
    for (const item of env.items) {
      if (isMap(item)) mapBackticks(item, found);
      const text = stringOf(item);
      if (text !== null && text.includes('=') && BACKTICK.test(text.slice(text.indexOf('=') + 1))) {
        const eq = text.indexOf('=');
        found.push({
          name: text.slice(0, eq),
          value: text.slice(eq + 1),
          node: item as Node,
          owner: item as Node,
        });
      }
    }
  }
  return found;
}

/**
 * The env values of a map with backticks, added to `found`. A module function, not a closure in envBackticks:
 * the bundle names every named closure when it is made, which would cost every step a property definition.
 */
function mapBackticks(m: YAMLMap, found: EnvBacktick[]): void {
  for (const p of m.items as Pair[]) {
    const name = keyOf(p);
    const value = stringOf(p.value);
    if (name !== null && value !== null && BACKTICK.test(value)) {
      found.push({ name, value, node: p.value as Node, owner: p });
    }
  }
}

/** The prefix of a generated step name, as the 2.x reader picks it. */
function namePrefix(step: YAMLMap): string {
  if (pairOf(step, 'call')) return 'dag';
  const type = stringOf(pairOf(step, 'type')?.value);
  if (type) return type.trim();
  if (pairOf(step, 'container')) return 'docker';
  const command = stringOf(pairOf(step, 'command')?.value);
  if (pairOf(step, 'script') || (command !== null && command.includes('\n'))) return 'script';
  if (pairOf(step, 'command')) return 'cmd';
  return 'step';
}

/** A params word's value without its double quotes. */
function unquote(text: string): string {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  return text;
}

/**
 * Where a 2.x file (read as 2.x) would mean something else under Dagu 1.x, for `dagu validate`: no `type` and a
 * step after the first without `depends` (1.x chains it to the step before), and backticks in `env` (1.x runs
 * them).
 */
export function differencesUnder1x(docs: readonly Document[]): string[] {
  const out: string[] = [];
  roots(docs).forEach((root, d) => {
    const prefix = d === 0 ? '' : `document ${d + 1}: `;
    const entries = stepEntries(root);
    if (!pairOf(root, 'type')) {
      // 1.x made every step after the first without `depends` wait for the step before it; 2.x starts it at
      // once. Steps that all name their dependencies mean the same in both.
      const implied = entries
        .slice(1)
        .some((e) => e.length === 1 && !(isMap(e[0]) && pairOf(e[0], 'depends')));
      if (implied) {
        out.push(
          `${prefix}type: steps without depends start at once (graph, Dagu 2.x's default), while Dagu 1.x ran each after the step before it (chain); set type: chain to keep 1.x's order, or type: graph to keep this one`,
        );
      }
    }
    const check = (env: unknown, field: string) => {
      for (const f of envBackticks(env)) {
        out.push(
          `${prefix}${field}.${f.name}: backticks are kept as text (Dagu 2.x), while Dagu 1.x ran them as a command; use a params entry with eval to run it`,
        );
      }
    };
    check(pairOf(root, 'env')?.value, 'env');
    entries.forEach((entry, i) =>
      entry.forEach((s, j) => {
        // The field is spelled only for a step that has env: most have none.
        const env = isMap(s) ? pairOf(s, 'env')?.value : undefined;
        if (env !== undefined) check(env, entry.length > 1 ? `steps[${i}][${j}].env` : `steps[${i}].env`);
      }),
    );
  });
  return out;
}

/** The names of an `env` entry's variables whose value node the 1.x translation marked (`env_eval`). */
export function envEvalNames(marked: ReadonlySet<Node>, env: Node | null | undefined): string[] {
  if (marked.size === 0 || !env) return [];
  return envBackticks(env)
    .filter((f) => marked.has(f.node))
    .map((f) => f.name);
}
