// The functions text/template itself defines (and, or, not, len, index, print, printf, println, html, js,
// urlquery, eq, ne, lt, le, gt, ge, call), with Go's comparison rules and error texts. `slice` is not here:
// Dagu's function map replaces it with slim-sprig's.

import { ArgTypeError, type GoFunction, type ParamType } from './exec';
import { sprintf } from './printf';
import {
  byteLength,
  formatValue,
  goTypeName,
  isFloat,
  isInt,
  isMap,
  isTrue,
  numberOf,
  sprint,
  sprintln,
} from './values';

/**
 * A function from its Go signature, one letter per parameter (`s` string, `i` int, `b` bool, `f` float64,
 * `m` map[string]interface{}, `a` interface{}), a trailing `*` making the last one variadic: `msa`, `sa*`.
 */
export function fn(sig: string, call: (args: unknown[]) => unknown): GoFunction {
  const variadic = sig.endsWith('*');
  const params = [...(variadic ? sig.slice(0, -1) : sig)] as ParamType[];
  const fixed = variadic ? params.length - 1 : params.length;
  return { min: fixed, max: variadic ? Infinity : fixed, params, call };
}

/** A string parameter. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) throw new ArgTypeError('invalid value; expected string');
  throw new ArgTypeError(`wrong type for value; expected string; got ${goTypeName(v)}`);
}

/** An int parameter. */
export function int(v: unknown): number {
  if (isInt(v)) return v;
  if (v === null || v === undefined) throw new ArgTypeError('invalid value; expected int');
  throw new ArgTypeError(`wrong type for value; expected int; got ${goTypeName(v)}`);
}

/** A bool parameter. */
export function bool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null || v === undefined) throw new ArgTypeError('invalid value; expected bool');
  throw new ArgTypeError(`wrong type for value; expected bool; got ${goTypeName(v)}`);
}

/** A map[string]interface{} parameter. */
export function dictArg(v: unknown): Record<string, unknown> {
  if (isMap(v)) return v;
  if (v === null || v === undefined)
    throw new ArgTypeError('invalid value; expected map[string]interface {}');
  throw new ArgTypeError(`wrong type for value; expected map[string]interface {}; got ${goTypeName(v)}`);
}

type BasicKind = 'bool' | 'int' | 'float' | 'string' | 'invalid';

function basicKind(v: unknown): { kind: BasicKind; ok: boolean } {
  if (typeof v === 'boolean') return { kind: 'bool', ok: true };
  if (isInt(v)) return { kind: 'int', ok: true };
  if (isFloat(v)) return { kind: 'float', ok: true };
  if (typeof v === 'string') return { kind: 'string', ok: true };
  return { kind: 'invalid', ok: false };
}

function eq(args: unknown[]): boolean {
  const [a, ...rest] = args;
  if (rest.length === 0) throw new Error('missing argument for comparison');
  const k1 = basicKind(a).kind;
  for (const b of rest) {
    const k2 = basicKind(b).kind;
    const aNil = a === null || a === undefined;
    const bNil = b === null || b === undefined;
    if (k1 !== k2) {
      if (!aNil && !bNil) throw new Error('incompatible types for comparison');
      continue;
    }
    if (k1 === 'invalid') {
      if (aNil || bNil) {
        if (aNil === bNil) return true;
        continue;
      }
      if (goTypeName(a) !== goTypeName(b))
        throw new Error(
          `non-comparable types ${formatValue(a)}: ${goTypeName(a)}, ${goTypeName(b)}: ${formatValue(b)}`,
        );
      throw new Error(`non-comparable type ${formatValue(b)}: ${goTypeName(b)}`);
    }
    if (k1 === 'float' ? numberOf(a) === numberOf(b) : a === b) return true;
  }
  return false;
}

