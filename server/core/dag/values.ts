// Dagu's value resolution: which `${...}` and `$VAR` references a DAG field gets filled in by dagu, and how.
// Pure: command substitution (`eval:` fields only) goes through a port the caller gives.

/** What a step reference such as `${id.stdout}` or `${steps.id.outputs.x}` can read of a step with an `id`. */
export interface StepRefInfo {
  /** Path of the step's stdout log file (`${id.stdout}` is the path, not the content). */
  stdout?: string | null;
  /** Path of the step's stderr log file. */
  stderr?: string | null;
  exit_code?: number | string | null;
  /** The captured `output:` value; null/absent when the step declares no `output`. */
  output?: string | null;
  /** Published `outputs` (`${steps.id.outputs.x}`, `${id.outputs.x}`); null/absent when none were published. */
  outputs?: Readonly<Record<string, unknown>> | null;
  /**
   * Values of an object-form `output:` or `stdout.outputs`: `${id.outputs.x}` reads them when `outputs` is
   * absent; `${steps.id.outputs.x}` never does (Dagu keeps that namespace for declared outputs).
   */
  published_outputs?: Readonly<Record<string, unknown>> | null;
}

/**
 * Everything a field may refer to. The caller builds it per field with Dagu's precedence already applied
 * (see the research note §2.2): `vars` is the run scope the field sees, later layers having won.
 */
export interface ValueScope {
  /**
   * The run scope as NAME → value: named params, positional params under "1", "2", ..., built-in run variables,
   * DAG env and dotenv, output variables of the steps this one depends on, the step's env entries so far.
   * Not the host environment: that is `hostEnv`.
   */
  vars?: Readonly<Record<string, string>>;
  /** Declared params by name, for `${params.x}`. */
  params?: Readonly<Record<string, string>>;
  /** The resolved params as JSON, for `${params}` (Dagu's DAG_PARAMS_JSON). */
  paramsJson?: string | null;
  /** `consts`, for `${consts.x}`. Non-string values are written as text. */
  consts?: Readonly<Record<string, unknown>>;
  /**
   * A foreach body's item scope, for `${foreach.<name>}` and `${foreach.<name>.<field>}`: `index` and `key`
   * (text) and the item under its alias (any JSON value). Absent outside a foreach body.
   */
  foreach?: Readonly<Record<string, unknown>>;
  /** Steps by `id`, for `${id.stdout}`, `${id.exit_code}`, `${id.output.a}`, `${steps.id.outputs.x}`. */
  steps?: Readonly<Record<string, StepRefInfo>>;
  /**
   * Built-in context values keyed without the `context.` prefix: `dag.name`, `run.id`, `run.status`,
   * `attempt.id`, `step.name`, `step.id`, `paths.work_dir`, `paths.log_file`, ... (`${context.run.id}` and the
   * short `${run.id}` both read `run.id`).
   */
  context?: Readonly<Record<string, string>>;
  /**
   * The host environment a policy with host access may read (full host env at DAG-env load, the filtered one
   * at run time: the caller decides). `${env.X}` also falls back to it.
   */
  hostEnv?: Readonly<Record<string, string>>;
  /**
   * A build DAG step's file paths: `${inputs.<name>}` (the final input path) and, during an attempt only,
   * `${outputs.<name>}` (that attempt's staging path). A reference with nothing here stays as written.
   */
  buildPaths?: {
    inputs?: Readonly<Record<string, string>>;
    outputs?: Readonly<Record<string, string>>;
  };
}

/**
 * How a field is resolved (research note §2.3, per-field table):
 * - `value`: generic values (`with:`, call target and params, `parallel` items, `worker_selector`,
 *   `stdout`/`stderr` paths, step/DAG `working_dir` first pass, `shell`/`shell_args`, precondition `condition`
 *   with `expected`, repeat `condition` with `expected`): refs, `$VAR` and POSIX operators from the run scope.
 * - `stepEnv`: step and container `env` values; same as `value`.
 * - `dagEnv`: DAG `env` at load: as `value` plus the host environment.
 * - `dagEnvRuntime`: the second pass over DAG env at run start: as `value`.
 * - `hostValue`: `dotenv` paths, `retry_policy`/`repeat_policy` string numbers: as `value` plus host env.
 * - `shellText`: run/command/script text for a POSIX-family shell: refs, JSON paths, step refs and positional
 *   `$1`/`${1}` only; every other `$VAR` (and `\$`) is left to the shell.
 * - `nonPosixScript`: script text for a non-POSIX step shell (python3, ...): `$VAR` from the run scope too,
 *   not the host env; `\$` is kept for the interpreter.
 * - `conditionCommand`: a precondition command check run by a POSIX shell: refs and run-scope `$VAR`, no
 *   POSIX operators, `\$` kept, host vars left to the shell.
 * - `directCommand`: `exec` argv: as `value` plus host env.
 * - `eval`: precondition `eval` and `params[].eval`: as `hostValue` plus backtick and `$(...)` substitution;
 *   only {@link resolveEvalValue} accepts it.
 * - `structuredOutput`: strings of an object-form `output:` (literals, file paths): refs and run-scope `$VAR`;
 *   no POSIX operators, no host env, `\$` unescaped.
 * - `literal`: nothing is expanded.
 */
