// Answering a step approval (`dagu approval approve|reject|push-back`, POST /api/v1/runs/:id/approvals/:step/…)
// of a run waiting for it, as Dagu's ApproveDAGRunStep, RejectDAGRunStep and PushBackDAGRunStep do. Approve: the
// step succeeds with its inputs as output variables, and once nothing of the run waits any more the run is
// resumed. Reject: the step and the run end `rejected`. Push back: the step (or its `rewind_to` step) and
// everything downstream run again in a resumed attempt, under Dagu's push-back variables.

import { applyPushBack, badInputNames, filterPushBackInputs, missingRequiredInputs } from '../core/approval';
import { canonicalJson } from '../core/humanTask';
import type { RunStatus, StepStatus } from '../core/types';
import { BadRequestError, ConflictError, NotFoundError } from './errors';
import { needsResume, startResume } from './humanTask';
import { recordEvent } from './recordEvent';
import { getRun } from './runs';
import type { Services } from './services';

/** How an answer went; `message` is the line `dagu approval` prints. */
export interface ApprovalResult {
  outcome: 'approved_waiting' | 'approved_resumed' | 'rejected' | 'pushed_back';
  message: string;
  status: RunStatus;
}

interface ApprovalRequest {
  runId: string;
  dagName?: string;
  step: string;
}

/** The run and its step waiting for an approval, or the error that refuses the answer. */
async function waitingApproval(
  svc: Services,
  req: ApprovalRequest,
): Promise<{ run: RunStatus; step: StepStatus }> {
  const run = await getRun(svc, req.runId);
  if (req.dagName !== undefined && run.dag_name !== req.dagName)
    throw new NotFoundError(`DAG ${req.dagName} has no run ${JSON.stringify(req.runId)}`);
  if (run.status !== 'waiting')
    throw new ConflictError(`run ${run.run_id} is not waiting for approval (status: ${run.status})`);
  const step = run.steps.find((s) => s.name === req.step);
  if (!step) throw new NotFoundError(`run ${run.run_id} has no step ${JSON.stringify(req.step)}`);
  if (step.status !== 'waiting')
    throw new ConflictError(`step ${req.step} is not waiting for approval (status: ${step.status})`);
  // A waiting step without an approval is a human task (dagu human-task complete answers it).
  if (!step.approval) throw new BadRequestError(`step ${req.step} of run ${run.run_id} has no approval`);
  return { run, step };
}

function checkInputs(inputs: Readonly<Record<string, string>>, required: readonly string[]): void {
  const badName = badInputNames(inputs);
  if (badName) throw new BadRequestError(badName);
  const missing = missingRequiredInputs(required, inputs);
  if (missing) throw new BadRequestError(missing);
}

/** Writes `next` over `run` and reads it back: another answer written at the same time is a conflict. */
async function writeAnswer(svc: Services, run: RunStatus, next: RunStatus, step: string): Promise<RunStatus> {
  await svc.runs.writeStatus(next, run);
  const after = await getRun(svc, run.run_id);
  const mine = after.steps.find((s) => s.name === step);
  const wanted = next.steps.find((s) => s.name === step);
  // Compared as canonical JSON: a store may give the members back in another order (PostgreSQL's jsonb).
  if (after.attempt !== run.attempt || canonicalJson(mine) !== canonicalJson(wanted))
    throw new ConflictError(`step ${step}: run ${run.run_id} changed while it was being answered`);
  return after;
}

