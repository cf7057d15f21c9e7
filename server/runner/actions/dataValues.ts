// The values Dagu's data.convert and data.pick work on, kept with the Go types Dagu's decoders give them:
// an integer (YAML `30`, or a whole number written in the DAG) is a Go int, held here as a bigint; a number
// read from JSON (always) or a YAML float is a Go float64, held as a JS number. The two print differently:
// Go writes a float64 of a million or more as `1e+06` in CSV cells, raw picks and YAML, an int as digits.
// A YAML timestamp (`2024-01-31`) is a Go time.Time. Maps are objects without a prototype, so that any key
// (`__proto__` too) is an ordinary key.

import { goJson } from './goJson';

export type DataValue = null | boolean | number | bigint | string | GoTime | DataValue[] | DataMap;
export interface DataMap {
  [key: string]: DataValue;
}

/** A YAML timestamp as Go's time.Time: its RFC 3339 text (JSON and YAML) and its String() (CSV cells). */
export class GoTime {
  constructor(
    readonly rfc3339: string,
    readonly goString: string,
  ) {}
}

export function newMap(): DataMap {
  return Object.create(null) as DataMap;
}

export function isMap(value: unknown): value is DataMap {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof GoTime);
}

/** A step's inline `with.data` (plain JS values from the DAG) as data: whole numbers become Go ints. */
export function fromInline(value: unknown): DataValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  if (Array.isArray(value)) return value.map(fromInline);
  if (typeof value === 'object') {
    const out = newMap();
    for (const [k, v] of Object.entries(value)) out[k] = fromInline(v);
    return out;
  }
  return String(value);
}

/** A value from JSON.parse: every number is a Go float64, as encoding/json decodes it into `any`. */
export function fromJson(value: unknown): DataValue {
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const out = newMap();
    for (const [k, v] of Object.entries(value)) out[k] = fromJson(v);
    return out;
  }
  return value as DataValue;
}

/** A value parsed from jq's JSON output: whole numbers are ints (gojq computes lengths and counts as ints). */
export function fromJqJson(value: unknown): DataValue {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(fromJqJson);
  if (value !== null && typeof value === 'object') {
    const out = newMap();
    for (const [k, v] of Object.entries(value)) out[k] = fromJqJson(v);
    return out;
  }
  return value as DataValue;
}

/** An error of Go's encoding/json (`json: unsupported value: NaN`). */
export class GoJsonError extends Error {}

/** The value as goJson writes it: a timestamp as its RFC 3339 text; NaN and infinities refused, as Go does. */
export function jsonable(value: DataValue): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new GoJsonError(`json: unsupported value: ${formatG(value)}`);
  if (value instanceof GoTime) return value.rfc3339;
  if (Array.isArray(value)) return value.map(jsonable);
  if (isMap(value)) {
    const out: Array<[string, unknown]> = Object.entries(value).map(([k, v]) => [k, jsonable(v)]);
    return fromEntries(out);
  }
  return value;
}

function fromEntries(entries: Array<[string, unknown]>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of entries) out[k] = v;
  return out;
}

/** Go's json.Marshal (compact, HTML-safe, keys sorted). */
export function goMarshal(value: DataValue, indent = ''): string {
  return goJson(jsonable(value), indent);
}

/** strconv.FormatFloat(v, 'g', -1, 64), which fmt's %v uses too: exponent form from 1e+06 and below 1e-04. */
export function formatG(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, expText] = Math.abs(v).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exp = Number(expText);
  const sign = v < 0 ? '-' : '';
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const e = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  const point = exp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return sign + digits + '0'.repeat(point - digits.length);
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** fmt.Sprint of a scalar: a float64 as %v, an int as digits, a timestamp as time.Time's String(). */
export function goSprint(value: DataValue): string {
  if (value === null) return '<nil>';
  if (typeof value === 'number') return formatG(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return value;
  if (value instanceof GoTime) return value.goString;
  return goMarshal(value);
}

/** A CSV cell, as Dagu writes one: nothing for null, maps and lists as compact JSON, the rest as fmt.Sprint. */
export function cellString(value: DataValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) || isMap(value)) {
    try {
      return goMarshal(value);
    } catch {
      return goSprint(value);
    }
  }
  return goSprint(value);
}

