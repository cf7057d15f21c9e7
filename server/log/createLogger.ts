// Builds the real Logger: one JSON object per line (pino), or a readable line on a terminal.

import pino from 'pino';
import type { Logger, LogFields } from '../core/ports';

export interface CreateLoggerOptions {
  level: 'debug' | 'info' | 'warn' | 'error';
  format: 'json' | 'text' | 'auto';
  /** Defaults to stderr, so that command output on stdout stays machine-readable. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  base?: LogFields;
}

let logFd: number | null = null;

/** Sends every logger created afterwards to this descriptor (a pre-started run writing to its run's log). */
export function setLogFd(fd: number): void {
  logFd = fd;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const stream = opts.stream ?? process.stderr;
  const text =
    logFd === null && (opts.format === 'text' || (opts.format === 'auto' && Boolean(stream.isTTY)));
  const destination = text
    ? textStream(stream)
    : pino.destination({ fd: logFd ?? (stream as { fd?: number }).fd ?? 2, sync: true });
  const p = pino(
    {
      level: opts.level,
      base: {},
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      messageKey: 'msg',
    },
    destination,
  );
  return wrap(p, opts.base ?? {});
}

// Children are made from the root with merged bindings, so a field set twice (`component`) appears once.
function wrap(root: pino.Logger, bindings: LogFields = {}): Logger {
  const p = Object.keys(bindings).length > 0 ? root.child(bindings) : root;
  return {
    debug: (msg, fields) => p.debug(fields ?? {}, msg),
    info: (msg, fields) => p.info(fields ?? {}, msg),
    warn: (msg, fields) => p.warn(fields ?? {}, msg),
    error: (msg, fields) => p.error(fields ?? {}, msg),
    child: (fields) => wrap(root, { ...bindings, ...fields }),
  };
}

// A tiny pretty-printer for terminals: "12:00:01 INFO  scheduler  message  key=value".
function textStream(out: NodeJS.WritableStream): { write(line: string): void } {
  return {
    write(line: string) {
      let rec: Record<string, unknown>;
      try {
        rec = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const { time, level, msg, component, ...rest } = rec;
      const t = typeof time === 'string' ? time.slice(11, 19) : '';
      const extras = Object.entries(rest)
        .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
        .join(' ');
      const lvl = String(level).toUpperCase().padEnd(5);
      out.write(
        `${t} ${lvl} ${component ? `[${String(component)}] ` : ''}${String(msg)}${extras ? `  ${extras}` : ''}\n`,
      );
    },
  };
}
