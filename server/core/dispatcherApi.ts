// What every dispatch path (CLI start/retry/resume, API start, sub-DAG steps, the scheduler's queue) asks
// of the dispatcher, and what it answers: the port the services share. The coordinator's Dispatcher class
// implements it over the shared stores; each process's composition root (server/cli) builds it.

import { defaultParamList } from './params';
import type { Labels, WaitReason } from './distributed';
import type { StepRetry } from './retryPath';
import { TERMINAL_RUN_STATES, type DagSpec, type RunStatus, type TriggerType } from './types';

/** What a worker is asked to do with a run. `resume` runs again only the steps that did not succeed. */
export type TaskOperation = 'start' | 'retry' | 'resume';

export interface DispatchParams {
  dag: DagSpec;
  runId: string;
  operation: TaskOperation;
  triggerType: TriggerType;
  params: string[];
  scheduleTime: string | null;
  /** Resolved selector: a `call:` step's own, else the DAG's, else `{}` (any worker). */
  selector: Labels;
  /** For retry/resume: the terminal status being retried (a new attempt is created). */
  previous: RunStatus | null;
  parent: { run_id: string; dag_name: string; step: string } | null;
  /**
   * The scheduler's queue handing over a run it holds (`queued`, same attempt): never held here, a refusal
   * only writes the waiting conditions on the run and leaves it queued.
   */
  fromQueue: boolean;
  /** A retry the scheduler starts under the DAG's retry_policy: the new attempt counts one more auto retry. */
  autoRetry?: boolean;
  /**
   * With `retry`: only this step of `previous` runs again (and its path below, for `--sub-run-id`); every
   * other step keeps the status it had. Absent: Dagu's retry of what did not succeed.
   */
  stepRetry?: StepRetry;
}

export type DispatchResult =
  | { outcome: 'dispatched' | 'held'; status: RunStatus }
  | {
      outcome: 'refused';
      reason: WaitReason;
      /** refusalError(): what the CLI prints and the API returns. */
      error: string;
      /** The queued run with its conditions (queue path), or null (no run was created). */
      status: RunStatus | null;
    };

export type CancelOutcome =
  /** It was waiting for a worker: now `aborted`, its task gone. */
  | { kind: 'aborted'; status: RunStatus }
  /** A worker runs it: the worker is told on its next heartbeat. */
  | { kind: 'requested'; status: RunStatus }
  | { kind: 'not_found' }
  /** Already finished, or not a distributed run. */
  | { kind: 'not_active'; status: RunStatus };

export interface DispatcherApi {
  dispatch(p: DispatchParams): Promise<DispatchResult>;
  /** Cancels a distributed run (held, pending, claimed or on a worker). */
  cancel(runId: string): Promise<CancelOutcome>;
}

/** Whether a DAG (or a `call:` step of it) goes to the workers rather than running on this host. */
export function isDistributed(
  dag: DagSpec,
  mode: 'local' | 'distributed',
  stepSelector: Labels | null = null,
): boolean {
  if (stepSelector !== null) return true;
  // Dagu's rule: `worker_selector: local` wins over everything; a selector dispatches; else the mode decides.
  // A build DAG never goes to a worker: its files and their locks are this host's (Dagu: local-only).
  if (dag.force_local || dag.type === 'build') return false;
  return dag.worker_selector !== null || mode === 'distributed';
}

/** The selector a dispatch uses: the step's, else the DAG's, else any worker. */
export function resolveSelector(dag: DagSpec, stepSelector: Labels | null = null): Labels {
  return { ...(stepSelector ?? dag.worker_selector ?? {}) };
}

/**
 * A new run of `dag` for the workers: a manual start with the DAG's default params and its own selector unless `over`
 * says otherwise (a sub-DAG's trigger and parent, the queue's slot time, a step's selector, ...).
 */
export function newRunDispatch(
  dag: DagSpec,
  runId: string,
  over: Partial<DispatchParams> = {},
): DispatchParams {
  return {
    dag,
    runId,
    operation: 'start',
    triggerType: 'manual',
    params: defaultParamList(dag.params),
    scheduleTime: null,
    selector: resolveSelector(dag),
    previous: null,
    parent: null,
    fromQueue: false,
    ...over,
  };
}

/** A retry or resume of the finished run `previous` for the workers: same run ID, params and slot, next attempt. */
export function nextAttemptDispatch(
  dag: DagSpec,
  previous: RunStatus,
  operation: 'retry' | 'resume',
  autoRetry = false,
): DispatchParams {
  return {
    dag,
    runId: previous.run_id,
    operation,
    triggerType: 'retry',
    params: previous.params,
    scheduleTime: previous.schedule_time,
    selector: resolveSelector(dag),
    previous,
    parent: null,
    fromQueue: false,
    autoRetry,
  };
}

/**
 * A new attempt of the ended run `previous` for the workers that runs only `retry.step` (and the path below
 * it): on a worker matching the selector the run had, under the parent it had. An error text when the run has
 * not ended or has no such step.
 */
export function stepRetryDispatch(
  dag: DagSpec,
  previous: RunStatus,
  retry: StepRetry,
  fallback: { selector: Labels | null; parent: DispatchParams['parent'] },
): DispatchParams | { error: string } {
  if (!TERMINAL_RUN_STATES.includes(previous.status))
    return {
      error: `attempt ${previous.attempt} of run ${previous.run_id} has not ended (${previous.status})`,
    };
  if (!previous.steps.some((s) => s.name === retry.step))
    return { error: `retry step not found: ${retry.step} in DAG run ${previous.run_id}` };
  return {
    ...nextAttemptDispatch(dag, previous, 'retry'),
    selector: previous.worker_selector ?? resolveSelector(dag, fallback.selector),
    parent: previous.parent ?? fallback.parent,
    stepRetry: { step: retry.step, downstream: retry.downstream, path: retry.path },
  };
}
