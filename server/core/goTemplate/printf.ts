// Go's fmt.Sprintf for the verbs a template uses: %v %s %q %d %f %e %g %x %X %o %b %c %t %T %U %%, with flags
// (- + # 0 space), width and precision (also `*`), and Go's `%!verb(type=value)`, `%!v(MISSING)` and
// `%!(EXTRA ...)` markers for a mismatched operand.

import { formatGoFloat } from '../dag/values';
import { formatValue, GoFloat, goTypeName, isFloat, isInt, numberOf, quoteGo } from './values';

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  zero: boolean;
  space: boolean;
  width: number | null;
  prec: number | null;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === null || s.length >= spec.width) return s;
  const fill = spec.width - s.length;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? s[0] : '';
    return sign + '0'.repeat(fill) + s.slice(sign.length);
  }
  return ' '.repeat(fill) + s;
}

function signed(body: string, negative: boolean, spec: Spec): string {
  if (negative) return `-${body}`;
  if (spec.plus) return `+${body}`;
  if (spec.space) return ` ${body}`;
  return body;
}

function bad(verb: string, arg: unknown): string {
  return `%!${verb}(${goTypeName(arg)}=${formatValue(arg)})`;
}

function formatInt(n: number, verb: string, spec: Spec): string {
  const neg = n < 0;
  const abs = Math.abs(n);
  let body: string;
  switch (verb) {
    case 'd':
    case 'v':
      body = String(abs);
      break;
    case 'b':
      body = abs.toString(2);
      break;
    case 'o':
      body = abs.toString(8);
      if (spec.sharp) body = `0${body}`;
      break;
    case 'O':
      body = `0o${abs.toString(8)}`;
      break;
    case 'x':
      body = abs.toString(16);
      if (spec.sharp) body = `0x${body}`;
      break;
    case 'X':
      body = abs.toString(16).toUpperCase();
      if (spec.sharp) body = `0X${body}`;
      break;
    case 'c':
      return pad(String.fromCodePoint(n), spec, false);
    case 'q':
      return pad(`'${String.fromCodePoint(n).replace(/[\\']/g, (c) => `\\${c}`)}'`, spec, false);
    case 'U':
      return pad(`U+${abs.toString(16).toUpperCase().padStart(4, '0')}`, spec, false);
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
      return bad(verb, n);
    default:
      return bad(verb, n);
  }
  if (spec.prec !== null) body = body.padStart(spec.prec, '0');
  return pad(signed(body, neg, spec), spec, spec.prec === null);
}

function formatFloat(x: number, verb: string, spec: Spec, arg: unknown): string {
  const neg = x < 0 || Object.is(x, -0);
  const abs = Math.abs(x);
  let body: string;
  switch (verb) {
    case 'v':
    case 'g':
    case 'G':
      body = spec.prec === null ? formatGoFloat(abs) : goG(abs, spec.prec === 0 ? 1 : spec.prec);
      if (verb === 'G') body = body.toUpperCase();
      break;
    case 'f':
    case 'F':
      body = abs.toFixed(spec.prec ?? 6);
      break;
    case 'e':
    case 'E': {
      body = goExp(abs.toExponential(spec.prec ?? 6));
      if (verb === 'E') body = body.toUpperCase();
      break;
    }
    default:
      return bad(verb, arg);
  }
  if (!Number.isFinite(x)) body = Number.isNaN(x) ? 'NaN' : 'Inf';
  return pad(signed(body, neg && !Number.isNaN(x), spec), spec, Number.isFinite(x));
}

/** JavaScript's exponent form as Go writes it: at least two exponent digits. */
function goExp(s: string): string {
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function goG(x: number, prec: number): string {
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(x));
  if (exp < -4 || exp >= prec) return goExp(x.toExponential(prec - 1).replace(/\.?0+e/, 'e'));
  return String(Number(x.toPrecision(prec)));
}

function formatString(s: string, verb: string, spec: Spec, arg: unknown): string {
  let body: string;
  switch (verb) {
    case 'v':
    case 's':
      body = spec.prec !== null ? [...s].slice(0, spec.prec).join('') : s;
      break;
    case 'q':
      body = spec.sharp && !s.includes('`') ? `\`${s}\`` : quoteGo(s);
      break;
    case 'x':
    case 'X': {
      const hex = Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join(
        spec.space ? ' ' : '',
      );
      body = verb === 'X' ? hex.toUpperCase() : hex;
      break;
    }
    default:
      return bad(verb, arg);
  }
  return pad(body, spec, false);
}

function formatOne(arg: unknown, verb: string, spec: Spec): string {
  if (verb === 'T') return pad(goTypeName(arg), spec, false);
  if (arg === null || arg === undefined)
    return verb === 'v' || verb === 's' ? pad('<nil>', spec, false) : `%!${verb}(<nil>)`;
  if (typeof arg === 'boolean') {
    return verb === 'v' || verb === 't' ? pad(arg ? 'true' : 'false', spec, false) : bad(verb, arg);
  }
  if (isInt(arg)) return formatInt(arg, verb, spec);
  if (isFloat(arg)) return formatFloat(numberOf(arg), verb, spec, arg);
  if (typeof arg === 'string') return formatString(arg, verb, spec, arg);
  if (Array.isArray(arg)) {
    if (verb === 'v' || verb === 's' || verb === 'd' || verb === 'q' || verb === 'x' || verb === 'f')
      return pad(`[${arg.map((a) => formatOne(a, verb, { ...spec, width: null })).join(' ')}]`, spec, false);
    return bad(verb, arg);
  }
  if (verb === 'v' || verb === 's') return pad(formatValue(arg), spec, false);
  return bad(verb, arg);
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argi = 0;
  let k = 0;
  while (k < format.length) {
    const c = format[k];
    if (c !== '%') {
      out += c;
      k++;
      continue;
    }
    k++;
    if (format[k] === '%') {
      out += '%';
      k++;
      continue;
    }
    const spec: Spec = {
      minus: false,
      plus: false,
      sharp: false,
      zero: false,
      space: false,
      width: null,
      prec: null,
    };
    for (;;) {
      const f = format[k];
      if (f === '-') spec.minus = true;
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === '0') spec.zero = !spec.minus;
      else if (f === ' ') spec.space = true;
      else break;
      k++;
    }
    const readNum = (): number | null => {
      if (format[k] === '*') {
        k++;
        const a = args[argi++];
        return isInt(a) ? a : null;
      }
      const m = /^\d+/.exec(format.slice(k));
      if (!m) return null;
      k += m[0].length;
      return Number(m[0]);
    };
    spec.width = readNum();
    if (spec.width !== null && spec.width < 0) {
      spec.minus = true;
      spec.width = -spec.width;
    }
    if (format[k] === '.') {
      k++;
      spec.prec = readNum() ?? 0;
    }
    const verb = format[k];
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    k++;
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argi++];
    out += formatOne(arg instanceof GoFloat ? arg : arg, verb, spec);
  }
  if (argi < args.length) {
    out += `%!(EXTRA ${args
      .slice(argi)
      .map((a) => `${goTypeName(a)}=${formatValue(a)}`)
      .join(', ')})`;
  }
  return out;
}
