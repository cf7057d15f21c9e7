// Dagu's outcome rules: when a dependent may run, whether a failed attempt is retried, whether a step repeats,
// the final run status, the exit code of `dagu start`, and which handlers run. Pure decisions over facts the
// runner gathered (research note §1.3, §3.2–§3.4, §3.8, §3.10, §8.2, §8.3).

import type {
  ConditionSpec,
  ContinueOnSpec,
  RepeatPolicySpec,
  RunState,
  StepRetryPolicy,
  StepState,
} from '../types';

/** What the outcome rules need to know of one finished (or unfinished) step. */
export interface StepFacts {
  status: StepState;
  exit_code: number | null;
  /** The step's `continue_on`; absent fields mean "off". */
  continue_on?: Partial<ContinueOnSpec> | null;
  /**
   * Whether the step's stdout log matched `continue_on.output` (the runner scans it with `matchLines(content,
   * patterns, { exact: false })` from ./conditions). Ignored when there are no output patterns.
   */
  output_matched?: boolean;
  /** A skipped step that a step-retry selection left out (it never blocks dependents). */
  skipped_by_retry?: boolean;
}

/** Dagu's `ShouldContinue`: may dependents run past this step's state? */
export function shouldContinue(step: StepFacts): boolean {
  const c = step.continue_on ?? {};
  switch (step.status) {
    case 'succeeded':
    case 'partially_succeeded':
      return true;
    case 'skipped':
      return c.skipped === true;
    case 'failed':
      if (c.failure === true) return true;
      if (step.exit_code !== null && (c.exit_code ?? []).includes(step.exit_code)) return true;
      return (c.output ?? []).length > 0 && step.output_matched === true;
    default:
      return false;
  }
}

/** Dagu's `ShouldMarkSuccess`: a continue rule matched and `mark_success` is set. */
export function shouldMarkSuccess(step: StepFacts): boolean {
  return shouldContinue(step) && step.continue_on?.mark_success === true;
}

// --- (a) dependency gating ---

/** What happens to a not-started step, given its dependencies. */
export type GateDecision =
  | { action: 'run' }
  | { action: 'wait' }
  /** The dependent becomes aborted; `reason` is its error ("upstream failed"), null when an upstream aborted. */
  | { action: 'abort'; reason: string | null }
  /** The dependent becomes skipped with "upstream skipped". */
  | { action: 'skip'; reason: string };

export const UPSTREAM_FAILED = 'upstream failed';
export const UPSTREAM_SKIPPED = 'upstream skipped';
export const UPSTREAM_REJECTED = 'upstream rejected';

/**
 * Dagu's `isReady`: dependencies are read in order and the first one that blocks decides. Aborted or skipped
 * dependents must themselves be propagated to their own dependents by the caller (Dagu spreads them).
 */
export function gateDependent(deps: readonly StepFacts[]): GateDecision {
  for (const dep of deps) {
    switch (dep.status) {
      case 'succeeded':
      case 'partially_succeeded':
        continue;
      case 'failed':
        if (shouldContinue(dep)) continue;
        return { action: 'abort', reason: UPSTREAM_FAILED };
      case 'skipped':
        if (dep.skipped_by_retry === true || shouldContinue(dep)) continue;
        return { action: 'skip', reason: UPSTREAM_SKIPPED };
      case 'aborted':
        return { action: 'abort', reason: null };
      case 'rejected':
        return { action: 'abort', reason: UPSTREAM_REJECTED };
      default:
        return { action: 'wait' };
    }
  }
  return { action: 'run' };
}

// --- (b) a failed attempt: retry or finish ---

/** Facts about one attempt that returned an error. */
export interface FailedAttemptFacts {
  /** The exit code; null when unknown (Dagu then counts it as 1 for the retry rule). */
  exit_code: number | null;
  /** The step's own `timeout_sec` expired (`step`), or the DAG's (`dag`); null otherwise. */
  timed_out: 'step' | 'dag' | null;
  /** The run was cancelled (stop request, signal, cancelling error). */
  canceled: boolean;
  /** Retries already done (0 after the first attempt). */
  retry_count: number;
}

export type AttemptDecision =
  | { action: 'retry'; retry_count: number; delay_ms: number }
  /**
   * The step ends. `sets_run_error`: the attempt's error becomes the run error (Dagu's lastError).
   * `status` is `succeeded` only through `continue_on.mark_success`.
   */
  | { action: 'finish'; status: 'failed' | 'aborted' | 'succeeded'; sets_run_error: boolean };

/**
 * Dagu's `handleNodeExecutionError` for an attempt that failed. Timeouts and cancels are never retried; a step
 * timeout stays failed even with `mark_success`; `mark_success` applies only once no retry is left.
 */
