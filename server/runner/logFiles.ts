// File names of an attempt's step logs. Step names come from DAG files, so they are reduced to a safe
// character set before they become part of a path, and made unique (a handler may share a step's name).

import { join } from 'node:path';

/** Absolute paths (for the process) and paths relative to the logs root (for the status record). */
export interface StepLogFiles {
  stdout: string;
  stderr: string;
  script: string;
  stdoutRelative: string;
  stderrRelative: string;
}

/** Hands out one set of log file names per step of an attempt. */
export class LogFileNames {
  private readonly used = new Set<string>();

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
      stdoutRelative: rel(out),
      stderrRelative: rel(err),
    };
  }
}
