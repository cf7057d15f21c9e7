// Masks a run's secret values in everything the run shows: the bytes its steps write to their logs (a line at a
// time, so a value split across two writes is still found), its status (every text in it: errors, outputs,
// params, ...) and the lines it logs. Dagu shows `*******` in their place; so does this product. A value that
// spans a line break, or a line longer than MAX_LINE_BYTES, is masked only where it is whole on one piece.

import type { LogFields, Logger } from '../core/ports';

export const MASK = '*******';
/** A line longer than this without a newline is masked and written as it is so far. */
const MAX_LINE_BYTES = 1024 * 1024;
const MASK_BYTES = Buffer.from(MASK);

export class SecretMask {
  /** The values to hide, longest first, so that a value containing another is masked whole. */
  private readonly values: string[];
  private readonly buffers: Buffer[];

  constructor(values: Iterable<string>) {
    this.values = [...new Set(values)].filter((v) => v !== '').sort((a, b) => b.length - a.length);
    this.buffers = this.values.map((v) => Buffer.from(v));
  }

  get empty(): boolean {
    return this.values.length === 0;
  }

  text(input: string): string {
    let out = input;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(MASK);
    return out;
  }

  bytes(input: Buffer): Buffer {
    let out = input;
    for (const v of this.buffers) {
      let at = out.indexOf(v);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(out.subarray(from, at), MASK_BYTES);
        from = at + v.length;
        at = out.indexOf(v, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }

  /** A copy of `value` with every text in it masked (keys too); `value` itself is left as it is. */
  deep<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[this.text(k)] = this.walk(v);
      return out;
    }
    return value;
  }

  /** A masking filter for one output stream: push what is written, write what it returns, then `end()`. */
  stream(): { push(chunk: Buffer): Buffer; end(): Buffer } {
    let pending: Buffer = Buffer.alloc(0);
    return {
      push: (chunk) => {
        const all = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const cut = all.lastIndexOf(0x0a) + 1;
        if (cut === 0 && all.length <= MAX_LINE_BYTES) {
          pending = all;
          return Buffer.alloc(0);
        }
        const whole = cut === 0 ? all.length : cut;
        pending = all.subarray(whole);
        return this.bytes(all.subarray(0, whole));
      },
      end: () => {
        const rest = this.bytes(pending);
        pending = Buffer.alloc(0);
        return rest;
      },
    };
  }
}

/** `base` with its messages and fields masked by whatever `mask()` returns at the time of each line. */
export function maskingLogger(base: Logger, mask: () => SecretMask | null): Logger {
  const pass =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (msg: string, fields?: LogFields): void => {
      const m = mask();
      if (m === null) base[level](msg, fields);
      else base[level](m.text(msg), fields === undefined ? undefined : m.deep(fields));
    };
  return {
    debug: pass('debug'),
    info: pass('info'),
    warn: pass('warn'),
    error: pass('error'),
    child: (fields) => maskingLogger(base.child(mask()?.deep(fields) ?? fields), mask),
  };
}