export type ValuePolicy =
  | 'value'
  | 'stepEnv'
  | 'dagEnv'
  | 'dagEnvRuntime'
  | 'hostValue'
  | 'shellText'
  | 'nonPosixScript'
  | 'conditionCommand'
  | 'directCommand'
  | 'eval'
  | 'structuredOutput'
  | 'literal';

/** Runs one command-substitution body with the field's shell; resolves to its stdout, rejects on failure. */
export type CommandSubstituter = (command: string) => Promise<string>;

/** Thrown when a field's text cannot be resolved (a nested `$(...)`, a failed command substitution). */
export class ValueResolutionError extends Error {
  constructor(
    readonly text: string,
    message: string,
  ) {
    super(message);
    this.name = 'ValueResolutionError';
  }
}

interface PolicyOptions {
  /** The shell-expand phase (`${X:-d}`, `$HOST_VAR`) runs. */
  expandEnv: boolean;
  /** Host env is a fallback for `$VAR` and JSON-path sources. */
  host: boolean;
  /** `\$` (odd backslashes) becomes a literal `$` with one backslash removed. */
  escapeDollar: boolean;
  /** Plain `$VAR` is left to the shell, except positional `$1` and `~`-valued variables. */
  deferShellVars: boolean;
  /** Backtick and `$(...)` substitution runs. */
  substitute: boolean;
}

const POLICIES: Record<Exclude<ValuePolicy, 'literal'>, PolicyOptions> = {
  value: { expandEnv: true, host: false, escapeDollar: true, deferShellVars: false, substitute: false },
  stepEnv: { expandEnv: true, host: false, escapeDollar: true, deferShellVars: false, substitute: false },
  dagEnv: { expandEnv: true, host: true, escapeDollar: true, deferShellVars: false, substitute: false },
  dagEnvRuntime: {
    expandEnv: true,
    host: false,
    escapeDollar: true,
    deferShellVars: false,
    substitute: false,
  },
  hostValue: { expandEnv: true, host: true, escapeDollar: true, deferShellVars: false, substitute: false },
  shellText: { expandEnv: false, host: false, escapeDollar: false, deferShellVars: true, substitute: false },
  nonPosixScript: {
    expandEnv: true,
    host: false,
    escapeDollar: false,
    deferShellVars: false,
    substitute: false,
  },
  conditionCommand: {
    expandEnv: false,
    host: true,
    escapeDollar: false,
    deferShellVars: false,
    substitute: false,
  },
  directCommand: {
    expandEnv: true,
    host: true,
    escapeDollar: true,
    deferShellVars: false,
    substitute: false,
  },
  eval: { expandEnv: true, host: true, escapeDollar: true, deferShellVars: false, substitute: true },
  structuredOutput: {
    expandEnv: false,
    host: false,
    escapeDollar: true,
    deferShellVars: false,
    substitute: false,
  },
};

/**
 * Resolves `text` for a field of the given policy. Unresolved references are kept verbatim. Throws
 * {@link ValueResolutionError} for the `eval` policy, which needs {@link resolveEvalValue}.
 */
export function resolveValue(text: string, scope: ValueScope, policy: ValuePolicy): string {
  if (policy === 'literal' || text === '') return text;
  const opts = POLICIES[policy];
  if (opts.substitute) {
    throw new ValueResolutionError(text, `policy '${policy}' runs commands: use resolveEvalValue`);
  }
  const state = beforeSubstitution(text, scope, opts);
  return afterSubstitution(state.text, scope, opts, state);
}

/**
 * Resolves an `eval:` text (precondition `eval`, `params[].eval`): references and variables first, then each
 * backtick and `$(...)` body is run through `substitute` and replaced by its trimmed stdout, then POSIX
 * operators and host variables. Rejects with {@link ValueResolutionError} when a command fails.
 */
export async function resolveEvalValue(
  text: string,
  scope: ValueScope,
  substitute: CommandSubstituter,
): Promise<string> {
  if (text === '') return text;
  const opts = POLICIES.eval;
  const state = beforeSubstitution(text, scope, opts);
  let value = await substituteBackticks(state.text, state, substitute);
  value = await substituteDollarParens(value, state, substitute);
  return afterSubstitution(value, scope, opts, state);
}

// ---------------------------------------------------------------------------------------------------------
// The phases, in Dagu's order: namespaced bindings, `\$` escapes, quoted refs, JSON-path/step refs, plain
// variables, command substitution, POSIX/host expansion, unescape, restore unresolved bindings.

