// File names of an attempt's step logs. Step names come from DAG files, so they are reduced to a safe
// character set before they become part of a path, and made unique (a handler may share a step's name).

import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config/types';
import { resolveValue } from '../core/dag/values';
import type { LogFields, Logger } from '../core/ports';
import type { DagSpec } from '../core/types';
import * as files from '../store/fileCalls';
import { expandHome } from './workDir';

/**
 * The DAG's `log_dir` as an absolute directory (env-expanded with the host environment; a relative one is
 * taken from the DAG file's directory, else the DAGs directory), or null when it has none. Its runs' logs go
 * to `<that>/<dag>/<run id>/<attempt>/`.
 */
export function dagLogRoot(
  dag: Pick<DagSpec, 'log_dir' | 'file' | 'source_file'>,
  config: Pick<Config, 'paths'>,
  env: NodeJS.ProcessEnv,
): string | null {
  if (!dag.log_dir) return null;
  const hostEnv = Object.fromEntries(
    Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])),
  ) as Record<string, string>;
  const text = expandHome(resolveValue(dag.log_dir, { hostEnv }, 'hostValue'), hostEnv.HOME);
  // A local DAG run from a temp copy: the directory of the file it was written in.
  const authored = dag.source_file ?? dag.file;
  return resolve(authored ? dirname(authored) : config.paths.dags_dir, text);
}

/** Absolute paths (for the process) and paths relative to the logs root (for the status record). */
export interface StepLogFiles {
  stdout: string;
  stderr: string;
  script: string;
  /** The step's `$DAGU_OUTPUT_FILE` (declared outputs), absolute. */
  output: string;
  stdoutRelative: string;
  stderrRelative: string;
}

/** The run's own log in an attempt's log directory, when the run has no process log (see executeRun). */
export const RUN_LOG_FILE = '_run.log';

/** Hands out one set of log file names per step of an attempt. */
export class LogFileNames {
  /** `_run` is taken by the run's own log (RUN_LOG_FILE). */
  private readonly used = new Set<string>(['_run']);

  /**
   * @param logDir absolute directory of the attempt's logs
   * @param relativeDir the same directory relative to the logs root (`RunStatus.log_dir`)
   */
  constructor(
    private readonly logDir: string,
    private readonly relativeDir: string,
  ) {}

  /** `merged` (`log_output: merged`): stdout and stderr share one `<name>.log` file. */
  allocate(stepName: string, merged = false): StepLogFiles {
    const base =
      stepName
        .replace(/[^A-Za-z0-9_.-]/g, '_')
        .replace(/^\.+/, '_')
        .slice(0, 100) || 'step';
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base}-${n}`;
    this.used.add(name);
    const rel = (ext: string) => (this.relativeDir ? `${this.relativeDir}/${name}.${ext}` : `${name}.${ext}`);
    const [out, err] = merged ? ['log', 'log'] : ['out', 'err'];
    return {
      stdout: join(this.logDir, `${name}.${out}`),
      stderr: join(this.logDir, `${name}.${err}`),
      script: join(this.logDir, `${name}.script`),
      output: join(this.logDir, `${name}.output`),
      stdoutRelative: rel(out),
      stderrRelative: rel(err),
    };
  }
}

/**
 * The run's own log file, for a run that has no process log (a `dagu start` in a terminal): the engine's
 * lines at info level and above, one per line, appended. Lines logged before {@link open} are kept and
 * written then; after {@link discard} nothing is kept.
 */
export class RunLogWriter {
  private path: string | null = null;
  private pending: string[] = [];
  private off = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly now: () => string) {}

  /** Starts writing to `path` (created by the first line), with the lines kept so far. */
  open(path: string): void {
    this.path = path;
    const kept = this.pending.join('');
    this.pending = [];
    this.append(kept);
  }

  /** The run logs elsewhere (its process log): keep nothing. */
  discard(): void {
    this.off = true;
    this.pending = [];
  }

  line(level: string, msg: string, fields: LogFields): void {
    if (this.off) return;
    const extra = Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : '';
    const text = `${this.now()} ${level.toUpperCase()} ${msg}${extra}\n`;
    if (this.path === null) this.pending.push(text);
    else this.append(text);
  }

  /** Resolves once every line handed in so far is written (or failed to be: a log line never fails a run). */
  flush(): Promise<void> {
    return this.chain;
  }

  private append(text: string): void {
    const path = this.path;
    if (path === null || text === '') return;
    this.chain = this.chain.then(() => files.appendFile(path, text)).catch(() => undefined);
  }
}

/** A logger that also hands its info, warn and error lines (with all fields) to `sink`. */
export function teeLogger(base: Logger, sink: RunLogWriter, fields: LogFields = {}): Logger {
  const tee =
    (level: 'info' | 'warn' | 'error') =>
    (msg: string, more?: LogFields): void => {
      base[level](msg, more);
      sink.line(level, msg, { ...fields, ...more });
    };
  return {
    debug: (msg, more) => base.debug(msg, more),
    info: tee('info'),
    warn: tee('warn'),
    error: tee('error'),
    child: (more) => teeLogger(base.child(more), sink, { ...fields, ...more }),
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '{}';
  }
}
