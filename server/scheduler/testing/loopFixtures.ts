// Small fixtures shared by the scheduling loops' unit tests: DAGs from YAML text, a logger that keeps its
// lines, and a scheduler state store in memory.

import { parseDag } from '../../core/dag/parseDag';
import type { LogFields, Logger } from '../../core/ports';
import type { DagSpec } from '../../core/types';
import { emptyState, type SchedulerState, type SchedulerStateStore } from '../schedulerState';

/** A DAG named `name` from top-level YAML lines (`schedule: "* * * * *"`); one step unless they add steps. */
export function dagFromYaml(name: string, yaml = ''): DagSpec {
  const steps = /^steps:/m.test(yaml) ? '' : `\nsteps:\n  - name: work\n    command: echo ${name}\n`;
  const text = `${yaml}${steps}`;
  const r = parseDag(text, { file: `/dags/${name}.yaml`, defaultName: name });
  if (!r.ok) throw new Error(`test DAG ${name} is invalid: ${JSON.stringify(r.errors)}`);
  return r.dag;
}

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

/** The scheduler's state kept in memory; `writes` holds a copy of every write. */
export class MemoryStateStore implements SchedulerStateStore {
  readonly writes: SchedulerState[] = [];
  constructor(public state: SchedulerState = emptyState()) {}

  async read(): Promise<SchedulerState> {
    return structuredClone(this.state);
  }

  async write(state: SchedulerState): Promise<void> {
    this.state = structuredClone(state);
    this.writes.push(this.state);
  }
}
