// Go-style durations: parsed from config and DAG files ("30s", "1h30m", "0s", "2d"), printed the Go way ("2m0s").

import { DAY, HOUR, MILLISECOND, MINUTE, SECOND } from './units';

const UNIT_MS: Record<string, number> = {
  ns: MILLISECOND / 1_000_000,
  us: MILLISECOND / 1000,
  µs: MILLISECOND / 1000,
  ms: MILLISECOND,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
  d: DAY,
};

// `\u00b5` rather than the character itself keeps the bundled CLI pure ASCII (see scripts/build-cli.mjs).
const TOKEN = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|ms|s|m|h|d)/y;

export type DurationParse = { ok: true; ms: number } | { ok: false; error: string };

/**
 * Parses a Go duration string into milliseconds. Accepts an optional sign, a sum of number+unit tokens
 * (ns, us, ms, s, m, h and, as in Dagu's DAG files, d) and a bare "0". Never throws.
 */
export function parseDuration(input: string): DurationParse {
  const text = input.trim();
  if (text === '') return { ok: false, error: 'empty duration' };
  let i = 0;
  let sign = 1;
  if (text[0] === '-' || text[0] === '+') {
    sign = text[0] === '-' ? -1 : 1;
    i = 1;
  }
  const body = text.slice(i);
  if (body === '0') return { ok: true, ms: 0 };
  if (body === '') return { ok: false, error: `invalid duration ${JSON.stringify(input)}` };
  let total = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < body.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(body);
    if (!m || m.index !== start) {
      return {
        ok: false,
        error: `invalid duration ${JSON.stringify(input)} (use a number and a unit, like 30s, 2m or 1h30m)`,
      };
    }
    total += Number(m[1]) * UNIT_MS[m[2]];
  }
  return { ok: true, ms: sign * total };
}

/** Formats milliseconds the way Go prints a time.Duration: "2m0s", "1h30m0s", "500ms", "0s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < SECOND) {
    out = rest >= 1 ? `${trim(rest)}ms` : `${trim(rest * 1000)}µs`;
  } else {
    const h = Math.floor(rest / HOUR);
    rest -= h * HOUR;
    const m = Math.floor(rest / MINUTE);
    rest -= m * MINUTE;
    const s = trim(rest / SECOND);
    out = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
  }
  return neg ? `-${out}` : out;
}

function trim(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}
