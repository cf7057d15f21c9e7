// Every run state and every step state, in life-cycle order: the lists behind the RunState and StepState
// types, for what must name them all (filter menus, the worker report schema, notes on disk). Pure, so the
// browser bundle can import it.

import type { RunState, StepState } from './types';

export const RUN_STATES = [
  'queued',
  'running',
  'waiting',
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
  'rejected',
] as const satisfies readonly RunState[];

export const STEP_STATES = [
  'not_started',
  'running',
  'retrying',
  'waiting',
  'rejected',
  'succeeded',
  'partially_succeeded',
  'failed',
  'skipped',
  'aborted',
] as const satisfies readonly StepState[];

// Each list names every member of its type: a state added to the type and not here fails to compile.
type Missing<T, L extends readonly unknown[]> = Exclude<T, L[number]>;
const allRunStates: Missing<RunState, typeof RUN_STATES> extends never ? true : false = true;
const allStepStates: Missing<StepState, typeof STEP_STATES> extends never ? true : false = true;
void allRunStates;
void allStepStates;
