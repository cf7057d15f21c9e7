// Sub-DAG steps (`call: <dag>`) as the engine sees them: the runner port that starts a child run and waits
// for its end, the child's deterministic run ID, and executing a call step through that port.

import type { Labels } from '../core/distributed';
import { formatDuration } from '../core/duration';
import { formatParam } from '../core/params';
import type { Clock } from '../core/ports';
import type { RunState, StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import { finish, finishStopped, isoNow, type StopReason } from './runStep';
import { appendFile } from '../store/fileCalls';

/** The run and step that call a sub-DAG. */
export interface SubDagParent {
  run_id: string;
  dag_name: string;
  step: string;
}

/** One child run to start and follow to its end. */
export interface SubDagRequest {
  parent: SubDagParent;
  /** The `call:` target: a DAG name (or file) of the DAG catalogue. */
  dagName: string;
  /** The child run's ID: `subRunId(parent run, step, attempt)`, fixed before the child starts. */
  runId: string;
  /** The step's `params`, as `KEY=value` or positional words. */
  params: string[];
  /** The step's own `worker_selector`, or null (the called DAG's selector then decides). */
  workerSelector: Labels | null;
  /**
   * Aborted when the parent stops (abort or timeout): the runner stops the child and still waits for its
   * final state (bounded) before it returns.
   */
  signal: AbortSignal;
  /** The call step's log files (absolute): a local child process's own output is appended there. */
  logFiles: { stdout: string; stderr: string };
}

/** How the child run ended. */
export interface SubDagResult {
  run_id: string;
  status: RunState;
  error: string | null;
}

/**
 * Starts a child run and resolves with its final state. Rejects with SubDagStartError when the child could
 * not be started at all (unknown DAG, refused dispatch); the step then fails with exactly that message.
 */
export type SubDagRunner = (r: SubDagRequest) => Promise<SubDagResult>;

/** Thrown by a SubDagRunner when no child run was started; the message is the call step's error. */
export class SubDagStartError extends Error {
  constructor(
    readonly dagName: string,
    message: string,
  ) {
    super(message);
    this.name = 'SubDagStartError';
  }
}

/** The step error when an engine has no runner to start children with (e.g. a runner built for tests). */
export const NO_SUB_DAG_RUNNER = 'call steps need a sub-DAG runner';

const HASH_HEX = 12;
const MAX_RUN_ID = 64;

/**
 * The run ID of the child a call step starts: the parent's run ID (cut to fit) and a short digest of parent
 * run, step and attempt. Deterministic, so the child of one attempt is always the same run; a new attempt of
 * the parent (retry, resume) starts a new child. Always matches RUN_ID_PATTERN.
 */
export function subRunId(parentRunId: string, stepName: string, attempt = 1): string {
  // Loaded on use: a run without call steps never needs node:crypto.
  const hash = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(`${parentRunId}\n${stepName}\n${attempt}`)
    .digest('hex')
    .slice(0, HASH_HEX);
  // The prefix keeps the family visible in run lists; only the pattern's characters survive the cut.
  const prefix = parentRunId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_RUN_ID - HASH_HEX - 1);
  return prefix ? `${prefix}-${hash}` : hash;
}

/** What executing one call step needs; `status` is updated in place and `onChange` called after each update. */
export interface CallStepRun {
  step: StepSpec;
  status: StepStatus;
  parent: SubDagParent;
  /** The parent's attempt: part of the child's run ID. */
  attempt: number;
  runner: SubDagRunner | undefined;
  files: { stdout: string; stderr: string };
  clock: Clock;
  /** Aborted (with a StopReason) when the parent run stops. */
  stop: AbortSignal;
  onChange(): void;
}

/**
 * Runs a call step: the step is `running` while its child runs and ends `succeeded` when the child succeeded
 * (or partially succeeded), else `failed` with the child's state and error; a parent that stops stops the
 * child. Never throws.
 */
export async function runCallStep(run: CallStepRun): Promise<StepStatus['status']> {
  const { status, step } = run;
  Object.assign(status, {
    status: 'running',
    started_at: isoNow(run.clock),
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    output: null,
  } satisfies Partial<StepStatus>);
  run.onChange();

  const dagName = step.call!;
  const runId = subRunId(run.parent.run_id, step.name, run.attempt);
  try {
    // Both log files exist from the start, as for a command step, so the logs view always finds them.
    await appendFile(run.files.stdout, '');
    await appendFile(run.files.stderr, '');
    if (!run.runner) return finish(run, 'failed', NO_SUB_DAG_RUNNER);
    if (run.stop.aborted) return finishStopped(run, run.stop.reason as StopReason);
    await appendFile(run.files.stdout, `started sub-DAG ${dagName} run ${runId}\n`);

    const child = new AbortController();
    const forward = () => child.abort(run.stop.reason);
    run.stop.addEventListener('abort', forward, { once: true });
    let timedOut: string | null = null;
    const timeoutSec = step.timeout_sec;
    const timer =
      timeoutSec !== null && timeoutSec > 0
        ? setTimeout(() => {
            timedOut = `timed out after ${formatDuration(timeoutSec * SECOND)}`;
            child.abort({ kind: 'timed_out', message: timedOut } satisfies StopReason);
          }, timeoutSec * SECOND)
        : null;
    let result: SubDagResult;
    try {
      result = await run.runner({
        parent: run.parent,
        dagName,
        runId,
        params: (step.params ?? []).map(formatParam),
        workerSelector: step.worker_selector,
        signal: child.signal,
        logFiles: run.files,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await appendFile(run.files.stdout, `sub-DAG ${dagName} run ${runId} did not start: ${message}\n`);
      return finish(run, 'failed', err instanceof SubDagStartError ? message : `runner error: ${message}`);
    } finally {
      if (timer) clearTimeout(timer);
      run.stop.removeEventListener('abort', forward);
    }

    await appendFile(run.files.stdout, `sub-DAG ${dagName} run ${result.run_id} ended ${result.status}\n`);
    if (result.status === 'succeeded' || result.status === 'partially_succeeded') {
      status.exit_code = 0;
      return finish(run, 'succeeded', null);
    }
    if (run.stop.aborted) return finishStopped(run, run.stop.reason as StopReason);
    if (timedOut !== null) return finish(run, 'failed', timedOut);
    const detail = result.error ? `: ${result.error}` : '';
    return finish(run, 'failed', `sub-DAG ${dagName} run ${result.run_id} ended ${result.status}${detail}`);
  } catch (e) {
    return finish(run, 'failed', `runner error: ${e instanceof Error ? e.message : String(e)}`);
  }
}
