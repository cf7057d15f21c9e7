// Dagu's template function map: slim-sprig's hermetic text functions less the ones Dagu blocks (environment,
// network, clock, randomness), with Dagu's own `split`, `join`, `count`, `add`, `empty`, `upper`, `lower`,
// `trim` and `default` in their place. A function that takes the piped value takes it as its last argument.

import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { goTrimSpace } from '../goTrimSpace';
import { bool, dictArg, fn, int, str } from './builtins';
import type { GoFunction } from './exec';
import {
  compileGoRegexp,
  findAll,
  mustCompile,
  quoteMeta,
  replaceAll,
  split as regexSplit,
} from './goRegexp';
import {
  byteLength,
  byteSlice,
  deepEqual,
  formatValue,
  goFloat,
  GoFloat,
  goKindName,
  goTypeName,
  intSlice,
  isFloat,
  isInt,
  isMap,
  numberOf,
  quoteGo,
  sortedKeys,
  stringSlice,
  type GoMap,
} from './values';

/** Names slim-sprig has that Dagu removes: a template using one fails to parse ("function ... not defined"). */
export const BLOCKED_FUNCTIONS: readonly string[] = [
  'env',
  'expandenv',
  'getHostByName',
  'now',
  'date',
  'dateInZone',
  'date_in_zone',
  'dateModify',
  'date_modify',
  'mustDateModify',
  'must_date_modify',
  'ago',
  'duration',
  'durationRound',
  'unixEpoch',
  'toDate',
  'mustToDate',
  'htmlDate',
  'htmlDateInZone',
  'genPrivateKey',
  'derivePassword',
  'buildCustomCert',
  'genCA',
  'genSelfSignedCert',
  'genSignedCert',
  'randBytes',
  'randString',
  'randNumeric',
  'randAlphaNum',
  'randAlpha',
  'randAscii',
  'randInt',
  'uuidv4',
];

/** Names in Dagu's function map this product does not implement: refused at parse time. */
export const UNSUPPORTED_FUNCTIONS: readonly string[] = ['urlParse', 'urlJoin'];

// --- conversions (slim-sprig's strval, strslice, toInt64, toFloat64) ---

export function strval(v: unknown): string {
  return formatValue(v);
}

function strslice(v: unknown): string[] {
  if (Array.isArray(v)) return stringSlice(v.filter((x) => x !== null && x !== undefined).map(strval));
  if (v === null || v === undefined) return stringSlice([]);
  return stringSlice([strval(v)]);
}

function toInt64(v: unknown): number {
  if (typeof v === 'string') return /^[+-]?\d+$/.test(v) ? Number.parseInt(v, 10) : 0;
  if (isInt(v)) return v;
  if (isFloat(v)) return Math.trunc(numberOf(v));
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

function toFloat64(v: unknown): number {
  if (typeof v === 'string') {
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) return Number(v);
    if (/^[+-]?(inf|infinity)$/i.test(v)) return v.startsWith('-') ? -Infinity : Infinity;
    if (/^nan$/i.test(v)) return NaN;
    return 0;
  }
  if (isInt(v) || isFloat(v)) return numberOf(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return 0;
}

/** reflect.Kind name of a value, as slim-sprig's list errors print it. */
function kindText(v: unknown): string {
  if (v === null || v === undefined)
    throw new Error('runtime error: invalid memory address or nil pointer dereference');
  return goKindName(v);
}

function listOf(v: unknown, message: (kind: string) => string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new Error(message(kindText(v)));
}

function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === 'string') return v.length === 0;
  if (Array.isArray(v)) return v.length === 0;
  if (isMap(v)) return Object.keys(v).length === 0;
  if (typeof v === 'boolean') return !v;
  if (isInt(v) || isFloat(v)) return numberOf(v) === 0;
  return false;
}

