// Every run state, in life-cycle order; pure, so the browser bundle can import it for filter menus.

import type { RunState } from '../core/types';

export const RUN_STATES: readonly RunState[] = [
  'queued',
  'running',
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
];
