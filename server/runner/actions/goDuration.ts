// Reads a duration the way Go's time.ParseDuration does, because Dagu's `wait` settings (`duration`,
// `poll_interval`, `request_timeout`) are Go durations: "300ms", "1.5h", "2h45m", "-1s"; units ns, us
// (µs, μs), ms, s, m, h; a unit is required except for a bare "0".

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** Go's limit: a duration is an int64 count of nanoseconds. */
const MAX_NS = 2 ** 63 - 1;

/** A text that is not a Go duration; the message says what is wrong with it. */
export class GoDurationError extends Error {
  constructor(
    readonly text: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'GoDurationError';
  }
}

const TERM = /^(\d*)(?:\.(\d*))?([^\d.]*)/;

/** The duration in milliseconds (fractions kept); throws GoDurationError. */
export function parseGoDuration(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw new GoDurationError(text, `'${text}' is not a duration`);
  let totalNs = 0;
  while (rest !== '') {
    const m = TERM.exec(rest)!;
    const [whole, intPart = '', fracPart, unit = ''] = m;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) {
      throw new GoDurationError(text, `'${text}' is not a duration`);
    }
    if (unit === '')
      throw new GoDurationError(text, `'${text}' has a number without a unit (ns, us, ms, s, m, h)`);
    const scale = UNIT_NS[unit];
    if (scale === undefined) {
      throw new GoDurationError(text, `'${text}' has an unknown unit '${unit}' (use ns, us, ms, s, m or h)`);
    }
    totalNs += Number(`${intPart || '0'}.${fracPart || '0'}`) * scale;
    if (totalNs > MAX_NS)
      throw new GoDurationError(text, `'${text}' is longer than a duration can be (about 292 years)`);
    rest = rest.slice(whole.length);
  }
  return (sign * totalNs) / 1e6;
}