export async function approveStep(
  svc: Services,
  req: ApprovalRequest & { inputs: Record<string, string> },
): Promise<ApprovalResult> {
  const { run, step } = await waitingApproval(svc, req);
  checkInputs(req.inputs, step.approval!.required);
  const now = new Date(svc.clock.nowMs()).toISOString();
  const next: RunStatus = structuredClone(run);
  const mine = next.steps.find((s) => s.name === req.step)!;
  const inputs = filterPushBackInputs([], req.inputs);
  Object.assign(mine, {
    status: 'succeeded',
    // Dagu stores the inputs as the step's output variables: downstream steps see them as variables.
    output: inputs ? { ...(mine.output ?? {}), ...inputs } : mine.output,
    approval: { ...mine.approval!, approved_at: now, ...(inputs ? { inputs } : {}) },
  } satisfies Partial<StepStatus>);
  const after = await writeAnswer(svc, run, next, req.step);
  await recordEvent(svc, 'run:step_approved', { run_id: run.run_id, dag: run.dag_name, step: req.step });
  svc.logger.info('Step approved', { dag: run.dag_name, run_id: run.run_id, step: req.step });
  if (!needsResume(after)) {
    return {
      outcome: 'approved_waiting',
      message: `Approved step ${req.step}; DAG-run remains waiting.`,
      status: after,
    };
  }
  await startResume(svc, after, req.step, `step ${req.step} was approved`);
  return {
    outcome: 'approved_resumed',
    message: `Approved step ${req.step}; DAG-run queued for resume.`,
    status: after,
  };
}

export async function rejectStep(
  svc: Services,
  req: ApprovalRequest & { reason?: string },
): Promise<ApprovalResult> {
  const { run } = await waitingApproval(svc, req);
  const now = new Date(svc.clock.nowMs()).toISOString();
  const next: RunStatus = structuredClone(run);
  const mine = next.steps.find((s) => s.name === req.step)!;
  const reason = req.reason?.trim() ? req.reason : undefined;
  Object.assign(mine, {
    status: 'rejected',
    approval: { ...mine.approval!, rejected_at: now, ...(reason !== undefined ? { reason } : {}) },
  } satisfies Partial<StepStatus>);
  next.status = 'rejected';
  next.finished_at = now;
  next.error = `step ${JSON.stringify(req.step)} was rejected${reason !== undefined ? `: ${reason}` : ''}`;
  const after = await writeAnswer(svc, run, next, req.step);
  await recordEvent(svc, 'run:step_rejected', { run_id: run.run_id, dag: run.dag_name, step: req.step });
  svc.logger.info('Step rejected', { dag: run.dag_name, run_id: run.run_id, step: req.step });
  return { outcome: 'rejected', message: `Rejected step ${req.step}; DAG-run rejected.`, status: after };
}

export async function pushBackStep(
  svc: Services,
  req: ApprovalRequest & { inputs: Record<string, string> },
): Promise<ApprovalResult> {
  const { run, step } = await waitingApproval(svc, req);
  checkInputs(req.inputs, step.approval!.required);
  // RFC 3339 to the second, as Dagu writes a push-back's time into DAG_PUSHBACK.
  const at = new Date(svc.clock.nowMs()).toISOString().replace(/\.\d+Z$/, 'Z');
  const next = applyPushBack(run, req.step, req.inputs, at);
  if (!next)
    throw new BadRequestError(
      `step ${req.step} approval.rewind_to references non-existent step ${step.approval!.rewind_to}`,
    );
  const after = await writeAnswer(svc, run, next, req.step);
  try {
    await startResume(svc, after, req.step, `step ${req.step} was pushed back`);
  } catch (err) {
    // As Dagu: the push-back is undone when the run cannot be resumed, so it can be answered again.
    await svc.runs.writeStatus(run, after).catch(() => undefined);
    throw err;
  }
  const iteration = after.steps.find((s) => s.name === req.step)?.push_back?.iteration ?? 1;
  await recordEvent(svc, 'run:step_pushed_back', {
    run_id: run.run_id,
    dag: run.dag_name,
    step: req.step,
    iteration,
  });
  svc.logger.info('Step pushed back', { dag: run.dag_name, run_id: run.run_id, step: req.step, iteration });
  return {
    outcome: 'pushed_back',
    message: `Pushed back step ${req.step} (iteration ${iteration}); DAG-run queued for resume.`,
    status: after,
  };
}