function lt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (!k1.ok || !k2.ok) throw new Error('invalid type for comparison');
  if (k1.kind !== k2.kind) throw new Error('incompatible types for comparison');
  if (k1.kind === 'bool') throw new Error('invalid type for comparison');
  if (k1.kind === 'string') return (a as string) < (b as string);
  return numberOf(a) < numberOf(b);
}

function length(v: unknown): number {
  if (typeof v === 'string') return byteLength(v);
  if (Array.isArray(v)) return v.length;
  if (isMap(v)) return Object.keys(v).length;
  if (v === null || v === undefined) throw new Error('len of nil pointer');
  throw new Error(`len of type ${goTypeName(v)}`);
}

function index(args: unknown[]): unknown {
  let item = args[0];
  if (item === null || item === undefined) throw new Error('index of untyped nil');
  for (const ix of args.slice(1)) {
    if (item === null || item === undefined) throw new Error('index of nil pointer');
    if (Array.isArray(item) || typeof item === 'string') {
      if (ix === null || ix === undefined) throw new Error('cannot index slice/array with nil');
      if (!isInt(ix)) throw new Error(`cannot index slice/array with type ${goTypeName(ix)}`);
      const bytes = typeof item === 'string' ? new TextEncoder().encode(item) : null;
      const len = bytes ? bytes.length : (item as unknown[]).length;
      if (ix < 0 || ix >= len) throw new Error(`index out of range: ${ix}`);
      item = bytes ? bytes[ix] : (item as unknown[])[ix];
    } else if (isMap(item)) {
      if (typeof ix !== 'string') throw new Error(`value has type ${goTypeName(ix)}; should be string`);
      item = Object.hasOwn(item, ix) ? item[ix] : null;
    } else {
      throw new Error(`can't index item of type ${goTypeName(item)}`);
    }
  }
  return item ?? null;
}

/** The text of html/js/urlquery's operands: a lone string as is, else fmt.Sprint with nil as `<no value>`. */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === null || a === undefined ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(/[<>&'"\0]/g, (c) =>
    c === '<'
      ? '&lt;'
      : c === '>'
        ? '&gt;'
        : c === '&'
          ? '&amp;'
          : c === "'"
            ? '&#39;'
            : c === '"'
              ? '&#34;'
              : '\uFFFD',
  );
}

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    switch (ch) {
      case '\\':
        out += '\\\\';
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case '<':
        out += '\\u003C';
        continue;
      case '>':
        out += '\\u003E';
        continue;
      case '&':
        out += '\\u0026';
        continue;
      case '=':
        out += '\\u003D';
        continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp === 0x2028 || cp === 0x2029)
      out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    else out += ch;
  }
  return out;
}

/** Go's url.QueryEscape. */
export function queryEscape(s: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export const BUILTINS: Record<string, GoFunction> = {
  and: fn('aa*', () => null),
  or: fn('aa*', () => null),
  not: fn('a', ([v]) => !isTrue(v)),
  len: fn('a', ([v]) => length(v)),
  index: fn('aa*', index),
  print: fn('a*', (a) => sprint(a)),
  printf: fn('sa*', ([f, ...rest]) => sprintf(str(f), rest)),
  println: fn('a*', (a) => sprintln(a)),
  html: fn('a*', (a) => htmlEscape(evalArgs(a))),
  js: fn('a*', (a) => jsEscape(evalArgs(a))),
  urlquery: fn('a*', (a) => queryEscape(evalArgs(a))),
  eq: fn('aa*', eq),
  ne: fn('aa', ([a, b]) => !eq([a, b])),
  lt: fn('aa', ([a, b]) => lt(a, b)),
  le: fn('aa', ([a, b]) => lt(a, b) || eq([a, b])),
  gt: fn('aa', ([a, b]) => !(lt(a, b) || eq([a, b]))),
  ge: fn('aa', ([a, b]) => !lt(a, b)),
  call: fn('aa*', ([f]) => {
    if (f === null || f === undefined) throw new Error('call of nil');
    throw new Error(`non-function of type ${goTypeName(f)}`);
  }),
};