export function decideFailedAttempt(
  facts: FailedAttemptFacts,
  policy: StepRetryPolicy | null,
  retryExitCodes: readonly number[],
  step: Omit<StepFacts, 'status' | 'exit_code'>,
): AttemptDecision {
  if (facts.timed_out === 'step') return { action: 'finish', status: 'failed', sets_run_error: true };
  if (facts.timed_out === 'dag') return { action: 'finish', status: 'aborted', sets_run_error: true };
  if (facts.canceled) return { action: 'finish', status: 'aborted', sets_run_error: false };
  const limit = policy?.limit ?? 0;
  if (limit > facts.retry_count) {
    const code = facts.exit_code ?? 1;
    const retryable = retryExitCodes.length > 0 ? retryExitCodes.includes(code) : code !== 0;
    if (!retryable) return { action: 'finish', status: 'failed', sets_run_error: true };
    const retryCount = facts.retry_count + 1;
    return {
      action: 'retry',
      retry_count: retryCount,
      delay_ms: backoffDelayMs(
        policy?.interval_sec ?? 0,
        policy?.backoff ?? 0,
        policy?.max_interval_sec ?? null,
        retryCount - 1,
      ),
    };
  }
  if (shouldMarkSuccess({ ...step, status: 'failed', exit_code: facts.exit_code })) {
    return { action: 'finish', status: 'succeeded', sets_run_error: false };
  }
  return { action: 'finish', status: 'failed', sets_run_error: true };
}

/**
 * Dagu's `CalculateBackoffInterval`: `interval × backoff^attempt` when backoff > 0, capped by a positive
 * `max_interval_sec`; the plain interval otherwise. Milliseconds.
 */
export function backoffDelayMs(
  intervalSec: number,
  backoff: number,
  maxIntervalSec: number | null,
  attempt: number,
): number {
  const intervalMs = intervalSec * 1000;
  if (!(backoff > 0)) return intervalMs;
  const ms = intervalMs * Math.pow(backoff, Math.max(0, attempt));
  const maxMs = (maxIntervalSec ?? 0) * 1000;
  return maxMs > 0 && ms > maxMs ? maxMs : Math.floor(ms);
}

// --- (c) repeat ---

/** The condition a repeat policy evaluates after each execution, or null when it has none. */
export function repeatCondition(policy: RepeatPolicySpec): ConditionSpec | null {
  if (!policy.condition) return null;
  if (policy.condition_eval) {
    return {
      condition: null,
      eval: policy.condition,
      expected: policy.expected,
      negate: false,
      unbounded: true,
    };
  }
  return { condition: policy.condition, eval: null, expected: policy.expected, negate: false };
}

/** Facts after one execution of a step with a repeat policy. */
export interface RepeatFacts {
  /** Executions done so far, this one included (aborted executions do not count). */
  executions: number;
  /** The execution returned no error. */
  succeeded: boolean;
  exit_code: number | null;
  /** The step ended aborted, or the run is cancelled: never repeat. */
  stopped: boolean;
  /**
   * The result of {@link repeatCondition} when the policy has one: true only when met (an evaluation error
   * counts as not met). Evaluate it only when {@link repeatNeedsCondition} says so.
   */
  condition_met?: boolean;
}

/** True when the runner must evaluate the repeat condition before calling {@link decideRepeat}. */
export function repeatNeedsCondition(policy: RepeatPolicySpec, executions: number): boolean {
  if (policy.mode === null || !policy.condition) return false;
  return !(policy.limit !== null && policy.limit > 0 && executions >= policy.limit);
}

export type RepeatDecision = { repeat: false } | { repeat: true; delay_ms: number };

/**
 * Dagu's `shouldRepeatNode`: the limit (total executions) first; then `while` repeats while the condition is
 * met / the exit code is listed / the step succeeded, and `until` the opposite. The wait before the next
 * execution is `interval × backoff^executions` (so a backoff multiplies even the first wait), capped.
 */
export function decideRepeat(policy: RepeatPolicySpec, facts: RepeatFacts): RepeatDecision {
  if (policy.mode === null || facts.stopped) return { repeat: false };
  if (policy.limit !== null && policy.limit > 0 && facts.executions >= policy.limit) return { repeat: false };
  let met: boolean;
  if (policy.condition) met = facts.condition_met === true;
  else if (policy.exit_code.length > 0)
    met = facts.exit_code !== null && policy.exit_code.includes(facts.exit_code);
  else met = facts.succeeded;
  const again = policy.mode === 'while' ? met : !met;
  if (!again) return { repeat: false };
  return {
    repeat: true,
    delay_ms: backoffDelayMs(policy.interval_sec, policy.backoff, policy.max_interval_sec, facts.executions),
  };
}

// --- (d) the run status ---