function goSplit(s: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  const parts = sep === '' ? [...s] : s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  if (sep === '') return [...parts.slice(0, n - 1), parts.slice(n - 1).join('')];
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** Go's strings.Trim with a cutset. */
function trimCutset(s: string, cutset: string): string {
  const set = new Set([...cutset]);
  const chars = [...s];
  let a = 0;
  let b = chars.length;
  while (a < b && set.has(chars[a])) a++;
  while (b > a && set.has(chars[b - 1])) b--;
  return chars.slice(a, b).join('');
}

/**
 * Go's strings.ToUpper / ToLower: each character's own (simple) case mapping, so `ß` stays `ß` where
 * JavaScript's full mapping writes `SS`.
 */
export function goCase(s: string, to: 'upper' | 'lower'): string {
  let out = '';
  for (const ch of s) {
    if (to === 'lower' && ch === '\u0130') {
      out += 'i';
      continue;
    }
    const mapped = to === 'upper' ? ch.toUpperCase() : ch.toLowerCase();
    out += [...mapped].length === 1 ? mapped : ch;
  }
  return out;
}

/** Go's strings.Title. */
function title(s: string): string {
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    out += isSeparator(prev) ? ch.toUpperCase() : ch;
    prev = ch;
  }
  return out;
}

function isSeparator(c: string): boolean {
  const cp = c.codePointAt(0)!;
  if (cp <= 0x7f) return !/[0-9A-Za-z_]/.test(c);
  if (/[\p{L}\p{Nd}]/u.test(c)) return false;
  return /\s/u.test(c);
}

// --- paths (Go's path package; filepath is the same on Linux) ---

export function pathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  if (rooted) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

