// Every run state, in life-cycle order, and every trigger type; pure, so the browser bundle can import them
// for filter menus.

import type { TriggerType } from '../core/types';

export { RUN_STATES } from '../core/runStates';

/** Every way a run comes to be, as its record's `trigger_type` says (the run list's trigger filter). */
export const TRIGGER_TYPES: readonly TriggerType[] = [
  'scheduler',
  'manual',
  'catchup',
  'retry',
  'subdag',
  'queue',
];