interface PhaseState {
  text: string;
  /** Placeholder → the original unresolved `${ns.x}` token, restored verbatim at the end. */
  protectedRefs: Map<string, string>;
  /** The placeholder standing for an escaped `$`, or null when none was made. */
  dollarToken: string | null;
}

let tokenSeq = 0;
function uniqueToken(text: string, base: string): string {
  for (;;) {
    tokenSeq = (tokenSeq + 1) % 1_000_000_000;
    const token = `\u0000${base}${tokenSeq}\u0000`;
    if (!text.includes(token)) return token;
  }
}

function beforeSubstitution(text: string, scope: ValueScope, opts: PolicyOptions): PhaseState {
  const protectedRefs = new Map<string, string>();
  let value = resolveBindings(text, scope, protectedRefs);
  let dollarToken: string | null = null;
  if (opts.escapeDollar && value.includes('\\$')) {
    dollarToken = uniqueToken(value, 'DOLLAR');
    value = protectEscapedDollars(value, dollarToken);
  }
  value = resolveQuotedRefs(value, scope, opts);
  value = resolveReferences(value, scope, opts);
  value = replacePlainVars(value, scope, opts);
  return { text: value, protectedRefs, dollarToken };
}

function afterSubstitution(text: string, scope: ValueScope, opts: PolicyOptions, state: PhaseState): string {
  let value = text;
  if (opts.expandEnv) value = expandShellVars(value, scope, opts);
  if (state.dollarToken !== null) value = value.split(state.dollarToken).join('$');
  for (const [placeholder, token] of state.protectedRefs) value = value.split(placeholder).join(token);
  return value;
}

/** True when the `$` at `index` follows an odd number of backslashes. */
function isEscapedDollar(text: string, index: number): boolean {
  let count = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) count++;
  return count % 2 === 1;
}

function protectEscapedDollars(text: string, token: string): string {
  return text.replace(/(\\+)\$/g, (match, slashes: string) =>
    slashes.length % 2 === 1 ? '\\'.repeat(slashes.length - 1) + token : match,
  );
}

// --- namespaced bindings: ${params.x} ${params} ${consts.x} ${env.X} ${steps.id.outputs.x} ${context.*} ---

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const OUTPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Context fields Dagu knows, without the `context.` prefix; each is also reachable by its short alias. */
export const CONTEXT_FIELDS: readonly string[] = [
  'dag.name',
  'run.id',
  'run.status',
  'run.scheduled_at',
  'run.root_name',
  'run.root_id',
  'attempt.id',
  'attempt.started_at',
  'step.id',
  'step.name',
  'trigger.type',
  'trigger.actor',
  'paths.log_file',
  'paths.work_dir',
  'paths.artifacts_dir',
  'paths.wiki_dir',
  'paths.docs_dir',
  'paths.step_stdout_file',
  'paths.step_stderr_file',
  'paths.step_output_file',
  'profile.name',
  'profile.resolved_at',
  'pushback.iteration',
  'pushback.previous_stdout_file',
];
const CONTEXT_FIELD_SET = new Set(CONTEXT_FIELDS);
/** `${run.started_at}` is the one short alias whose long form has another name. */
const CONTEXT_SHORT_ALIASES: Record<string, string> = { 'run.started_at': 'attempt.started_at' };

type Binding =
  | { kind: 'consts'; name: string }
  | { kind: 'params'; name: string | null }
  | { kind: 'env'; name: string }
  | { kind: 'stepOutput'; step: string; name: string }
  | { kind: 'foreach'; name: string; field: string | null }
  | { kind: 'buildPath'; ns: 'inputs' | 'outputs'; name: string }
  | { kind: 'context'; field: string | null };

function parseBinding(path: string): Binding | null {
  const seg = path.split('.');
  switch (seg[0]) {
    case 'consts':
      return seg.length === 2 && NAME.test(seg[1]) ? { kind: 'consts', name: seg[1] } : null;
    case 'params':
      if (seg.length === 1) return { kind: 'params', name: null };
      return seg.length === 2 && NAME.test(seg[1]) ? { kind: 'params', name: seg[1] } : null;
    case 'env':
      return seg.length === 2 && ENV_NAME.test(seg[1]) ? { kind: 'env', name: seg[1] } : null;
    case 'steps':
      return seg.length === 4 && seg[2] === 'outputs' && NAME.test(seg[1]) && OUTPUT_NAME.test(seg[3])
        ? { kind: 'stepOutput', step: seg[1], name: seg[3] }
        : null;
    case 'foreach':
      return (seg.length === 2 || seg.length === 3) && seg.slice(1).every((x) => NAME.test(x))
        ? { kind: 'foreach', name: seg[1], field: seg[2] ?? null }
        : null;
    case 'inputs':
    case 'outputs':
      return seg.length === 2 && NAME.test(seg[1]) ? { kind: 'buildPath', ns: seg[0], name: seg[1] } : null;
    case 'context': {
      const rest = seg.slice(1).join('.');
      if (seg.length === 3 && CONTEXT_FIELD_SET.has(rest)) return { kind: 'context', field: rest };
      // An unknown context.* field is reserved: never a JSON path, never resolved.
      return seg.length >= 2 && seg.every((s) => NAME.test(s)) ? { kind: 'context', field: null } : null;
    }
    case 'dag':
    case 'run':
    case 'attempt':
    case 'step':
    case 'trigger':
    case 'paths':
    case 'profile':
    case 'pushback': {
      if (seg.length !== 2) return null;
      const field = CONTEXT_SHORT_ALIASES[path] ?? path;
      return CONTEXT_FIELD_SET.has(field) ? { kind: 'context', field } : null;
    }
    default:
      return null;
  }
}

