// Dagu 2.x's outcome rules (research note §1.3 and §8): whether a step may start given its dependencies, the
// final state of a run, and the exit code of `dagu start`. Pure.

import { matchLines } from '../core/dag/conditions';
import { decideRunStatus, gateDependent, startExitCode } from '../core/dag/outcome';
import type { RunState, RunStatus, StepSpec, StepStatus } from '../core/types';

/** What a not-started step does now, given its dependencies. */
export type Gate =
  | { kind: 'wait' }
  | { kind: 'ready' }
  /** It will never run: aborted (a dependency failed or was aborted) or skipped (a dependency skipped). */
  | { kind: 'blocked'; state: 'aborted' | 'skipped'; reason: string };

/** A finished dependency as gating sees it: its spec, status, and whether its `continue_on` matched. */
export interface DependencyView {
  spec: StepSpec;
  status: StepStatus;
  /** For a failed step: `continue_on` lets dependents run (failure, exit_code or output matched). */
  continues: boolean;
}

/**
 * Dagu's rule (core's gateDependent), dependency by dependency in `depends` order: a succeeded or partially
 * succeeded dependency lets through; a failed one only with a `continue_on` match, else the step is aborted
 * ("upstream failed"); a skipped one only with `continue_on.skipped`, else it is skipped ("upstream
 * skipped"); an aborted one aborts it; an unfinished one makes it wait.
 */
export function gateStep(deps: readonly DependencyView[]): Gate {
  const decision = gateDependent(
    deps.map((d) => ({
      status: d.status.status,
      exit_code: d.status.exit_code,
      // The failure rule was worked out with the stdout log in hand: hand core its verdict.
      continue_on: { ...d.spec.continue_on, failure: d.status.status === 'failed' ? d.continues : false },
    })),
  );
  switch (decision.action) {
    case 'run':
      return { kind: 'ready' };
    case 'wait':
      return { kind: 'wait' };
    case 'abort':
      return { kind: 'blocked', state: 'aborted', reason: decision.reason ?? 'upstream aborted' };
    case 'skip':
      return { kind: 'blocked', state: 'skipped', reason: decision.reason };
  }
}

/** Whether a failed step's `continue_on` lets its dependents run. `stdout` is read only when patterns exist. */
export function failureContinues(spec: StepSpec, status: StepStatus, stdout: () => string): boolean {
  const c = spec.continue_on;
  if (c.failure) return true;
  if (status.exit_code !== null && (c.exit_code ?? []).includes(status.exit_code)) return true;
  const patterns = c.output ?? [];
  if (patterns.length === 0) return false;
  // Dagu scans the stdout log line by line (bufio.Scanner) for a substring or an RE2 `re:` match.
  return matchLines(stdout(), patterns, { exact: false });
}

/** What decides a run's state besides its steps (research note §8.2). */
export interface RunFacts {
  /** A DAG precondition could not be evaluated. */
  failed: boolean;
  /** Cancelled: a stop, a DAG precondition not met, a failed `init`, a step precondition evaluation error. */
  cancelled: boolean;
  /** The run error is set: any step failure, a timeout, a failed handler, a pre-start error. */
  error: boolean;
  /** Per failed step name: its `continue_on` matched (and whether `mark_success` applied is in its status). */
  continues: ReadonlyMap<string, boolean>;
}

/** The final state of a run whose steps all ended, by Dagu's rules in order (core's decideRunStatus). */
export function finalRunState(steps: readonly StepStatus[], facts: RunFacts): RunState {
  return decideRunStatus({
    steps: steps.map((s) => ({
      status: s.status,
      exit_code: s.exit_code,
      continue_on: { failure: facts.continues.get(s.name) === true },
    })),
    failed_flag: facts.failed,
    canceled: facts.cancelled,
    run_error: facts.error,
    finished: true,
  });
}

/**
 * The exit code of `dagu start` for a finished run (research note §8.3): 1 when the run carries an error
 * (failed, or partially succeeded or aborted after a step or handler failed, such as `init`), 0 when it
 * succeeded, was stopped cleanly (a stop request, a DAG precondition not met), partially succeeded only
 * through a child run, or waits (even after its `wait` handler failed).
 */
export function runExitCode(status: Pick<RunStatus, 'status' | 'steps' | 'handlers'>): 0 | 1 {
  // The run error is not stored as such; a failed step or handler (init included) is where it came from.
  // Not a failed `wait` handler: Dagu logs that error and leaves the run waiting without one (runner.go).
  const { wait: _wait, ...handlers } = status.handlers;
  const parts = [...status.steps, ...Object.values(handlers)];
  return startExitCode(
    status.status,
    parts.some((s) => s?.status === 'failed'),
  );
}
