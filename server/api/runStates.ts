// Every run state, in life-cycle order; pure, so the browser bundle can import it for filter menus.

import type { RunState, TriggerType } from '../core/types';

export const RUN_STATES: readonly RunState[] = [
  'queued',
  'running',
  'waiting',
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
  'rejected',
];

/** Every way a run comes to be, as its record's `trigger_type` says (the run list's trigger filter). */
export const TRIGGER_TYPES: readonly TriggerType[] = [
  'scheduler',
  'manual',
  'catchup',
  'retry',
  'subdag',
  'queue',
];
