// Run parameters: the DAG's defaults merged with command-line overrides. Values are data, never shell text:
// nothing here (or anywhere in dagu) expands `$VAR`, `$(...)`, backticks or globs in a parameter.

import { resolveSchemaRunParams } from './paramSchema';
import type { ParamRichSpec, ParamSchemaSpec, ParamSpec } from './types';

/** Names of named parameters (they become environment variables of the steps). */
export const PARAM_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type SplitParamsResult = { ok: true; words: string[] } | { ok: false; error: string };

/**
 * Reads one parameter word: `KEY=value` (KEY a valid name) is named, anything else is positional. The same rule
 * reads the DAG's string form, the command line and RunStatus.params, so a stored list reads back the same.
 */
export function parseParamWord(word: string): ParamSpec {
  const eq = word.indexOf('=');
  const name = word.slice(0, eq);
  if (eq > 0 && (PARAM_NAME_PATTERN.test(name) || isPositionalName(name))) {
    return { name, value: word.slice(eq + 1) };
  }
  return { name: null, value: word };
}

/**
 * Dagu's name of a positional parameter: its 1-based place (`1`, `2`, ...), read as `$1` / `${1}`. A word
 * `2=x` sets the second one, as in Dagu.
 */
export function isPositionalName(name: string | null): name is string {
  return name !== null && /^[0-9]+$/.test(name);
}

/** A parameter as one word of the stored list. */
export function formatParam(p: ParamSpec): string {
  return p.name === null ? p.value : `${p.name}=${p.value}`;
}

/**
 * Splits the DAG's string form of params into words the way a POSIX shell splits words, without any
 * expansion: whitespace separates, '...' is literal, "..." allows \" \\ \$ \` escapes, a backslash outside
 * quotes keeps the next character.
 */
export function splitParamString(s: string): SplitParamsResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return { ok: false, error: `unterminated single quote at position ${i + 1}` };
      word += s.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < s.length && s[j] !== '"'; j++) {
        if (s[j] === '\\' && j + 1 < s.length && '"\\$`'.includes(s[j + 1])) j++;
        word += s[j];
      }
      if (j >= s.length) return { ok: false, error: `unterminated double quote at position ${i + 1}` };
      inWord = true;
      i = j;
    } else if (c === '\\') {
      // A backslash before a line break joins the lines, as in a shell.
      if (i + 1 < s.length && s[i + 1] !== '\n') word += s[i + 1];
      else if (i + 1 === s.length) word += '\\';
      i++;
      inWord = inWord || word !== '';
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return { ok: true, words };
}

// ---------------------------------------------------------------------------------------------------------
// Dagu 2.x's rules for a caller's params (research note §2.1): how `--params` text and argv words read, how
// they are laid over the DAG's declared params, and the checks of a rich definition.

export type ParamsResult<T> = ({ ok: true } & T) | { ok: false; error: string };

/**
 * Reads param text the way Dagu reads the string form and `--params`: a JSON object (named, keys sorted) or
 * array (strings and scalars positional, objects named), else tokens, each an optional `name=` followed by a
 * double-quoted string (unquoted like a JSON/Go string), a backtick-quoted string (kept with its backticks)
 * or a run of non-blank characters. Single quotes are ordinary characters here, as in Dagu.
 */
