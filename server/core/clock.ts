// The real clock, kept beside the Clock port so every composition root builds the same one.
// (No node:* import: Date and performance are globals.)

import type { Clock, Timers } from './ports';

export const systemClock: Clock = {
  nowMs: () => Date.now(),
  monoMs: () => performance.now(),
};

/** Real timers; `unref` is left to the caller's process-lifetime choices (services keep the process alive). */
export const systemTimers: Timers = {
  setTimeout: (fn, ms) => ({ id: setTimeout(fn, Math.max(0, ms)) }),
  clearTimeout: (h) => clearTimeout(h.id as ReturnType<typeof setTimeout>),
};
