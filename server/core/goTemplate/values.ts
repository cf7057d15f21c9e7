// How this Go text/template engine models Go values in JavaScript, and how it prints, tests and compares them
// the way Go's fmt and text/template do.
//
// - string, boolean, null (a nil interface), arrays ([]interface{}), plain objects (map[string]interface{}).
// - A JavaScript number is an int when it is a whole number and a float64 otherwise; a float64 with a whole
//   value (a `3.0` literal, a `floor` result, a number decoded by `fromJson`) is a {@link GoFloat}, so that it
//   prints as Go prints a float64 (`1e+06`, not `1000000`).
// - A list a Go function returns as `[]string` or `[]int` is tagged, for `typeOf`.

import { formatGoFloat, goQuote } from '../dag/values';

/** A float64 whose value is a whole number (other float64 values are plain non-integer numbers). */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A float64 value: a GoFloat when whole, a plain number otherwise. */
export function goFloat(x: number): number | GoFloat {
  return Number.isInteger(x) || !Number.isFinite(x) ? new GoFloat(x) : x;
}

const STRING_SLICES = new WeakSet<object>();
const INT_SLICES = new WeakSet<object>();

/** Marks an array as Go's `[]string`. */
export function stringSlice(items: string[]): string[] {
  STRING_SLICES.add(items);
  return items;
}

/** Marks an array as Go's `[]int`. */
export function intSlice(items: number[]): number[] {
  INT_SLICES.add(items);
  return items;
}

export type GoMap = Record<string, unknown>;

export function isMap(v: unknown): v is GoMap {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof GoFloat);
}

export function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

export function isFloat(v: unknown): boolean {
  return v instanceof GoFloat || (typeof v === 'number' && !Number.isInteger(v));
}

/** The numeric value of an int or float64. */
export function numberOf(v: unknown): number {
  return v instanceof GoFloat ? v.value : (v as number);
}

/** Go's `%T` of a value. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (isInt(v)) return 'int';
  if (isFloat(v)) return 'float64';
  if (Array.isArray(v)) {
    if (STRING_SLICES.has(v)) return '[]string';
    if (INT_SLICES.has(v)) return '[]int';
    return '[]interface {}';
  }
  return 'map[string]interface {}';
}

/** reflect.Kind of a value, as `kindOf` names it. */
export function goKindName(v: unknown): string {
  if (v === null || v === undefined) return 'invalid';
  if (Array.isArray(v)) return 'slice';
  if (isMap(v)) return 'map';
  return goTypeName(v);
}

/** Sorted keys of a map, as Go's fmt and range visit them. */
export function sortedKeys(m: GoMap): string[] {
  return Object.keys(m).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's `%v` of a value (fmt.Sprint of one operand). */
export function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatGoFloat(v);
  if (v instanceof GoFloat) return formatGoFloat(v.value);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(' ')}]`;
  if (isMap(v))
    return `map[${sortedKeys(v)
      .map((k) => `${k}:${formatValue(v[k])}`)
      .join(' ')}]`;
  return String(v);
}

/** fmt.Sprint: operands printed with %v, a space between two operands when neither is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    if (i > 0 && typeof args[i] !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(args[i]);
  }
  return out;
}

/** fmt.Sprintln: operands printed with %v, spaces between all, a line break at the end. */
export function sprintln(args: unknown[]): string {
  return `${args.map(formatValue).join(' ')}\n`;
}

/** Go's strconv.Quote. */
export function quoteGo(s: string): string {
  return goQuote(s);
}

/** text/template's truth: false, 0, nil, an empty string, list or map are false. */
export function isTrue(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof GoFloat) return v.value !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** reflect.DeepEqual over the values this engine models (an int never equals a float64). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined)
    return (a ?? null) === null && (b ?? null) === null;
  if (goTypeName(a) !== goTypeName(b)) return false;
  if (isFloat(a)) return numberOf(a) === numberOf(b);
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  if (isMap(a)) {
    const bm = b as GoMap;
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(bm).length && ka.every((k) => Object.hasOwn(bm, k) && deepEqual(a[k], bm[k]))
    );
  }
  return a === b;
}

/** The UTF-8 byte length of a string (Go's len of a string). */
export function byteLength(s: string): number {
  return new TextEncoder().encode(s).length;
}

/** s[start:end] in UTF-8 bytes, as Go slices a string; throws Go's panic text when out of range. */
export function byteSlice(s: string, start: number, end?: number): string {
  const bytes = new TextEncoder().encode(s);
  const e = end ?? bytes.length;
  if (start < 0 || e > bytes.length || start > e) {
    throw new Error(
      e > bytes.length
        ? `runtime error: slice bounds out of range [:${e}] with length ${bytes.length}`
        : `runtime error: slice bounds out of range [${start}:${e}]`,
    );
  }
  return new TextDecoder().decode(bytes.subarray(start, e));
}