function bindingValue(binding: Binding, scope: ValueScope): string | undefined {
  switch (binding.kind) {
    case 'consts': {
      const consts = scope.consts;
      if (!consts || !Object.hasOwn(consts, binding.name)) return undefined;
      return formatBindingValue(consts[binding.name]);
    }
    case 'params':
      if (binding.name === null) return scope.paramsJson ? scope.paramsJson : undefined;
      return scope.params && Object.hasOwn(scope.params, binding.name)
        ? scope.params[binding.name]
        : undefined;
    case 'env':
      return lookupOwn(scope.vars, binding.name) ?? lookupOwn(scope.hostEnv, binding.name);
    case 'stepOutput': {
      const outputs = lookupOwn(scope.steps, binding.step)?.outputs;
      if (!outputs || !Object.hasOwn(outputs, binding.name)) return undefined;
      const v = outputs[binding.name];
      return v === null ? 'null' : formatGoValue(v);
    }
    case 'foreach': {
      if (!scope.foreach || !Object.hasOwn(scope.foreach, binding.name)) return undefined;
      const value = scope.foreach[binding.name];
      if (binding.field === null) return formatGoValue(value);
      // One field of an object item; anything else has no fields (the reference stays as written).
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      if (!Object.hasOwn(value, binding.field)) return undefined;
      return formatGoValue((value as Record<string, unknown>)[binding.field]);
    }
    case 'buildPath':
      return lookupOwn(scope.buildPaths?.[binding.ns], binding.name);
    case 'context':
      return binding.field === null ? undefined : lookupOwn(scope.context, binding.field);
  }
}

function formatBindingValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '<nil>';
  return JSON.stringify(v);
}

function lookupOwn<T>(record: Readonly<Record<string, T>> | undefined | null, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

function resolveBindings(text: string, scope: ValueScope, protectedRefs: Map<string, string>): string {
  if (!text.includes('${')) return text;
  let seed = text;
  let out = '';
  let last = 0;
  for (const m of text.matchAll(/\$\{([^}]+)\}/g)) {
    const token = m[0];
    const binding = parseBinding(m[1].trim());
    if (binding === null) continue;
    // An escaped binding keeps its text and loses the one backslash that escaped it.
    if (isEscapedDollar(text, m.index)) {
      out += text.slice(last, m.index - 1) + token;
      last = m.index + token.length;
      continue;
    }
    out += text.slice(last, m.index);
    last = m.index + token.length;
    const value = bindingValue(binding, scope);
    if (value !== undefined) {
      out += value;
      continue;
    }
    const placeholder = uniqueToken(seed, 'REF');
    seed += placeholder;
    protectedRefs.set(placeholder, token);
    out += placeholder;
  }
  return out + text.slice(last);
}

// --- quoted refs: "${X}" and "${X.path}" whole inside double quotes are replaced by a Go-quoted value ---

function resolveQuotedRefs(text: string, scope: ValueScope, opts: PolicyOptions): string {
  if (!text.includes('"${')) return text;
  return text.replace(/"\$\{([A-Za-z0-9_]\w*(?:\.[^}]+)?)\}"/g, (match: string, ref: string) => {
    const dot = ref.indexOf('.');
    const value =
      dot >= 0
        ? resolveReference(ref.slice(0, dot), ref.slice(dot), scope, opts)
        : lookupOwn(scope.vars, ref);
    return value === undefined ? match : goQuote(value);
  });
}