export function parseParamString(text: string): ParamSpec[] {
  const input = text.trim();
  const json = parseJsonParams(input);
  if (json) return json;
  const out: ParamSpec[] = [];
  for (const m of input.matchAll(/(?:([^\s=]+)=)?("(?:\\"|[^"])*"|`[^`]*`|[^"\s]+)/g)) {
    let value = m[2];
    if (value.startsWith('"')) value = unquoteDouble(value);
    out.push({ name: m[1] ?? null, value });
  }
  return out;
}

/**
 * Reads the params a caller gave as words (after `--` on the command line, or the API's list): a single
 * JSON object or array is read as JSON; otherwise each word is one param, `NAME=value` or a value.
 */
export function parseParamArgs(words: readonly string[]): ParamSpec[] {
  if (words.length === 1) {
    const json = parseJsonParams(words[0].trim());
    if (json) return json;
  }
  return words.map(parseParamWord);
}

/**
 * The caller's params text when it is one JSON object or array (trimmed), else null. Dagu then hands that text
 * on as DAG_PARAMS_JSON and `${params}` unchanged, instead of writing the resolved params as JSON
 * (upstream internal/spec/dag.go:buildResolvedParamsJSON, detectJSONParams): numbers stay numbers, the keys
 * keep their order and declared params the caller left out are not in it.
 */
export function rawJsonParams(text: string): string | null {
  const input = text.trim();
  return parseJsonParams(input) !== null ? input : null;
}

function parseJsonParams(input: string): ParamSpec[] | null {
  const object = input.startsWith('{') && input.endsWith('}');
  if (!object && !(input.startsWith('[') && input.endsWith(']'))) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return null;
  }
  const fromObject = (o: Record<string, unknown>): ParamSpec[] =>
    Object.keys(o)
      .sort()
      .map((name) => ({ name, value: jsonParamText(o[name]) }));
  if (Array.isArray(parsed)) {
    return parsed.flatMap((item: unknown) =>
      item !== null && typeof item === 'object' && !Array.isArray(item)
        ? fromObject(item as Record<string, unknown>)
        : [{ name: null, value: jsonParamText(item) }],
    );
  }
  return parsed !== null && typeof parsed === 'object' ? fromObject(parsed as Record<string, unknown>) : null;
}

/** A JSON value as param text: a string as it is, anything else as its JSON text. */
function jsonParamText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

/** A double-quoted token's text: JSON string rules (close to Go's), else the quotes dropped and \" unescaped. */
function unquoteDouble(token: string): string {
  try {
    const v: unknown = JSON.parse(token);
    if (typeof v === 'string') return v;
  } catch {
    // fall through
  }
  return token
    .replace(/^"+|"+$/g, '')
    .split('\\"')
    .join('"');
}

/** One declared param (or an extra one the caller added) after the caller's values are laid over. */
export interface LaidParam {
  /** Null for a positional param. */
  name: string | null;
  value: string;
  /** False for a definition without a default that the caller did not give (it is absent from the run). */
  has_value: boolean;
  /** The caller gave this value (an `eval` then does not run). */
  supplied: boolean;
  /** The rich definition, when the DAG declares one. */
  rich: ParamRichSpec | null;
}

/** Whether a declared param has a value before any caller or `eval`: plain ones always, rich ones by default. */
function declaredHasValue(p: ParamSpec): boolean {
  return p.rich === undefined || p.rich.has_default;
}

/**
 * Lays a caller's params over a DAG's declared ones, Dagu's way. If the DAG declares any named param, a name
 * it does not declare is refused; more positional values than declared entries are refused; a named value
 * replaces its namesake, an unknown one is added. Positional values then follow Dagu's two paths
 * (spec/dparams_runtime.go):
 * - when the DAG has a rich definition (`- name: X` with more keys), they fill the declared entries in order,
 *   named ones included (applyOverridePairsTracked);
 * - otherwise every value is named by its place: the caller's k-th word is `k`, the DAG's i-th entry is `i`
 *   (parseParams, runtimePairsFromEntries), so a positional value replaces only a positional default at the
 *   same place and is otherwise added (`params: "REGION=emea"` with `-- apac` keeps REGION and sets `$1`).
 * Every positional param comes out named by its place among the params with a value, as Dagu stores them.
 */
export function layParams(
  declared: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
): ParamsResult<{ params: LaidParam[] }> {
  const names = new Set(
    declared.flatMap((p) => (p.name === null || isPositionalName(p.name) ? [] : [p.name])),
  );
  if (names.size > 0) {
    const unknown = [
      ...new Set(
        overrides.flatMap((p) =>
          p.name !== null && !isPositionalName(p.name) && !names.has(p.name) ? [p.name] : [],
        ),
      ),
    ].sort();
    if (unknown.length > 0) {
      return {
        ok: false,
        error:
          `unknown parameter(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}; ` +
          `accepted parameters are: ${[...names].sort().join(', ')}`,
      };
    }
  }
  const positionalCount = overrides.filter((p) => p.name === null).length;
  if (declared.length > 0 && positionalCount > declared.length) {
    return {
      ok: false,
      error: `too many positional params: expected at most ${declared.length}, got ${positionalCount}`,
    };
  }
  const params: LaidParam[] = declared.map((p) => ({
    name: p.name,
    value: p.value,
    has_value: declaredHasValue(p),
    supplied: false,
    rich: p.rich ?? null,
  }));
  const byPlace = declared.some((p) => p.rich !== undefined) ? null : placeNames(params);
  let position = 0;
  overrides.forEach((o, k) => {
    const supplied = { value: o.value, has_value: true, supplied: true };
    if (o.name === null && byPlace === null && declared.length > 0) {
      Object.assign(params[position++], supplied);
      return;
    }
    const name = o.name ?? (byPlace === null ? null : String(k + 1));
    const same =
      name === null ? undefined : params.find((p, i) => p.name === name || byPlace?.get(i) === name);
    if (same) Object.assign(same, supplied);
    else params.push({ name, rich: null, ...supplied });
  });
  return { ok: true, params: namePositionals(params) };
}

/** Each positional entry's Dagu name: its place among the entries with a value. */
function placeNames(params: readonly LaidParam[]): Map<number, string> {
  const out = new Map<number, string>();
  let place = 0;
  params.forEach((p, i) => {
    if (!p.has_value) return;
    place++;
    if (p.name === null) out.set(i, String(place));
  });
  return out;
}

/** Names every positional param with a value by its place (Dagu's runtimePairsFromEntries). */
function namePositionals(params: LaidParam[]): LaidParam[] {
  for (const [i, name] of placeNames(params)) params[i].name = name;
  return params;
}

/** The list a run record stores: every param that has a value, `NAME=value` or the bare positional value. */
export function paramList(params: readonly LaidParam[]): string[] {
  return params.flatMap((p) => (p.has_value ? [formatParam({ name: p.name, value: p.value })] : []));
}

/**
 * A new run's params (what its record holds from creation): the caller's values laid over the declared
 * ones, checked against rich definitions. A definition with `eval` the caller did not give is left out: the
 * run process evaluates it when it starts (see {@link pendingEval}). With the DAG's `schema`, Dagu's rules for
 * schema-backed params apply instead (core/paramSchema.ts).
 */
export function resolveRunParams(
  declared: readonly ParamSpec[],
  overrides: readonly ParamSpec[],
  schema?: ParamSchemaSpec,
): ParamsResult<{ list: string[] }> {
  // A schema-backed DAG (DagSpec.param_schema): names only, typed by the schema, checked when the run starts.
  if (schema) return resolveSchemaRunParams(schema, declared, overrides);
  const laid = layParams(declared, overrides);
  if (!laid.ok) return laid;
  const params = laid.params.map((p) => (pendingEval(p) ? { ...p, has_value: false } : p));
  const error = checkParams(params, { evalPending: true });
  return error === null ? { ok: true, list: paramList(params) } : { ok: false, error };
}

/** The declared params with nothing laid over them (a scheduled run); never refused. */
export function defaultParamList(declared: readonly ParamSpec[]): string[] {
  const laid = layParams(declared, []);
  return laid.ok ? paramList(laid.params.map((p) => (pendingEval(p) ? { ...p, has_value: false } : p))) : [];
}

/** True for a definition whose value comes from its `eval` when the run starts. */
export function pendingEval(p: LaidParam): boolean {
  return !p.supplied && p.rich !== null && p.rich.eval !== null && p.rich.eval.trim() !== '';
}

/**
 * Reads a stored list back against the declared params: named words fill their namesake, bare values the
 * declared positional entries in order; words the DAG does not declare follow. A declared value the list
 * lacks (a record made without the defaults) is the default again; a definition with `eval` stays without a
 * value. Nothing is refused: the list was checked when the run was created.
 */
export function readParamList(declared: readonly ParamSpec[], list: readonly string[]): LaidParam[] {
  const params: LaidParam[] = declared.map((p) => ({
    name: p.name,
    value: p.value,
    has_value: declaredHasValue(p) && !(p.rich?.eval ?? '').trim(),
    supplied: false,
    rich: p.rich ?? null,
  }));
  const places = new Map([...placeNames(params)].map(([i, name]) => [name, i]));
  const slots = params.filter((p) => p.name === null);
  let position = 0;
  for (const word of list) {
    const w = parseParamWord(word);
    const place = w.name === null ? undefined : places.get(w.name);
    const target =
      w.name === null
        ? slots[position++]
        : place !== undefined
          ? params[place]
          : params.find((p) => p.name === w.name);
    const value = { value: w.value, has_value: true, supplied: true };
    if (target) Object.assign(target, value);
    else params.push({ name: w.name, rich: null, ...value });
  }
  return namePositionals(params);
}

/**
 * Checks every rich definition's value (`type`, `enum`, bounds, lengths, `pattern`, `required`); the first
 * problem as a message naming the param, or null. With `evalPending`, a definition still waiting for its
 * `eval` is not yet missing.
 */
export function checkParams(
  params: readonly LaidParam[],
  opts: { evalPending?: boolean } = {},
): string | null {
  for (const p of params) {
    if (p.rich === null || p.name === null) continue;
    if (!p.has_value) {
      if (p.rich.required && !(opts.evalPending && pendingEval(p))) {
        return `parameter ${JSON.stringify(p.name)} is required`;
      }
      continue;
    }
    const problem = checkParamValue(p.name, p.rich, p.value);
    if (problem !== null) return problem;
  }
  return null;
}

/** One rich definition's checks on `value`; a message naming the param, or null when it passes. */
export function checkParamValue(name: string, rich: ParamRichSpec, value: string): string | null {
  const label = `parameter ${JSON.stringify(name)}`;
  const got = JSON.stringify(value);
  let number: number | null = null;
  if (rich.type === 'integer') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) return `${label} must be an integer, got ${got}`;
    number = Number(value.trim());
  } else if (rich.type === 'number') {
    number = value.trim() === '' ? NaN : Number(value.trim());
    if (!Number.isFinite(number)) return `${label} must be a number, got ${got}`;
  } else if (rich.type === 'boolean' && !/^(true|false)$/i.test(value)) {
    return `${label} must be true or false, got ${got}`;
  }
  if (rich.enum !== null && rich.enum.length > 0) {
    const same = (e: string) =>
      number !== null
        ? Number(e) === number
        : rich.type === 'boolean'
          ? e.toLowerCase() === value.toLowerCase()
          : e === value;
    if (!rich.enum.some(same)) return `${label} must be one of ${rich.enum.join(', ')}, got ${got}`;
  }
  if (number !== null && rich.minimum !== null && number < rich.minimum) {
    return `${label} must be at least ${rich.minimum}, got ${got}`;
  }
  if (number !== null && rich.maximum !== null && number > rich.maximum) {
    return `${label} must be at most ${rich.maximum}, got ${got}`;
  }
  const length = [...value].length;
  if (rich.min_length !== null && length < rich.min_length) {
    return `${label} must be at least ${rich.min_length} characters long, got ${got}`;
  }
  if (rich.max_length !== null && length > rich.max_length) {
    return `${label} must be at most ${rich.max_length} characters long, got ${got}`;
  }
  if (rich.pattern !== null && !patternMatches(rich.pattern, value)) {
    return `${label} must match the pattern ${rich.pattern}, got ${got}`;
  }
  return null;
}

function patternMatches(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    // The loader refuses a bad pattern; one that slipped through matches nothing rather than everything.
    return false;
  }
}
