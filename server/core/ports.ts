// Small interfaces through which time and logging reach the pure core and the services.
// `server/cli` builds the real ones; tests build fakes.

/** Time source. `nowMs` is wall-clock (display, slot times); `monoMs` is monotonic (every timing decision). */
export interface Clock {
  nowMs(): number;
  monoMs(): number;
}

export type LogFields = Record<string, unknown>;

/** Structured logger; `child` adds fields such as `component`, `instance`, `dag`, `run_id`. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** A logger that drops everything; for tests and library callers that do not care. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return silentLogger;
  },
};

/** Timer handle returned by a Timers port. */
export type TimerHandle = { readonly id: unknown };

/** Timers, injected so services can run on a fake clock in tests. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}