/** Go's strconv.Quote: what Dagu writes for a double-quoted reference. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += '\\x' + cp.toString(16).padStart(2, '0');
    else if (cp >= 0x80 && cp <= 0x9f) out += '\\u' + cp.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

// --- references with a path: ${VAR.a.b}, $VAR.a.b, ${id.stdout}, ${id.output.x}, ${id.exit_code} ---

const REFERENCE = /\$\{([A-Za-z0-9_]\w*)(\.[^}]+)\}|\$([A-Za-z0-9_]\w*)(\.[^\s]+)/g;

function resolveReferences(text: string, scope: ValueScope, opts: PolicyOptions): string {
  if (!text.includes('$')) return text;
  return text.replace(
    REFERENCE,
    (match: string, bName?: string, bPath?: string, uName?: string, uPath?: string) => {
      const name = bName ?? uName;
      const path = bPath ?? uPath;
      if (!name || !path) return match;
      return resolveReference(name, path, scope, opts) ?? match;
    },
  );
}

function resolveReference(
  name: string,
  path: string,
  scope: ValueScope,
  opts: PolicyOptions,
): string | undefined {
  const step = lookupOwn(scope.steps, name);
  if (step) {
    const value = resolveStepProperty(step, path);
    if (value !== undefined) return value;
  }
  const source = lookupOwn(scope.vars, name) ?? (opts.host ? lookupOwn(scope.hostEnv, name) : undefined);
  if (source === undefined) return undefined;
  return resolveJsonPath(source, path);
}

function resolveStepProperty(step: StepRefInfo, path: string): string | undefined {
  for (const prop of ['.output', '.outputs'] as const) {
    if (path.startsWith(prop + '.') || path.startsWith(prop + '[')) {
      const json = prop === '.output' ? step.output : publishedOutputsJson(step);
      if (json === null || json === undefined) return undefined;
      return resolveJsonPath(json, path.slice(prop.length));
    }
  }
  const colon = path.indexOf(':');
  const property = colon < 0 ? path : path.slice(0, colon);
  let slice: { start: number; length: number | null } | null = null;
  if (colon >= 0) {
    slice = parseSlice(path.slice(colon + 1));
    if (slice === null) return undefined;
  }
  let value: string | undefined;
  switch (property) {
    case '.stdout':
      value = step.stdout ? step.stdout : undefined;
      break;
    case '.stderr':
      value = step.stderr ? step.stderr : undefined;
      break;
    case '.exit_code':
    case '.exitCode':
      value = step.exit_code === null || step.exit_code === undefined ? '' : String(step.exit_code);
      break;
    case '.output':
      value = step.output ?? undefined;
      break;
    case '.outputs':
      value = publishedOutputsJson(step) ?? undefined;
      break;
    default:
      return undefined;
  }
  if (value === undefined || slice === null) return value;
  const chars = Array.from(value);
  if (slice.start >= chars.length) return '';
  const end = slice.length === null ? chars.length : Math.min(slice.start + slice.length, chars.length);
  return chars.slice(slice.start, end).join('');
}

/** What `${id.outputs...}` reads: declared outputs, else the values of an object output or stdout.outputs. */
function publishedOutputsJson(step: StepRefInfo): string | null {
  const outputs = step.outputs ?? step.published_outputs;
  return outputs === null || outputs === undefined ? null : stringifySortedJson(outputs);
}

function parseSlice(spec: string): { start: number; length: number | null } | null {
  const parts = spec.split(':');
  if (parts.length > 2 || !/^\d+$/.test(parts[0])) return null;
  if (parts.length === 2 && parts[1] !== '' && !/^\d+$/.test(parts[1])) return null;
  return { start: Number(parts[0]), length: parts.length === 2 && parts[1] !== '' ? Number(parts[1]) : null };
}

type PathSegment = { key: string } | { index: number };

/** Parses the jq-style path Dagu accepts after a variable name: `.a.b[0]`, `.items.[1].name`, `."k"`, `["k"]`. */
function parsePath(path: string): PathSegment[] | null {
  const segs: PathSegment[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') {
      i++;
      if (path[i] === '[') continue;
      if (path[i] === '"') {
        const end = path.indexOf('"', i + 1);
        if (end < 0) return null;
        segs.push({ key: path.slice(i + 1, end) });
        i = end + 1;
        continue;
      }
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(path.slice(i));
      if (!m) return null;
      segs.push({ key: m[0] });
      i += m[0].length;
    } else if (path[i] === '[') {
      const m = /^\[(-?\d+|"[^"]*")\]/.exec(path.slice(i));
      if (!m) return null;
      segs.push(m[1].startsWith('"') ? { key: m[1].slice(1, -1) } : { index: Number(m[1]) });
      i += m[0].length;
    } else {
      return null;
    }
  }
  return segs.length > 0 ? segs : null;
}

/**
 * Selects `path` in the JSON text `json` as Dagu does (a jq path): an object key that is missing gives null
 * (`<nil>`); indexing a string or number, or non-JSON text, gives undefined (the reference stays verbatim).
 */
export function resolveJsonPath(json: string, path: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const selected = selectJsonPath(value, path);
  return selected === undefined ? undefined : formatGoValue(selected.value);
}

/**
 * Selects the jq path `path` (`.a.b[0]`, `."k"`, `["k"]`) in a decoded JSON value: a missing key or index
 * gives null, as in jq; a path that does not parse, or indexing a scalar, gives undefined.
 */
export function selectJsonPath(value: unknown, path: string): { value: unknown } | undefined {
  const segs = parsePath(path);
  if (segs === null) return undefined;
  for (const seg of segs) {
    if (value === null) continue;
    if ('key' in seg) {
      if (typeof value !== 'object' || Array.isArray(value)) return undefined;
      const obj = value as Record<string, unknown>;
      value = Object.hasOwn(obj, seg.key) ? obj[seg.key] : null;
    } else {
      if (!Array.isArray(value)) return undefined;
      const idx = seg.index < 0 ? value.length + seg.index : seg.index;
      value = idx >= 0 && idx < value.length ? (value[idx] as unknown) : null;
    }
  }
  return { value };
}

