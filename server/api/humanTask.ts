// Completing a human task (`dagu human-task complete`, POST /api/v1/runs/:id/human-tasks/:step/complete): the
// input is checked against the form the run recorded when the task opened (not the DAG file as it is now),
// the step becomes `succeeded` with its canonical input and generated outputs, and once no task of the run is
// open any more the run is resumed: a detached `dagu resume` on this host, or a resume handed to the workers.
// A repeat with the same input succeeds without changing anything; one with different input is a conflict.

import path from 'node:path';
import { isDistributed, nextAttemptDispatch } from '../core/dispatcherApi';
import {
  canonicalHumanTaskInput,
  canonicalJson,
  humanTaskOutputs,
  type HumanTaskInput,
} from '../core/humanTask';
import type { RunStatus, StepStatus } from '../core/types';
import { HttpError } from '../core/httpError';
import { BadRequestError, ConflictError, NotFoundError } from './errors';
import { recordEvent } from './recordEvent';
import { requireRunDag } from './requireDag';
import { getRun } from './runs';
import type { Services } from './services';
import { dispatchError, refusalError } from './startDag';

/** How a completion went; `message` is the line `dagu human-task complete` prints. */
export interface CompleteHumanTaskResult {
  outcome: 'completed_waiting' | 'completed_resumed' | 'already_completed' | 'already_completed_resumed';
  message: string;
  status: RunStatus;
}

/** The resume could not be started after the completion was stored (a repeat of the command retries it). */
export class ResumeFailedError extends HttpError {
  constructor(message: string) {
    super(500, 'resume_failed', message);
    this.name = 'ResumeFailedError';
  }
}

/** The open (or completed) human task of a run with this explicit step id, or null. */
function humanStep(run: RunStatus, stepId: string): StepStatus | null {
  return run.steps.find((s) => s.human_task?.id === stepId) ?? null;
}

export async function completeHumanTask(
  svc: Services,
  req: { runId: string; dagName?: string; step: string; input: HumanTaskInput },
): Promise<CompleteHumanTaskResult> {
  const stepId = req.step.trim();
  const run = await getRun(svc, req.runId);
  if (req.dagName !== undefined && run.dag_name !== req.dagName)
    throw new NotFoundError(`DAG ${req.dagName} has no run ${JSON.stringify(req.runId)}`);
  const step = humanStep(run, stepId);
  if ((!step || !step.human_task) && run.status !== 'waiting')
    throw new ConflictError(
      `run ${run.run_id} is not waiting (status: ${run.status}); it has no open human task ${JSON.stringify(stepId)}`,
    );
  if (!step || !step.human_task)
    throw new NotFoundError(`run ${run.run_id} has no human task ${JSON.stringify(stepId)}`);
  const task = step.human_task;
  const canonical = canonicalHumanTaskInput(stepId, task.form, req.input);
  if (!canonical.ok) throw new BadRequestError(canonical.error);

  if (task.input !== undefined) {
    if (canonicalJson(task.input) !== canonicalJson(canonical.input))
      throw new ConflictError(`human task ${stepId} was already completed with different input`);
    if (needsResume(run)) {
      await startResume(svc, run, stepId);
      return {
        outcome: 'already_completed_resumed',
        message: `Human task ${stepId} was already completed; DAG-run queued for resume.`,
        status: run,
      };
    }
    return {
      outcome: 'already_completed',
      message: `Human task ${stepId} was already completed.`,
      status: run,
    };
  }
  if (run.status !== 'waiting')
    throw new ConflictError(`run ${run.run_id} is not waiting (status: ${run.status})`);
  if (step.status !== 'waiting')
    throw new ConflictError(
      `human task ${stepId} of run ${run.run_id} is not waiting (status: ${step.status})`,
    );

  const outputs = humanTaskOutputs(task.form, canonical.input);
  const inputBytes = Buffer.byteLength(canonicalJson(canonical.input));
  const outputBytes = Buffer.byteLength(JSON.stringify(outputs));
  if (inputBytes > task.max_size || outputBytes > task.max_size)
    throw new BadRequestError(
      `human task ${stepId}: the input (${Math.max(inputBytes, outputBytes)} bytes) exceeds the maximum size of ${task.max_size} bytes (max_output_size)`,
    );

  const now = new Date(svc.clock.nowMs()).toISOString();
  const next: RunStatus = structuredClone(run);
  const mine = humanStep(next, stepId)!;
  Object.assign(mine, {
    status: 'succeeded',
    finished_at: now,
    outputs: Object.keys(outputs).length > 0 ? outputs : null,
    human_task: { ...task, input: canonical.input, completed_at: now },
  } satisfies Partial<StepStatus>);
  await svc.runs.writeStatus(next, run);
  // Another completion may have written at the same time: the record read back says whose input won.
  const after = await getRun(svc, run.run_id);
  const stored = humanStep(after, stepId)?.human_task?.input;
  if (after.attempt !== run.attempt || stored === undefined)
    throw new ConflictError(`human task ${stepId}: run ${run.run_id} changed while it was being completed`);
  if (canonicalJson(stored) !== canonicalJson(canonical.input))
    throw new ConflictError(`human task ${stepId} was already completed with different input`);
  await recordEvent(svc, 'run:human_task_completed', { run_id: run.run_id, dag: run.dag_name, step: stepId });
  svc.logger.info('Human task completed', { dag: run.dag_name, run_id: run.run_id, step: stepId });
  if (!needsResume(after)) {
    return {
      outcome: 'completed_waiting',
      message: `Completed human task ${stepId}; DAG-run remains waiting.`,
      status: after,
    };
  }
  await startResume(svc, after, stepId);
  return {
    outcome: 'completed_resumed',
    message: `Completed human task ${stepId}; DAG-run queued for resume.`,
    status: after,
  };
}