/** What decides a run's status. */
export interface RunFacts {
  steps: readonly StepFacts[];
  /** Set only by a DAG-precondition evaluation error (Dagu's failed flag). */
  failed_flag: boolean;
  /** The run was cancelled: stop, signal, DAG precondition not met, init failed, step precondition error. */
  canceled: boolean;
  /**
   * The run error (Dagu's lastError) is set: a step failure (even one allowed to continue, not one rescued by
   * mark_success), a timeout, a failed handler or init, a pre-start error, a deadlock.
   */
  run_error: boolean;
  /** Every step that can still run has ended (a `not_started` step is then one that never will). */
  finished: boolean;
}

/** Dagu's `Runner.Status`, rules in order (research note §8.2). */
export function decideRunStatus(f: RunFacts): RunState {
  if (f.failed_flag) return 'failed';
  const allGood = f.steps.every(
    (s) => s.status === 'succeeded' || s.status === 'skipped' || s.status === 'partially_succeeded',
  );
  if (f.canceled && !allGood) return 'aborted';
  if (f.steps.some((s) => s.status === 'running' || s.status === 'retrying')) return 'running';
  if (!f.finished && f.steps.some((s) => s.status === 'not_started')) return 'running';
  // A rejected approval ends the run rejected, before any other open wait (Dagu's order).
  if (f.steps.some((s) => s.status === 'rejected')) return 'rejected';
  // Open human tasks and approvals: the run pauses at a waiting checkpoint until they are answered.
  if (f.steps.some((s) => s.status === 'waiting')) return 'waiting';
  if (isPartialSuccess(f.steps)) return 'partially_succeeded';
  if (f.run_error) return 'failed';
  return 'succeeded';
}

/** Dagu's `isPartialSuccess`: no blocking failure, some success, and some allowed failure or partial step. */
export function isPartialSuccess(steps: readonly StepFacts[]): boolean {
  if (steps.some((s) => s.status === 'failed' && !shouldContinue(s))) return false;
  let succeeded = false;
  let allowedFailure = false;
  for (const s of steps) {
    if (s.status === 'succeeded') succeeded = true;
    else if (s.status === 'partially_succeeded') {
      succeeded = true;
      allowedFailure = true;
    } else if (s.status === 'failed' && shouldContinue(s) && !shouldMarkSuccess(s)) allowedFailure = true;
  }
  return succeeded && allowedFailure;
}

// --- (e) the exit code of `dagu start` ---

/**
 * Dagu exits 1 when the run returned an error (the run error), else 0: succeeded 0, failed 1, aborted 0 (stop,
 * DAG precondition not met) unless an error was set (init failed, step precondition evaluation error); a
 * rejected run 1. A partial success exits 1 through the failure that made it (a failed step let through by
 * `continue_on`), and 0 when no step of the run failed: a call step whose child run partially succeeded
 * (upstream's subdag_test PartialSuccessParallel and PartialSuccessSubDAG run without an error).
 */
export function startExitCode(status: RunState, runError: boolean): 0 | 1 {
  if (runError || status === 'failed' || status === 'rejected') return 1;
  return 0;
}

// --- (f) handlers ---

export type HandlerName = 'success' | 'failure' | 'abort' | 'exit';

/** What decides which handlers run after the steps. */
export interface HandlerFacts {
  /** The run status once the steps are done (before any handler ran). */
  status: RunState;
  /** A root run (not a sub-DAG run). */
  is_root: boolean;
  /** DAG-level `retry_policy.limit` (0 when none) and the automatic retries already done. */
  auto_retry_limit: number;
  auto_retry_count: number;
}

/**
 * Handlers to run after the steps, in order: `success` for succeeded and partially_succeeded, `failure` for
 * failed unless a root run still has DAG-level retries left, `abort` for aborted; then `exit` always. A queued
 * or running status runs none. Declared-or-not is the caller's filter. A handler that fails sets the run
 * error, so re-decide the status afterwards.
 */
export function handlersToRun(f: HandlerFacts): HandlerName[] {
  switch (f.status) {
    case 'succeeded':
    case 'partially_succeeded':
      return ['success', 'exit'];
    case 'failed': {
      const retriesLeft = f.is_root && f.auto_retry_limit > 0 && f.auto_retry_count < f.auto_retry_limit;
      return retriesLeft ? ['exit'] : ['failure', 'exit'];
    }
    case 'aborted':
      return ['abort', 'exit'];
    // Dagu runs the failure handler for a rejected run.
    case 'rejected':
      return ['failure', 'exit'];
    default:
      return [];
  }
}

/** Whether `init` runs: only when the run was not cancelled by the DAG preconditions (or anything else). */
export function shouldRunInit(canceled: boolean): boolean {
  return !canceled;
}