/** A JSON value as Go's `%v` prints it: objects/arrays as compact JSON, 1000000 as 1e+06, null as <nil>. */
export function formatGoValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return formatGoFloat(value);
  return stringifySortedJson(value);
}

/** Go's `%v` of a float64: shortest round-trip digits, exponent form below 1e-4 and from 1e+06 on. */
export function formatGoFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [mantissa, expText] = x.toExponential().split('e');
  const exp = Number(expText);
  // Go's %v uses %e when the decimal exponent is below -4 or at least 6 (shortest-precision %g).
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const neg = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let out: string;
  if (exp >= 0) {
    out =
      digits.length > exp + 1
        ? `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`
        : digits.padEnd(exp + 1, '0');
  } else {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  return neg ? `-${out}` : out;
}

// --- plain variables: $VAR, ${VAR}, $1, ${1} ---

const VAR_TOKEN = /\$\{([^}]+)\}|\$([A-Za-z_][A-Za-z0-9_]*)|\$([0-9]+)/g;
const NUMERIC = /^[0-9]+$/;

function validVarToken(name: string): boolean {
  return ENV_NAME.test(name) || NUMERIC.test(name);
}

/** A positional `$1` followed by a word character (`$1abc`) is not a reference. */
function numericContinues(text: string, end: number): boolean {
  return end < text.length && /[A-Za-z0-9_]/.test(text[end]);
}

/** True when text[start, end) sits inside a single-quoted span, as Dagu tells it (no shell parsing). */
export function isSingleQuoted(text: string, start: number, end: number): boolean {
  let inQuote = false;
  for (let i = 0; i < start; i++) {
    if (text[i] !== "'" || isEscapedAt(text, i)) continue;
    if (inQuote) inQuote = false;
    else if (i === 0 || (text[i - 1] !== '$' && text[i - 1] !== '}')) inQuote = true;
  }
  if (!inQuote) return false;
  for (let i = end; i < text.length; i++) {
    if (text[i] === "'" && !isEscapedAt(text, i)) return true;
  }
  return false;
}

function isEscapedAt(text: string, index: number): boolean {
  let count = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) count++;
  return count % 2 === 1;
}

function isSafeHomeWord(value: string): boolean {
  return (value === '~' || value.startsWith('~/')) && /^[A-Za-z0-9~/._\-+=,:@]*$/.test(value);
}

/** One `$NAME`, `${...}` or `$1` token of a text, outside single quotes and not escaped. */
interface VarToken {
  match: string;
  /** The `${...}` body, or undefined for `$NAME` and `$1`. */
  braced: string | undefined;
  /** The variable name (for `${...}`, as `nameOf` reads it from the body). */
  name: string;
}

/**
 * Replaces each variable token with what `replace` returns (undefined keeps it). Tokens in single quotes,
 * escaped, with an invalid name, or a positional followed by more digits are always kept.
 */
function replaceVarTokens(
  text: string,
  nameOf: (braced: string) => string,
  replace: (token: VarToken) => string | undefined,
): string {
  if (!text.includes('$')) return text;
  return text.replace(
    VAR_TOKEN,
    (
      match: string,
      braced: string | undefined,
      plain: string | undefined,
      positional: string | undefined,
      offset: number,
    ) => {
      const end = offset + match.length;
      if (isSingleQuoted(text, offset, end) || isEscapedDollar(text, offset)) return match;
      const name = braced !== undefined ? nameOf(braced) : (plain ?? positional ?? '');
      if (!validVarToken(name)) return match;
      if (positional !== undefined && numericContinues(text, end)) return match;
      return replace({ match, braced, name }) ?? match;
    },
  );
}

function replacePlainVars(text: string, scope: ValueScope, opts: PolicyOptions): string {
  return replaceVarTokens(
    text,
    (braced) => braced,
    ({ name }) => {
      const value = lookupOwn(scope.vars, name);
      if (value === undefined) return undefined;
      if (opts.deferShellVars && !NUMERIC.test(name) && !isSafeHomeWord(value)) return undefined;
      return value;
    },
  );
}

// --- shell-expand phase: POSIX operators on defined variables, host env where the policy allows ---

function lookupShellVar(name: string, scope: ValueScope, opts: PolicyOptions): string | undefined {
  return lookupOwn(scope.vars, name) ?? (opts.host ? lookupOwn(scope.hostEnv, name) : undefined);
}

