// Builds the real Logger: one JSON object per line (pino), or a readable line on a terminal.
//
// pino is loaded and set up on the first message the level lets through, not before: a quiet `dagu start`
// that succeeds logs nothing, and loading pino (with the worker-thread transport code it pulls in) would
// otherwise cost every run process a few milliseconds at start.

import type pino from 'pino';
import type { Logger, LogFields } from '../core/ports';
import { loadPino } from './loadPino';

export interface CreateLoggerOptions {
  level: 'debug' | 'info' | 'warn' | 'error';
  format: 'json' | 'text' | 'auto';
  /** Defaults to stderr, so that command output on stdout stays machine-readable. */
  stream?: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  base?: LogFields;
}

type Level = CreateLoggerOptions['level'];

const RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(opts: CreateLoggerOptions): Logger {
  let root: pino.Logger | null = null;
  const getRoot = (): pino.Logger => {
    root ??= buildPino(opts);
    return root;
  };
  return wrap(getRoot, RANK[opts.level], opts.base ?? {});
}

function buildPino(opts: CreateLoggerOptions): pino.Logger {
  const pinoLib = loadPino();
  const stream = opts.stream ?? process.stderr;
  const text = opts.format === 'text' || (opts.format === 'auto' && Boolean(stream.isTTY));
  const destination = text
    ? textStream(stream)
    : pinoLib.destination({ fd: (stream as { fd?: number }).fd ?? 2, sync: true });
  return pinoLib(
    {
      level: opts.level,
      base: {},
      timestamp: pinoLib.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      messageKey: 'msg',
    },
    destination,
  );
}

// Children are made from the root with merged bindings, so a field set twice (`component`) appears once.
// A child's pino logger is made on its first message, like the root.
function wrap(getRoot: () => pino.Logger, minRank: number, bindings: LogFields): Logger {
  let p: pino.Logger | null = null;
  const get = (): pino.Logger => {
    if (p === null) {
      const root = getRoot();
      p = Object.keys(bindings).length > 0 ? root.child(bindings) : root;
    }
    return p;
  };
  const emit = (level: Level, msg: string, fields: LogFields | undefined) => {
    if (RANK[level] < minRank && level !== 'error') return;
    try {
      // A field the logger is bound with, passed again (`run_id`), would appear twice in the line: such a
      // line goes through the root with the fields merged, the call's value winning.
      if (fields !== undefined && Object.keys(fields).some((k) => k in bindings))
        getRoot()[level]({ ...bindings, ...fields }, msg);
      else get()[level](fields ?? {}, msg);
    } catch {
      // The line could not be written: a full disk under a run's process log makes every write fail with
      // ENOSPC. Logging must never be what stops a run or a service, so the line is dropped.
    }
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => wrap(getRoot, minRank, { ...bindings, ...fields }),
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
