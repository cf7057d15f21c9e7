'use client';
// The steps of a waiting run that wait for their approval (a step's `approval:`): each one's prompt, a field per
// input it names (required ones marked), and Approve, Push back and Reject (with a reason). Approving the last
// one resumes the run; pushing back reruns from its rewind_to step; rejecting ends the run. The server's
// refusal (a missing required input) is shown by the form.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RunStatus } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { answerApproval } from '../queries';

const INPUT =
  'rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm focus-visible:outline-2 focus-visible:outline-blue-500 dark:border-zinc-600 dark:bg-zinc-800';

type Step = RunStatus['steps'][number];
type Answer = 'approve' | 'reject' | 'push-back';

export function ApprovalPanel({ run }: { run: RunStatus }) {
  const waiting = run.steps.filter((s) => s.status === 'waiting' && s.approval);
  if (run.status !== 'waiting' || waiting.length === 0) return null;
  return (
    <section aria-labelledby="approvals-heading" className="flex flex-col gap-3" data-testid="approvals">
      <h2 id="approvals-heading" className="text-lg font-semibold">
        Approvals
      </h2>
      {waiting.map((step) => (
        <ApprovalForm key={step.name} runId={run.run_id} step={step} />
      ))}
    </section>
  );
}

function ApprovalForm({ runId, step }: { runId: string; step: Step }) {
  const client = useQueryClient();
  const approval = step.approval!;
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState('');
  const answer = useMutation({
    mutationFn: (what: Answer) => {
      const inputs = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
      return answerApproval(
        client,
        runId,
        step.name,
        what,
        what === 'reject' ? (reason.trim() ? { reason } : {}) : { inputs },
      );
    },
  });
  const id = (name: string) => `approval-${step.name}-${name}`;
  return (
    <form
      className="flex flex-col gap-3 rounded-md border border-violet-300 bg-violet-50 p-3 dark:border-violet-800 dark:bg-violet-950"
      data-testid={`approval-${step.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        answer.mutate('approve');
      }}
    >
      <p className="text-sm whitespace-pre-wrap">
        <span className="font-mono text-xs text-zinc-600 dark:text-zinc-300">{step.name}</span>{' '}
        {approval.prompt || 'Approve this step?'}
        {step.push_back && (
          <span className="text-xs text-zinc-600 dark:text-zinc-300">
            {' '}
            (pushed back {step.push_back.iteration} time{step.push_back.iteration === 1 ? '' : 's'})
          </span>
        )}
      </p>
      {approval.input.map((name) => (
        <div key={name} className="flex flex-col gap-1 text-sm">
          <label htmlFor={id(name)} className="font-mono font-medium">
            {name}
            {approval.required.includes(name) ? ' *' : ''}
          </label>
          <input
            id={id(name)}
            className={INPUT}
            value={values[name] ?? ''}
            onChange={(e) => setValues((old) => ({ ...old, [name]: e.target.value }))}
          />
        </div>
      ))}
      <div className="flex flex-col gap-1 text-sm">
        <label htmlFor={id('reason')} className="font-medium">
          Reason (for a rejection)
        </label>
        <input
          id={id('reason')}
          className={INPUT}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonClass('primary')} disabled={answer.isPending}>
          Approve
        </button>
        <button
          type="button"
          className={buttonClass('secondary')}
          disabled={answer.isPending}
          onClick={() => answer.mutate('push-back')}
        >
          Push back
        </button>
        <button
          type="button"
          className={buttonClass('danger')}
          disabled={answer.isPending}
          onClick={() => answer.mutate('reject')}
        >
          Reject
        </button>
        {answer.isSuccess && (
          <span role="status" className="text-xs text-zinc-700 dark:text-zinc-200">
            {answer.data.message}
          </span>
        )}
        {answer.isError && (
          <span role="alert" className="text-xs text-red-700 dark:text-red-300">
            {errorText(answer.error)}
          </span>
        )}
      </div>
    </form>
  );
}
