'use client';
// "Run now": starts the DAG through the API, then opens the new run.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { startDagRun } from '../queries';

export function RunNowButton({ dag, disabled = false }: { dag: string; disabled?: boolean }) {
  const client = useQueryClient();
  const router = useRouter();
  const start = useMutation({
    mutationFn: () => startDagRun(client, dag),
    onSuccess: (result) => router.push(`/runs/${encodeURIComponent(result.run_id)}`),
  });
  return (
    <div className="flex flex-col items-end gap-1">
      <button
        type="button"
        className={buttonClass('primary')}
        disabled={disabled || start.isPending}
        onClick={() => start.mutate()}
        data-testid={`run-now-${dag}`}
        aria-label={`Run now: ${dag}`}
      >
        {start.isPending ? 'Starting…' : 'Run now'}
      </button>
      {start.isError && (
        <p role="alert" className="max-w-xs text-right text-xs text-red-700 dark:text-red-300">
          {errorText(start.error)}
        </p>
      )}
    </div>
  );
}