/** A waiting run none of whose tasks is open any more: its next attempt has not been started yet. */
export function needsResume(run: RunStatus): boolean {
  return run.status === 'waiting' && !run.steps.some((s) => s.status === 'waiting');
}

/**
 * Starts attempt n+1 of a run whose tasks (and approvals) are all answered, as `dagu resume` would. `done` says
 * what was done, for the error when the resume cannot be started.
 */
export async function startResume(
  svc: Services,
  run: RunStatus,
  stepId: string,
  done = `human task ${stepId} was completed`,
): Promise<void> {
  const failed = (why: string) =>
    new ResumeFailedError(`${done}, but run ${run.run_id} could not be queued for resume: ${why}`);
  try {
    const dag = await requireRunDag(svc, run);
    const attempt = run.attempt + 1;
    if (isDistributed(dag, svc.config.default_execution_mode)) {
      const result = await svc.dispatcher
        .dispatch(nextAttemptDispatch(dag, run, 'resume'))
        .catch(dispatchError);
      if (result.outcome === 'refused') throw refusalError(result);
    } else {
      const processLog = path.join(svc.runs.logDir(dag.name, run.run_id, attempt), 'process.log');
      await svc.startProcess(['resume', '--quiet', run.run_id], processLog);
    }
    svc.logger.info('Resume after human tasks started', { dag: dag.name, run_id: run.run_id, attempt });
  } catch (err) {
    throw failed(err instanceof Error ? err.message : String(err));
  }
}

/** `dagu stop` / the console's stop of a run waiting at human tasks or approvals: it ends `aborted`, they too. */
export async function abortWaitingRun(svc: Services, run: RunStatus): Promise<RunStatus> {
  const now = new Date(svc.clock.nowMs()).toISOString();
  const next: RunStatus = structuredClone(run);
  next.status = 'aborted';
  next.finished_at = now;
  next.error = next.steps.some((s) => s.status === 'waiting' && s.approval)
    ? 'run aborted while waiting for approvals or human tasks'
    : 'run aborted while waiting for human tasks';
  for (const s of next.steps) {
    if (s.status === 'waiting') Object.assign(s, { status: 'aborted', finished_at: now });
  }
  await svc.runs.writeStatus(next, run);
  await recordEvent(svc, 'run:aborted', { run_id: run.run_id, dag: run.dag_name, while: 'waiting' });
  svc.logger.info('Waiting run aborted', { dag: run.dag_name, run_id: run.run_id });
  return next;
}
