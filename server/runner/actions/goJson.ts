// Writes JSON the way Dagu's Go code does (encoding/json): object keys in byte order, `<`, `>` and `&`
// escaped as \u003c, \u003e, \u0026, and optional indentation. The jq and http outputs of a Dagu step
// come out of that encoder, so a step's captured `output` is the same text here.

/** A Go struct: fields in declaration order (not sorted), an undefined field left out (`omitempty`). */
export class GoStruct {
  constructor(readonly fields: Array<[string, unknown]>) {}
}

/** Compact JSON (indent '') or indented with the given unit, as Go's Marshal / MarshalIndent write it. */
export function goJson(value: unknown, indent = ''): string {
  return write(value, indent, '');
}

function write(value: unknown, indent: string, prefix: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  const inner = prefix + indent;
  const open = indent ? `\n${inner}` : '';
  const close = indent ? `\n${prefix}` : '';
  const sep = indent ? `,\n${inner}` : ',';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${open}${value.map((item) => write(item, indent, inner)).join(sep)}${close}]`;
  }
  const struct = value instanceof GoStruct;
  const all = struct ? value.fields : Object.entries(value as Record<string, unknown>);
  const entries = all.filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  if (!struct) entries.sort(([a], [b]) => compareBytes(a, b));
  const colon = indent ? ': ' : ':';
  return `{${open}${entries.map(([k, v]) => goString(k) + colon + write(v, indent, inner)).join(sep)}${close}}`;
}

/** Go sorts map keys by their UTF-8 bytes; UTF-16 order differs only past the basic plane. */
function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function goString(text: string): string {
  // JSON.stringify escapes quotes, backslashes and control characters as Go does; Go adds the HTML-safe
  // escapes and writes a lone surrogate (invalid UTF-8 on its side) as U+FFFD.
  return JSON.stringify(text.replace(LONE_SURROGATE, '\uFFFD')).replace(
    /[<>&\u2028\u2029]/g,
    (c) => GO_ESCAPES[c]!,
  );
}
