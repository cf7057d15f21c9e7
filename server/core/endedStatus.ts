// The status the coordinator writes when it ends a run no worker will finish: failed (a hold ran out, a
// worker went silent) or aborted (cancelled before a worker took it).

import type { RunState, RunStatus } from './types';

/**
 * `s` ended as `state` with `error` at `nowIso`: conditions cleared (the run left `queued`), steps that were
 * running or retrying end with `stepError` (they will never report again).
 */
export function endedStatus(
  s: RunStatus,
  state: Extract<RunState, 'failed' | 'aborted'>,
  error: string,
  nowIso: string,
  stepError = error,
): RunStatus {
  const stepState = state === 'aborted' ? 'aborted' : 'failed';
  return {
    ...s,
    status: state,
    error,
    finished_at: nowIso,
    conditions: [],
    steps: s.steps.map((st) =>
      st.status === 'running' || st.status === 'retrying'
        ? { ...st, status: stepState, finished_at: nowIso, error: stepError }
        : st,
    ),
  };
}