/** The variable name of a `${...}` body: what precedes the first operator character. */
function posixVarName(inner: string): string {
  if (inner.startsWith('#') && !/[:%/+\-=?]/.test(inner)) return inner.slice(1);
  const m = /[:\-+=?#%/.]/.exec(inner);
  return m ? inner.slice(0, m.index) : inner;
}

function expandShellVars(text: string, scope: ValueScope, opts: PolicyOptions): string {
  if (!text.includes('$')) return text;
  const lookup = (name: string): string | undefined => lookupShellVar(name, scope, opts);
  // Dagu: when a `${NAME:=word}` would assign (NAME set but empty), every shell-style expression of the
  // field is kept as written; plain `$NAME` and `${NAME}` still resolve.
  const keepOperators = assignsInField(text, lookup);
  return replaceVarTokens(text, posixVarName, ({ braced, name }) => {
    const value = lookup(name);
    // Undefined variables are left for whoever runs the text next, even with an operator.
    if (value === undefined) return undefined;
    if (braced === undefined || braced === name) return value;
    if (keepOperators) return undefined;
    return expandPosixOperator(braced, name, value, lookup);
  });
}

/** Whether the text has a `${NAME:=word}` (outside single quotes) whose NAME is set but empty. */
function assignsInField(text: string, lookup: (name: string) => string | undefined): boolean {
  if (!text.includes(':=')) return false;
  for (const m of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*):=/g)) {
    const at = m.index ?? 0;
    if (isSingleQuoted(text, at, at + m[0].length) || isEscapedDollar(text, at)) continue;
    if (lookup(m[1]) === '') return true;
  }
  return false;
}

/**
 * Applies the operator of `${inner}` to a defined variable. Returns undefined for syntax it does not know
 * (the text is then kept verbatim, as Dagu keeps a malformed expression).
 */
function expandPosixOperator(
  inner: string,
  name: string,
  value: string,
  lookup: (name: string) => string | undefined,
): string | undefined {
  if (inner === `#${name}`) return String(Array.from(value).length);
  const op = inner.slice(name.length);
  const word = (w: string): string => expandWord(w, lookup);
  let m: RegExpExecArray | null;
  if ((m = /^(:?)([-=+?])([\s\S]*)$/.exec(op))) {
    const [, colon, kind, w] = m;
    const set = colon === ':' ? value !== '' : true;
    switch (kind) {
      case '-':
        return set ? value : word(w);
      case '=':
        // An assignment is never made: a set value is used, an empty one (with `:`) keeps the expression.
        return set ? value : undefined;
      case '+':
        return set ? word(w) : '';
      default:
        return set ? value : undefined;
    }
  }
  if ((m = /^:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?$/.exec(op))) {
    const chars = Array.from(value);
    let start = Number(m[1]);
    if (start < 0) start = Math.max(0, chars.length + start);
    if (start > chars.length) return '';
    if (m[2] === undefined) return chars.slice(start).join('');
    const len = Number(m[2]);
    const endIdx = len < 0 ? chars.length + len : start + len;
    if (endIdx < start) return undefined;
    return chars.slice(start, endIdx).join('');
  }
  if ((m = /^(##?|%%?)([\s\S]*)$/.exec(op))) {
    const pattern = globToRegexSource(word(m[2]));
    if (pattern === null) return undefined;
    const longest = m[1].length === 2;
    if (m[1][0] === '#') {
      return trimMatch(
        value,
        (len) => new RegExp(`^(?:${pattern})$`, 's').test(value.slice(0, len)),
        longest,
        'prefix',
      );
    }
    return trimMatch(
      value,
      (len) => new RegExp(`^(?:${pattern})$`, 's').test(value.slice(value.length - len)),
      longest,
      'suffix',
    );
  }
  if ((m = /^\/(\/|#|%)?([^/]*)(?:\/([\s\S]*))?$/.exec(op))) {
    const mode = m[1] ?? '';
    const pattern = globToRegexSource(word(m[2]));
    if (pattern === null || m[2] === '') return mode === '' || mode === '/' ? value : undefined;
    const replacement = word(m[3] ?? '');
    const anchored = mode === '#' ? `^(?:${pattern})` : mode === '%' ? `(?:${pattern})$` : `(?:${pattern})`;
    const re = new RegExp(anchored, mode === '/' ? 'gs' : 's');
    return value.replace(re, () => replacement);
  }
  return undefined;
}

function trimMatch(
  value: string,
  matches: (len: number) => boolean,
  longest: boolean,
  side: 'prefix' | 'suffix',
): string {
  const lengths = Array.from({ length: value.length + 1 }, (_, i) => i);
  if (longest) lengths.reverse();
  for (const len of lengths) {
    if (matches(len)) return side === 'prefix' ? value.slice(len) : value.slice(0, value.length - len);
  }
  return value;
}

/** Expands `$VAR`/`${VAR}` inside an operator word; unset variables become empty as in a shell. */
function expandWord(word: string, lookup: (name: string) => string | undefined): string {
  return word.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, a?: string, b?: string) => {
      return lookup((a ?? b) as string) ?? '';
    },
  );
}

/** A shell glob as a regular-expression source, or null when it cannot be read. */
function globToRegexSource(glob: string): string | null {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '\\' && i + 1 < glob.length) out += escapeRegex(glob[++i]);
    else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = close;
    } else out += escapeRegex(c);
  }
  return out;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

