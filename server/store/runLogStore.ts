// The logs of run attempts (each step's stdout and stderr, the run's own log) behind one interface, so that
// the console reads them the same way from the data directory's files and from the database's chunks. A
// log only grows: bytes are appended at its end and never change, so a range read once stays true, and an
// append can name the offset it writes at, which makes a retried append harmless.

import { assertDagName, assertRunId } from '../core/names';
import { isAttemptNumber } from './runValidation';

/**
 * Names of log files in an attempt's directory, as the runner makes them (runner/logFiles.ts): a step's
 * `<name>.out`, `<name>.err` or merged `<name>.log`, the run's `_run.log` and its process's `process.log`.
 * Never a path: no separator, no leading dot.
 */
export const RUN_LOG_NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,159}\.(out|err|log)$/;

/** One log file of a run attempt. */
export interface RunLogRef {
  dag_name: string;
  run_id: string;
  attempt: number;
  /** The file's name in the attempt's log directory (RUN_LOG_NAME_PATTERN). */
  name: string;
  /**
   * For a run of a DAG with its own `log_dir`: that directory, where the run wrote this log (files only;
   * the logs root otherwise). The database keys a log by run, attempt and name alone.
   */
  log_root?: string;
}

/** How much of a log there is now. */
export interface RunLogStat {
  size: number;
  /** Lines, counting a last one that has no newline yet. */
  lines: number;
}

/** A log of a run, as `list` finds it. */
export interface RunLogEntry extends RunLogStat {
  attempt: number;
  name: string;
}

/**
 * A place to start reading lines from: `offset` is the start of line `line`, or lies inside an earlier line
 * than the one asked for (the reader then skips ahead); `line` is the number of newlines before `offset`.
 */
export interface LinePosition {
  offset: number;
  line: number;
}

/** The logs of runs: appended by the run process (or its shipper), read by the console. */
/** A log for createLogs: which one, and the bytes it starts with when it is new (none: empty). */
export interface NewRunLog {
  ref: RunLogRef;
  data?: Uint8Array;
}

export interface RunLogStore {
  /**
   * Appends `data` to the log at byte `offset`, which must be the log's size (an empty `data` at 0 makes an
   * empty log exist). An offset below the size is an append that was already stored (a retry after a lost
   * answer): nothing is written. Returns the log's size after. Throws LogGapError for an offset past the end.
   */
  append(ref: RunLogRef, offset: number, data: Uint8Array): Promise<number>;
  /**
   * Makes each log that does not exist yet, holding its `data` (none: empty), in one write where that saves
   * round trips: a run starts with several empty logs, and a worker's shipment carries the first bytes of
   * several. A log that exists keeps its bytes and gets none of these (an append at 0 is needed for a log
   * that exists empty). Returns each log's size afterwards, in the order of `logs` (they must name distinct
   * logs). All or none are made; throws RunNotFoundError (naming the first log's attempt) when an attempt is
   * not in the store.
   */
  createLogs?(logs: readonly NewRunLog[]): Promise<number[]>;
  /** The log's size and lines, or null when it does not exist (yet). */
  stat(ref: RunLogRef): Promise<RunLogStat | null>;
  /**
   * Bytes `start` up to `end` (exclusive, cut at the log's size), in pieces; nothing when the log does not
   * exist. A reader that stops early (`break`) releases what the read holds.
   */
  read(ref: RunLogRef, start: number, end: number): AsyncIterable<Uint8Array>;
  /** Where to start reading to reach line `line` (0-based) soon, without reading the log from the start. */
  seekLine(ref: RunLogRef, line: number): Promise<LinePosition>;
  /** Every log of every attempt of the run, by attempt then name (`log_root` as in RunLogRef). */
  list(run: { dag_name: string; run_id: string; log_root?: string }): Promise<RunLogEntry[]>;
}

/** Thrown by `append` when the offset is past the log's end: bytes before it were never stored. */
export class LogGapError extends Error {
  constructor(
    readonly ref: RunLogRef,
    readonly offset: number,
    readonly size: number,
  ) {
    super(`cannot append to ${describeRef(ref)} at byte ${offset}: it has ${size} bytes`);
    this.name = 'LogGapError';
  }
}

/**
 * Thrown by the file store when a log's file resolves (through a symbolic link) outside its run's log
 * directory: a request must never read a file of the host.
 */
export class LogOutsideError extends Error {
  constructor(readonly file: string) {
    super(`log path ${JSON.stringify(file)} is outside the logs directory`);
    this.name = 'LogOutsideError';
  }
}

/** Checks every name of a ref before it becomes part of a path or a key. */
export function assertRunLogRef(ref: RunLogRef): RunLogRef {
  assertDagName(ref.dag_name);
  assertRunId(ref.run_id);
  if (!isAttemptNumber(ref.attempt)) throw new RangeError(`invalid attempt ${String(ref.attempt)}`);
  if (!RUN_LOG_NAME_PATTERN.test(ref.name)) {
    throw new RangeError(`invalid log file name ${JSON.stringify(ref.name)}`);
  }
  return ref;
}

export function describeRef(ref: RunLogRef): string {
  return `log ${ref.name} of run ${ref.run_id} (attempt ${ref.attempt})`;
}

/** Newlines in `bytes`. */
export function countNewlines(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  for (let at = buffer.indexOf(0x0a); at !== -1; at = buffer.indexOf(0x0a, at + 1)) n++;
  return n;
}