export function pathBase(p: string): string {
  if (p === '') return '.';
  const trimmed = p.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

export function pathDir(p: string): string {
  return pathClean(p.slice(0, p.lastIndexOf('/') + 1));
}

export function pathExt(p: string): string {
  for (let k = p.length - 1; k >= 0 && p[k] !== '/'; k--) if (p[k] === '.') return p.slice(k);
  return '';
}

// --- encodings ---

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32Encode(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

function base32Decode(s: string): string {
  const clean = s.replace(/[\r\n]/g, '');
  if (clean.length % 8 !== 0) return `illegal base32 data at input byte ${clean.length - (clean.length % 8)}`;
  const body = clean.replace(/=+$/, '');
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (let k = 0; k < body.length; k++) {
    const idx = B32.indexOf(body[k]);
    if (idx < 0) return `illegal base32 data at input byte ${k}`;
    value = ((value << 5) | idx) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function base64Decode(s: string): string {
  const clean = s.replace(/[\r\n]/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(clean);
  if (bad) return `illegal base64 data at input byte ${bad.index}`;
  const pad = clean.indexOf('=');
  if (pad >= 0 && !/^={1,2}$/.test(clean.slice(pad))) return `illegal base64 data at input byte ${pad}`;
  if (clean.length % 4 !== 0) return `illegal base64 data at input byte ${clean.length - (clean.length % 4)}`;
  return Buffer.from(clean, 'base64').toString('utf8');
}

function adler32(s: string): number {
  let a = 1;
  let b = 0;
  for (const byte of new TextEncoder().encode(s)) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

// --- JSON (Go's encoding/json: sorted keys, HTML escaping unless raw) ---

function toPlain(v: unknown): unknown {
  if (v instanceof GoFloat) return v.value;
  if (Array.isArray(v)) return v.map(toPlain);
  if (isMap(v)) return Object.fromEntries(sortedKeys(v).map((k) => [k, toPlain(v[k])]));
  return v;
}

function marshal(v: unknown, indent: boolean, escapeHtml: boolean): string {
  const plain = toPlain(v);
  const hasBadNumber = (x: unknown): boolean =>
    typeof x === 'number'
      ? !Number.isFinite(x)
      : Array.isArray(x)
        ? x.some(hasBadNumber)
        : isMap(x) && Object.values(x).some(hasBadNumber);
  if (hasBadNumber(plain)) throw new Error(`json: unsupported value: ${formatValue(v)}`);
  const json = JSON.stringify(plain, null, indent ? 2 : undefined) ?? 'null';
  const re = escapeHtml ? /[<>&\u2028\u2029]/g : /[\u2028\u2029]/g;
  return json.replace(re, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function fromPlain(v: unknown): unknown {
  if (typeof v === 'number') return goFloat(v);
  if (Array.isArray(v)) return v.map(fromPlain);
  if (isMap(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromPlain(x)]));
  return v;
}

function unmarshal(s: string): unknown {
  if (s.trim() === '') throw new Error('unexpected end of JSON input');
  try {
    return fromPlain(JSON.parse(s));
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const at = m ? Number(m[1]) : -1;
    if (at >= s.length || /end of JSON/i.test((e as Error).message))
      throw new Error('unexpected end of JSON input', { cause: e });
    const ch = at >= 0 ? s[at] : undefined;
    throw new Error(ch ? `invalid character '${ch}' in JSON text` : `invalid JSON: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

// --- numbers ---

function untilStep(start: number, stop: number, step: number): number[] {
  const v: number[] = [];
  if (stop < start) {
    if (step >= 0) return intSlice(v);
    for (let i = start; i > stop; i += step) v.push(i);
    return intSlice(v);
  }
  if (step <= 0) return intSlice(v);
  for (let i = start; i < stop; i += step) v.push(i);
  return intSlice(v);
}

function seq(params: number[]): string {
  let inc = 1;
  let list: number[];
  switch (params.length) {
    case 0:
      return '';
    case 1: {
      const end = params[0];
      if (end < 1) inc = -1;
      list = untilStep(1, end + inc, inc);
      break;
    }
    case 2: {
      const [start, end] = params;
      const step = end < start ? -1 : 1;
      list = untilStep(start, end + step, step);
      break;
    }
    case 3: {
      const [start, step, end] = params;
      if (end < start) {
        inc = -1;
        if (step > 0) return '';
      }
      list = untilStep(start, end + inc, step);
      break;
    }
    default:
      return '';
  }
  return list.join(' ');
}

function round(a: unknown, places: number, roundOn = 0.5): number | GoFloat {
  const val = toFloat64(a);
  const pow = 10 ** places;
  const digit = pow * val;
  const frac = digit - Math.trunc(digit);
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return goFloat(r / pow);
}

function intDiv(a: number, b: number, op: 'div' | 'mod'): number {
  if (b === 0) throw new Error('runtime error: integer divide by zero');
  return op === 'div' ? Math.trunc(a / b) : a % b;
}

// --- dicts and lists ---

function dig(ps: unknown[]): unknown {
  if (ps.length < 3) throw new Error('dig needs at least three arguments');
  const last = ps[ps.length - 1];
  if (!isMap(last))
    throw new Error(`interface conversion: interface {} is ${goTypeName(last)}, not map[string]interface {}`);
  const def = ps[ps.length - 2];
  const keys = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string')
      throw new Error(`interface conversion: interface {} is ${goTypeName(k)}, not string`);
    return k;
  });
  let dict: GoMap = last;
  for (let k = 0; k < keys.length; k++) {
    if (!Object.hasOwn(dict, keys[k])) return def;
    const step = dict[keys[k]];
    if (k === keys.length - 1) return step;
    if (!isMap(step))
      throw new Error(
        `interface conversion: interface {} is ${goTypeName(step)}, not map[string]interface {}`,
      );
    dict = step;
  }
  return def;
}

function chunk(size: number, list: unknown): unknown[][] {
  const l = listOf(list, (k) => `Cannot chunk type ${k}`);
  const out: unknown[][] = [];
  for (let k = 0; k < l.length; k += size) out.push(l.slice(k, k + size));
  if (l.length === 0) out.push([]);
  return out;
}

function sliceList(list: unknown, indices: unknown[]): unknown {
  const l = listOf(list, (k) => `list should be type of slice or array but ${k}`);
  if (l.length === 0) return null;
  const start = indices.length > 0 ? toInt64(indices[0]) : 0;
  const end = indices.length > 1 ? toInt64(indices[1]) : l.length;
  if (start < 0 || end > l.length || start > end) throw new Error('reflect: slice index out of range');
  const out = l.slice(start, end);
  return Array.isArray(list) && goTypeName(list) === '[]string' ? stringSlice(out as string[]) : out;
}

function inList(list: unknown[], item: unknown): boolean {
  return list.some((x) => deepEqual(item, x));
}

/** A function whose non-`must` twin panics where the `must` one returns the error: both fail the call here. */
function both(m: Record<string, GoFunction>, name: string, f: GoFunction): void {
  m[name] = f;
  m[`must${name[0].toUpperCase()}${name.slice(1)}`] = f;
}

/** Dagu's function map (without text/template's own functions). */
export function daguFunctions(): Record<string, GoFunction> {
  const m: Record<string, GoFunction> = {
    hello: fn('', () => 'Hello!'),

    // strings
    trunc: fn('is', ([c, s]) => {
      const n = int(c);
      const text = str(s);
      const len = byteLength(text);
      if (n < 0 && len + n > 0) return byteSlice(text, len + n);
      if (n >= 0 && len > n) return byteSlice(text, 0, n);
      return text;
    }),
    title: fn('s', ([s]) => title(str(s))),
    substr: fn('iis', ([a, b, s]) => {
      const start = int(a);
      const end = int(b);
      const text = str(s);
      if (start < 0) return byteSlice(text, 0, end);
      if (end < 0 || end > byteLength(text)) return byteSlice(text, start);
      return byteSlice(text, start, end);
    }),
    repeat: fn('is', ([c, s]) => {
      const n = int(c);
      if (n < 0) throw new Error('strings: negative Repeat count');
      return str(s).repeat(n);
    }),
    trimall: fn('ss', ([a, b]) => trimCutset(str(b), str(a))),
    trimAll: fn('ss', ([a, b]) => trimCutset(str(b), str(a))),
    trimSuffix: fn('ss', ([a, b]) => {
      const s = str(b);
      const suffix = str(a);
      return suffix !== '' && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s;
    }),
    trimPrefix: fn('ss', ([a, b]) => {
      const s = str(b);
      const prefix = str(a);
      return s.startsWith(prefix) ? s.slice(prefix.length) : s;
    }),
    contains: fn('ss', ([sub, s]) => str(s).includes(str(sub))),
    hasPrefix: fn('ss', ([sub, s]) => str(s).startsWith(str(sub))),
    hasSuffix: fn('ss', ([sub, s]) => str(s).endsWith(str(sub))),
    quote: fn('a*', (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => quoteGo(strval(a)))
        .join(' '),
    ),
    squote: fn('a*', (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => `'${formatValue(a)}'`)
        .join(' '),
    ),
    cat: fn('a*', (args) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map(formatValue)
        .join(' '),
    ),
    indent: fn('is', ([n, v]) => {
      const pad = ' '.repeat(Math.max(0, int(n)));
      return pad + str(v).replaceAll('\n', `\n${pad}`);
    }),
    nindent: fn('is', ([n, v]) => {
      const pad = ' '.repeat(Math.max(0, int(n)));
      return `\n${pad}${str(v).replaceAll('\n', `\n${pad}`)}`;
    }),
    replace: fn('sss', ([o, n, s]) => {
      const old = str(o);
      const rep = str(n);
      const src = str(s);
      if (old === '') return [...src].map((c) => rep + c).join('') + rep;
      return src.split(old).join(rep);
    }),
    plural: fn('ssi', ([one, many, count]) => (int(count) === 1 ? str(one) : str(many))),
    sha1sum: fn('s', ([s]) => bytesToHex(sha1(utf8ToBytes(str(s))))),
    sha256sum: fn('s', ([s]) => bytesToHex(sha256(utf8ToBytes(str(s))))),
    adler32sum: fn('s', ([s]) => String(adler32(str(s)))),
    toString: fn('a', ([v]) => strval(v)),
    atoi: fn('s', ([s]) => {
      const text = str(s);
      return /^[+-]?\d+$/.test(text) ? Number.parseInt(text, 10) : 0;
    }),
    int64: fn('a', ([v]) => toInt64(v)),
    int: fn('a', ([v]) => toInt64(v)),
    float64: fn('a', ([v]) => goFloat(toFloat64(v))),
    seq: fn('i*', (args) => seq(args.map(int))),
    toDecimal: fn('a', ([v]) => {
      const text = formatValue(v);
      return /^[+-]?[0-7]+$/.test(text) ? Number.parseInt(text, 8) : 0;
    }),
    splitList: fn('ss', ([sep, s]) => stringSlice(goSplit(str(s), str(sep)))),
    splitn: fn('sis', ([sep, n, s]) =>
      Object.fromEntries(goSplit(str(s), str(sep), int(n)).map((part, i) => [`_${i}`, part])),
    ),
    toStrings: fn('a', ([v]) => strslice(v)),
    until: fn('i', ([c]) => {
      const n = int(c);
      return untilStep(0, n, n < 0 ? -1 : 1);
    }),
    untilStep: fn('iii', ([a, b, c]) => untilStep(int(a), int(b), int(c))),

    // numbers (slim-sprig's, except Dagu's add)
    add1: fn('a', ([v]) => toInt64(v) + 1),
    sub: fn('aa', ([a, b]) => toInt64(a) - toInt64(b)),
    div: fn('aa', ([a, b]) => intDiv(toInt64(a), toInt64(b), 'div')),
    mod: fn('aa', ([a, b]) => intDiv(toInt64(a), toInt64(b), 'mod')),
    mul: fn('aa*', ([a, ...rest]) => rest.reduce<number>((acc, b) => acc * toInt64(b), toInt64(a))),
    biggest: fn('aa*', (args) => Math.max(...args.map(toInt64))),
    max: fn('aa*', (args) => Math.max(...args.map(toInt64))),
    min: fn('aa*', (args) => Math.min(...args.map(toInt64))),
    maxf: fn('aa*', (args) => goFloat(Math.max(...args.map(toFloat64)))),
    minf: fn('aa*', (args) => goFloat(Math.min(...args.map(toFloat64)))),
    ceil: fn('a', ([v]) => goFloat(Math.ceil(toFloat64(v)))),
    floor: fn('a', ([v]) => goFloat(Math.floor(toFloat64(v)))),
    round: fn('aif*', ([a, p, r]) => round(a, int(p), r === undefined ? 0.5 : toFloat64(r))),

    sortAlpha: fn('a', ([v]) => {
      if (!Array.isArray(v)) return stringSlice([strval(v)]);
      return stringSlice(strslice(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }),

    // defaults and JSON
    coalesce: fn('a*', (args) => args.find((a) => !isEmpty(a)) ?? null),
    all: fn('a*', (args) => args.every((a) => !isEmpty(a))),
    any: fn('a*', (args) => args.some((a) => !isEmpty(a))),
    fromJson: fn('s', ([s]) => {
      try {
        return unmarshal(str(s));
      } catch (e) {
        if (e instanceof Error && e.name === 'ArgTypeError') throw e;
        return null;
      }
    }),
    mustFromJson: fn('s', ([s]) => unmarshal(str(s))),
    toJson: fn('a', ([v]) => {
      try {
        return marshal(v, false, true);
      } catch {
        return '';
      }
    }),
    mustToJson: fn('a', ([v]) => marshal(v, false, true)),
    toPrettyJson: fn('a', ([v]) => {
      try {
        return marshal(v, true, true);
      } catch {
        return '';
      }
    }),
    mustToPrettyJson: fn('a', ([v]) => marshal(v, true, true)),
    toRawJson: fn('a', ([v]) => marshal(v, false, false)),
    mustToRawJson: fn('a', ([v]) => marshal(v, false, false)),
    ternary: fn('aab', ([vt, vf, v]) => (bool(v) ? vt : vf)),

    // reflection
    typeOf: fn('a', ([v]) => goTypeName(v)),
    typeIs: fn('sa', ([t, v]) => str(t) === goTypeName(v)),
    typeIsLike: fn('sa', ([t, v]) => {
      const name = str(t);
      const actual = goTypeName(v);
      return name === actual || `*${name}` === actual;
    }),
    kindOf: fn('a', ([v]) => goKindName(v)),
    kindIs: fn('sa', ([t, v]) => str(t) === goKindName(v)),
    deepEqual: fn('aa', ([a, b]) => deepEqual(a, b)),

    // paths (filepath is the same as path on Linux)
    base: fn('s', ([p]) => pathBase(str(p))),
    dir: fn('s', ([p]) => pathDir(str(p))),
    clean: fn('s', ([p]) => pathClean(str(p))),
    ext: fn('s', ([p]) => pathExt(str(p))),
    isAbs: fn('s', ([p]) => str(p).startsWith('/')),
    osBase: fn('s', ([p]) => pathBase(str(p))),
    osClean: fn('s', ([p]) => pathClean(str(p))),
    osDir: fn('s', ([p]) => pathDir(str(p))),
    osExt: fn('s', ([p]) => pathExt(str(p))),
    osIsAbs: fn('s', ([p]) => str(p).startsWith('/')),

    // encodings
    b64enc: fn('s', ([s]) => Buffer.from(str(s), 'utf8').toString('base64')),
    b64dec: fn('s', ([s]) => base64Decode(str(s))),
    b32enc: fn('s', ([s]) => base32Encode(str(s))),
    b32dec: fn('s', ([s]) => base32Decode(str(s))),

    // dicts
    list: fn('a*', (args) => [...args]),
    tuple: fn('a*', (args) => [...args]),
    dict: fn('a*', (args) => {
      const d: GoMap = {};
      for (let k = 0; k < args.length; k += 2) d[strval(args[k])] = k + 1 < args.length ? args[k + 1] : '';
      return d;
    }),
    get: fn('ms', ([d, k]) => {
      const dict = dictArg(d);
      const key = str(k);
      return Object.hasOwn(dict, key) ? dict[key] : '';
    }),
    set: fn('msa', ([d, k, v]) => {
      const dict = dictArg(d);
      dict[str(k)] = v;
      return dict;
    }),
    unset: fn('ms', ([d, k]) => {
      const dict = dictArg(d);
      delete dict[str(k)];
      return dict;
    }),
    hasKey: fn('ms', ([d, k]) => Object.hasOwn(dictArg(d), str(k))),
    pluck: fn('sm*', ([k, ...ds]) => {
      const key = str(k);
      return ds.map(dictArg).flatMap((d) => (Object.hasOwn(d, key) ? [d[key]] : []));
    }),
    keys: fn('m*', (ds) => stringSlice(ds.map(dictArg).flatMap((d) => sortedKeys(d)))),
    pick: fn('ms*', ([d, ...ks]) => {
      const dict = dictArg(d);
      const out: GoMap = {};
      for (const k of ks.map(str)) if (Object.hasOwn(dict, k)) out[k] = dict[k];
      return out;
    }),
    omit: fn('ms*', ([d, ...ks]) => {
      const dict = dictArg(d);
      const drop = new Set(ks.map(str));
      return Object.fromEntries(Object.entries(dict).filter(([k]) => !drop.has(k)));
    }),
    values: fn('m', ([d]) => {
      const dict = dictArg(d);
      return sortedKeys(dict).map((k) => dict[k]);
    }),
    dig: fn('a*', dig),

    // flow control
    fail: fn('s', ([msg]) => {
      throw new Error(str(msg));
    }),

    // regular expressions
    regexMatch: fn('ss', ([r, s]) => {
      const text = str(s);
      try {
        const re = compileGoRegexp(str(r));
        return re.test(text);
      } catch {
        return false;
      }
    }),
    mustRegexMatch: fn('ss', ([r, s]) => compileGoRegexp(str(r)).test(str(s))),
    regexFindAll: fn('ssi', ([r, s, n]) =>
      stringSlice(findAll(mustCompile(str(r)), str(s), int(n)).map((m) => m[0])),
    ),
    mustRegexFindAll: fn('ssi', ([r, s, n]) =>
      stringSlice(findAll(compileGoRegexp(str(r)), str(s), int(n)).map((m) => m[0])),
    ),
    regexFind: fn('ss', ([r, s]) => findAll(mustCompile(str(r)), str(s), 1)[0]?.[0] ?? ''),
    mustRegexFind: fn('ss', ([r, s]) => findAll(compileGoRegexp(str(r)), str(s), 1)[0]?.[0] ?? ''),
    regexReplaceAll: fn('sss', ([r, s, repl]) => replaceAll(mustCompile(str(r)), str(s), str(repl), false)),
    mustRegexReplaceAll: fn('sss', ([r, s, repl]) =>
      replaceAll(compileGoRegexp(str(r)), str(s), str(repl), false),
    ),
    regexReplaceAllLiteral: fn('sss', ([r, s, repl]) =>
      replaceAll(mustCompile(str(r)), str(s), str(repl), true),
    ),
    mustRegexReplaceAllLiteral: fn('sss', ([r, s, repl]) =>
      replaceAll(compileGoRegexp(str(r)), str(s), str(repl), true),
    ),
    regexSplit: fn('ssi', ([r, s, n]) => stringSlice(regexSplit(mustCompile(str(r)), str(s), int(n)))),
    mustRegexSplit: fn('ssi', ([r, s, n]) =>
      stringSlice(regexSplit(compileGoRegexp(str(r)), str(s), int(n))),
    ),
    regexQuoteMeta: fn('s', ([s]) => quoteMeta(str(s))),
  };

  both(
    m,
    'push',
    fn('aa', ([l, v]) => [...listOf(l, (k) => `Cannot push on type ${k}`), v]),
  );
  both(m, 'append', m.push);
  both(
    m,
    'prepend',
    fn('aa', ([l, v]) => [v, ...listOf(l, (k) => `Cannot prepend on type ${k}`)]),
  );
  both(
    m,
    'chunk',
    fn('ia', ([size, l]) => chunk(int(size), l)),
  );
  both(
    m,
    'first',
    fn('a', ([l]) => listOf(l, (k) => `Cannot find first on type ${k}`)[0] ?? null),
  );
  both(
    m,
    'last',
    fn('a', ([l]) => listOf(l, (k) => `Cannot find last on type ${k}`).at(-1) ?? null),
  );
  both(
    m,
    'rest',
    fn('a', ([l]) => listOf(l, (k) => `Cannot find rest on type ${k}`).slice(1)),
  );
  both(
    m,
    'initial',
    fn('a', ([l]) => listOf(l, (k) => `Cannot find initial on type ${k}`).slice(0, -1)),
  );
  both(
    m,
    'reverse',
    fn('a', ([l]) => [...listOf(l, (k) => `Cannot find reverse on type ${k}`)].reverse()),
  );
  both(
    m,
    'compact',
    fn('a', ([l]) => listOf(l, (k) => `Cannot compact on type ${k}`).filter((x) => !isEmpty(x))),
  );
  both(
    m,
    'uniq',
    fn('a', ([l]) => {
      const out: unknown[] = [];
      for (const x of listOf(l, (k) => `Cannot find uniq on type ${k}`)) if (!inList(out, x)) out.push(x);
      return out;
    }),
  );
  both(
    m,
    'without',
    fn('aa*', ([l, ...omit]) =>
      listOf(l, (k) => `Cannot find without on type ${k}`).filter((x) => !inList(omit, x)),
    ),
  );
  both(
    m,
    'has',
    fn('aa', ([needle, hay]) => {
      if (hay === null || hay === undefined) return false;
      return inList(
        listOf(hay, (k) => `Cannot find has on type ${k}`),
        needle,
      );
    }),
  );
  both(
    m,
    'slice',
    fn('aa*', ([l, ...ix]) => sliceList(l, ix)),
  );
  m.concat = fn('a*', (lists) =>
    lists.length === 0 ? null : lists.flatMap((l) => listOf(l, (k) => `Cannot concat type ${k} as list`)),
  );

  // Dagu's overrides: the piped value last, and Dagu's own behaviour.
  m.split = fn('ss', ([sep, s]) => stringSlice(goSplit(str(s), str(sep))));
  m.join = fn('sa', ([sep, v]) => {
    const separator = str(sep);
    if (v === null || v === undefined) return '';
    if (!Array.isArray(v)) throw new Error(`join: unsupported type ${goTypeName(v)}`);
    return v.map(formatValue).join(separator);
  });
  m.count = fn('a', ([v]) => {
    if (v === null || v === undefined) return 0;
    if (Array.isArray(v)) return v.length;
    if (isMap(v)) return Object.keys(v).length;
    if (typeof v === 'string') return byteLength(v);
    throw new Error(`count: unsupported type ${goTypeName(v)}`);
  });
  m.add = fn('ii', ([b, a]) => int(a) + int(b));
  m.empty = fn('a', ([v]) => isEmpty(v));
  m.upper = fn('s', ([s]) => goCase(str(s), 'upper'));
  m.lower = fn('s', ([s]) => goCase(str(s), 'lower'));
  m.trim = fn('s', ([s]) => goTrimSpace(str(s)));
  m.default = fn('aa', ([def, val]) => (isEmpty(val) ? def : val));
  return m;
}