/** `text` output, and `from: text` of a non-text value: text as is, anything else as compact JSON. */
export function stringifyText(value: DataValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  try {
    return goMarshal(value);
  } catch {
    return goSprint(value);
  }
}

/** data.pick's `raw`: text, booleans and numbers bare; null as an empty line; anything else as compact JSON. */
export function rawText(value: DataValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint')
    return goSprint(value);
  return goMarshal(value);
}

// --- YAML scalars, resolved as gopkg.in/yaml.v3 resolves a plain scalar ---

/** The Go value of a plain YAML scalar, or `str` for text; `tag` says which YAML type it resolved to. */
export function resolvePlain(text: string): {
  tag: 'null' | 'bool' | 'int' | 'float' | 'timestamp' | 'str' | 'merge';
  value: DataValue;
} {
  switch (text) {
    case '':
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return { tag: 'null', value: null };
    case 'true':
    case 'True':
    case 'TRUE':
      return { tag: 'bool', value: true };
    case 'false':
    case 'False':
    case 'FALSE':
      return { tag: 'bool', value: false };
    case '.nan':
    case '.NaN':
    case '.NAN':
      return { tag: 'float', value: NaN };
    case '.inf':
    case '.Inf':
    case '.INF':
    case '+.inf':
    case '+.Inf':
    case '+.INF':
      return { tag: 'float', value: Infinity };
    case '-.inf':
    case '-.Inf':
    case '-.INF':
      return { tag: 'float', value: -Infinity };
    case '<<':
      return { tag: 'merge', value: '<<' };
  }
  const c = text[0];
  if (c === '.') {
    const f = goParseFloat(text);
    if (f !== null) return { tag: 'float', value: f };
  } else if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    const t = parseTimestamp(text);
    if (t) return { tag: 'timestamp', value: t };
    const plain = text.replaceAll('_', '');
    const i = goParseInt(plain);
    if (i !== null) return { tag: 'int', value: i };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = goParseFloat(plain);
      if (f !== null) return { tag: 'float', value: f };
    }
  }
  return { tag: 'str', value: text };
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** strconv.ParseInt(s, 0, 64), falling back to ParseUint for an unsigned number past int64. */
function goParseInt(s: string): bigint | null {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return null;
  const body = m[2];
  let n: bigint;
  if (/^0[oO]/.test(body)) n = BigInt(`0o${body.slice(2)}`);
  else if (/^0[0-7]+$/.test(body)) n = BigInt(`0o${body.slice(1)}`);
  else n = BigInt(body);
  if (m[1] === '-') n = -n;
  if (n >= INT64_MIN && n <= INT64_MAX) return n;
  if (m[1] === '' && n <= UINT64_MAX) return n;
  return null;
}

function goParseFloat(s: string): number | null {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  return Number(s);
}

const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:([Tt])|( ))(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?)?$/;

/** yaml.v3's timestamps: `2006-1-2`, `2006-1-2T15:4:5[.frac](Z|±hh:mm)`, `2006-1-2 15:4:5[.frac]`. */
export function parseTimestamp(text: string): GoTime | null {
  const m = TIMESTAMP.exec(text);
  if (!m) return null;
  const [, y, mo, d, tee, space, h, mi, s, frac, zone] = m;
  if (tee !== undefined && zone === undefined) return null;
  if (space !== undefined && zone !== undefined) return null;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysIn) return null;
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const fraction = (frac ?? '').replace(/0+$/, '');
  let offset = 'Z';
  let goZone = '+0000 UTC';
  if (zone !== undefined && zone !== 'Z' && zone !== '+00:00' && zone !== '-00:00') {
    offset = zone;
    const compact = zone.replace(':', '');
    goZone = `${compact} ${compact}`;
  }
  const date = `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  const time = `${pad(hour)}:${pad(minute)}:${pad(second)}`;
  return new GoTime(
    `${date}T${time}${fraction ? `.${fraction}` : ''}${offset}`,
    `${date} ${time}${fraction ? `.${fraction}` : ''} ${goZone}`,
  );
}