// --- command substitution (eval policy only) ---

async function substituteBackticks(
  text: string,
  state: PhaseState,
  run: CommandSubstituter,
): Promise<string> {
  if (!text.includes('`')) return text;
  let out = '';
  let cmd = '';
  let inCommand = false;
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\' && chars[i + 1] === '`') {
      if (inCommand) cmd += '\\`';
      else out += '\\`';
      i++;
      continue;
    }
    if (c === '`') {
      if (inCommand) {
        out += cmd === '' ? '``' : await runSubstitution(cmd, state, run);
        cmd = '';
        inCommand = false;
      } else inCommand = true;
    } else if (inCommand) cmd += c;
    else out += c;
  }
  if (inCommand) out += '`' + cmd;
  return out;
}

async function substituteDollarParens(
  text: string,
  state: PhaseState,
  run: CommandSubstituter,
): Promise<string> {
  if (!text.includes('$(')) return text;
  let out = '';
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== '$' || chars[i + 1] !== '(') {
      out += chars[i];
      continue;
    }
    let cmd = '';
    let end = -1;
    let escaped = false;
    for (let j = i + 2; j < chars.length; j++) {
      const c = chars[j];
      if (escaped) {
        cmd += c;
        escaped = false;
        continue;
      }
      if (c === '\\') {
        cmd += c;
        escaped = true;
        continue;
      }
      if (c === '`' || (c === '$' && chars[j + 1] === '(')) {
        throw new ValueResolutionError(text, 'nested command substitution is not supported');
      }
      if (c === ')') {
        end = j;
        break;
      }
      cmd += c;
    }
    if (end < 0) {
      out += '$(';
      i++;
      continue;
    }
    out += await runSubstitution(cmd, state, run);
    i = end;
  }
  return out;
}

async function runSubstitution(cmd: string, state: PhaseState, run: CommandSubstituter): Promise<string> {
  let command = state.dollarToken === null ? cmd : cmd.split(state.dollarToken).join('$');
  // An unresolved `${ns.x}` reaches the command as written, as it does every other field.
  for (const [placeholder, token] of state.protectedRefs) command = command.split(placeholder).join(token);
  try {
    return (await run(command)).trim();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ValueResolutionError(command, `failed to execute command "${command}": ${reason}`);
  }
}

// --- parallel items ---

/**
 * Splits a resolved `parallel` string into item texts as Dagu does: a JSON array (strings as they are, other
 * values as compact JSON, null as "null"), a JSON object (one item), else lines, else double-quoted words, else
 * the most frequent of tab, `|`, `;`, `,`, else whitespace. Items are trimmed; empty ones dropped.
 */
export function splitParallelItems(text: string): string[] {
  const s = text.trim();
  if (s === '') return [];
  const json = parseJsonOrUndefined(s);
  if (json !== undefined && (s.startsWith('[') || s.startsWith('{'))) {
    if (!Array.isArray(json)) return [s];
    return json.map((item: unknown) =>
      typeof item === 'string' ? item : item === null ? 'null' : stringifySortedJson(item),
    );
  }
  if (s.includes('\n') || s.includes('\r')) return splitTrimmed(s, /[\r\n]+/);
  const count = (c: string): number => s.split(c).length - 1;
  if (count('"') >= 2 && (s.startsWith('"') || s.endsWith('"') || s.includes('" ') || s.includes(' "'))) {
    return splitQuotedWords(s);
  }
  let best: string | null = null;
  let max = 0;
  for (const sep of ['\t', '|', ';', ',']) {
    const n = count(sep);
    if (n > max) {
      max = n;
      best = sep;
    }
  }
  if (best !== null) return splitTrimmed(s, best);
  if (json !== undefined) return [s];
  return s.split(/\s+/).filter((w) => w !== '');
}

function parseJsonOrUndefined(s: string): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return undefined;
  }
}

function splitTrimmed(s: string, sep: string | RegExp): string[] {
  return s
    .split(sep)
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

function splitQuotedWords(s: string): string[] {
  const out: string[] = [];
  let current = '';
  let inQuotes = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"') {
      if (inQuotes) {
        out.push(current);
        current = '';
      }
      inQuotes = !inQuotes;
    } else if (inQuotes) current += c;
    else if (!/\s/.test(c)) {
      let word = '';
      while (i < s.length && !/\s/.test(s[i]) && s[i] !== '"') word += s[i++];
      if (word !== '') out.push(word);
      i--;
    }
  }
  if (current !== '') out.push(current);
  return out;
}

/** Compact JSON with object keys sorted and `<`, `>`, `&` escaped, as Go's encoding/json writes a value. */
export function stringifySortedJson(value: unknown): string {
  const json = JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
  return json.replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
