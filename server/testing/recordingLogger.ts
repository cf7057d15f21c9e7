// A Logger for unit tests that keeps every line, so a test can assert what was logged and at which level.

import type { LogFields, Logger } from '../core/ports';

/** One logged line. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  fields: LogFields;
}

/** A Logger that records every line, child fields merged in. */
export class RecordingLogger implements Logger {
  constructor(
    readonly lines: LogLine[] = [],
    private readonly base: LogFields = {},
  ) {}

  debug(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'debug', msg, fields: { ...this.base, ...fields } });
  }
  info(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'info', msg, fields: { ...this.base, ...fields } });
  }
  warn(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'warn', msg, fields: { ...this.base, ...fields } });
  }
  error(msg: string, fields?: LogFields): void {
    this.lines.push({ level: 'error', msg, fields: { ...this.base, ...fields } });
  }
  child(fields: LogFields): Logger {
    return new RecordingLogger(this.lines, { ...this.base, ...fields });
  }

  /** Lines whose message contains `text`. */
  find(text: string): LogLine[] {
    return this.lines.filter((l) => l.msg.includes(text));
  }
}
