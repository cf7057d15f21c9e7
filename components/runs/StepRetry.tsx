'use client';
// "Retry this step" for the step shown in a finished run's details, as `dagu retry --step` (with
// "--downstream" for the steps after it): the step runs again in a new attempt of the run and every other step
// keeps its status. In a sub-run, the new attempt is its root run's, which retries the call steps on the way
// down in place (`dagu retry --sub-run-id`). The server's refusal is shown beside the button.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RetryResult, RunStatus, StepStatus } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { retryRun } from '../queries';

export function StepRetry({
  run,
  step,
  onRetried,
}: {
  run: RunStatus;
  step: StepStatus;
  onRetried: (result: RetryResult) => void;
}) {
  const client = useQueryClient();
  const [downstream, setDownstream] = useState(false);
  const retry = useMutation({
    mutationFn: () => retryRun(client, run.run_id, { name: step.name, downstream }),
    onSuccess: onRetried,
  });
  return (
    <div className="flex flex-col gap-1" data-testid="step-retry">
      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          className={buttonClass('secondary')}
          disabled={retry.isPending}
          onClick={() => retry.mutate()}
          data-testid="retry-step"
        >
          {retry.isPending ? 'Retrying…' : `Retry ${step.name}`}
        </button>
        <label className="flex items-center gap-1 text-sm text-zinc-700 dark:text-zinc-300">
          <input
            type="checkbox"
            checked={downstream}
            onChange={(e) => setDownstream(e.target.checked)}
            data-testid="retry-step-downstream"
          />
          and the steps that depend on it
        </label>
      </div>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        Runs this step again in a new attempt; the other steps keep their status
        {run.parent ? ', and the runs above this one retry only the call steps that lead here' : ''}.
      </p>
      {retry.isError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300" data-testid="retry-step-error">
          Cannot retry this step: {errorText(retry.error)}
        </p>
      )}
    </div>
  );
}
