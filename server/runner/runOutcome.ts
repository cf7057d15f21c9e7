// The final state of a run from its steps' states (which steps may start is in core/graph).

import type { RunState, StepSpec, StepStatus } from '../core/types';

/**
 * The state of a run whose steps are all done and that was not aborted: succeeded when every step
 * succeeded, partially_succeeded when every failed step had `continue_on.failure`, failed otherwise.
 */
export function finalRunState(
  specs: readonly StepSpec[],
  steps: readonly StepStatus[],
  timedOut: boolean,
): RunState {
  if (timedOut) return 'failed';
  const byName = new Map(specs.map((s) => [s.name, s]));
  const failed = steps.filter((s) => s.status === 'failed' || s.status === 'aborted');
  if (failed.length === 0) return 'succeeded';
  return failed.every((s) => s.status === 'failed' && byName.get(s.name)?.continue_on.failure)
    ? 'partially_succeeded'
    : 'failed';
}
