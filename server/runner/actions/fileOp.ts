// What every `file.*` operation shares: the context it runs in and the error it fails with.

import type { FileConfig } from './fileConfig';
import { fsErrorText } from './fsErrorText';
import type { SinkWriter } from './sinkWriter';

/** A `file.*` operation that failed; the message is the step's error. */
export class FileOpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileOpError';
  }
}

/** Where an operation runs: its config, the step's paths and stop signal, and its stdout. */
export interface FileOpContext {
  cfg: FileConfig;
  /** The absolute path a `with` path names (relative ones start at the step's working directory). */
  resolve(raw: string): string;
  signal: AbortSignal;
  stdout: SinkWriter;
}

/** A system error as Dagu words it: `<what>: <syscall> <path>: <reason>`. */
export function failed(what: string, e: unknown): FileOpError {
  return new FileOpError(`${what}: ${fsErrorText(e)}`);
}
