'use client';
// Stop (a running run), dequeue (a queued run) or cancel (a run waiting for a worker), with the server's
// refusal shown when it says no.

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
  // A queued run with a selector waits for a worker, not in a queue: cancelling drops its dispatch task.
  const [label, busy] = !queued
    ? ['Stop', 'Stopping…']
    : run.worker_selector
      ? ['Cancel', 'Cancelling…']
      : ['Dequeue', 'Dequeuing…'];
  return (
    <div className="flex flex-col items-end gap-1">
      <button
        type="button"
        className={buttonClass('danger')}
        disabled={action.isPending}
        onClick={() => action.mutate()}
        data-testid={queued ? 'dequeue-run' : 'stop-run'}
      >
        {action.isPending ? busy : label}
      </button>
      {action.isError && (
        <p role="alert" className="max-w-xs text-right text-xs text-red-700 dark:text-red-300">
          {errorText(action.error)}
        </p>
      )}
    </div>
  );
}
