// The real clock, kept beside the Clock port so every composition root builds the same one.
// (No node:* import: Date and process.hrtime are globals. Not `performance`: its first use loads Node's
// perf_hooks modules, a cost every run process would pay at start.)

import type { Clock, Timers } from './ports';

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monoMs: () => Number(process.hrtime.bigint()) / 1e6,
};

/** Real timers; `unref` is left to the caller's process-lifetime choices (services keep the process alive). */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => ({ id: setTimeout(fn, Math.max(0, ms)) }),
  clearTimeout: (h) => clearTimeout(h.id as ReturnType<typeof setTimeout>),
};
