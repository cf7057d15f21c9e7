'use client';
// Stop (a running run) or dequeue (a queued run), with the server's refusal shown when it says no.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RunStatus } from '@/server/core/types';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { dequeueRun, stopRun } from '../queries';

export function RunActions({ run }: { run: RunStatus }) {
  const client = useQueryClient();
  const queued = run.status === 'queued';
  const action = useMutation({
    mutationFn: () => (queued ? dequeueRun(client, run.run_id) : stopRun(client, run.run_id)),
  });
  if (run.status !== 'running' && !queued) return null;
  return (
    <div className="flex flex-col items-end gap-1">
      <button
        type="button"
        className={buttonClass('danger')}
        disabled={action.isPending}
        onClick={() => action.mutate()}
        data-testid={queued ? 'dequeue-run' : 'stop-run'}
      >
        {action.isPending ? (queued ? 'Dequeuing…' : 'Stopping…') : queued ? 'Dequeue' : 'Stop'}
      </button>
      {action.isError && (
        <p role="alert" className="max-w-xs text-right text-xs text-red-700 dark:text-red-300">
          {errorText(action.error)}
        </p>
      )}
    </div>
  );
}
