'use client';
// Stop a run that runs, is queued or waits at human tasks (after a confirmation), or retry one that ended; the server's answer or
// refusal is shown next to the buttons.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RetryResult, RunStatus } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { ConfirmDialog } from '../dialog/ConfirmDialog';
import { errorText } from '../errorText';
import { isTerminal, retryRun, stopRun } from '../queries';
import { stopOutcome } from './stopOutcome';

export function RunActions({
  run,
  awaitingAttempt,
  onRetried,
}: {
  run: RunStatus;
  /** A retry was requested and its attempt has not shown up yet: no second retry meanwhile. */
  awaitingAttempt: boolean;
  onRetried: (result: RetryResult) => void;
}) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const stop = useMutation({
    mutationFn: () => stopRun(client, run.run_id),
    onSuccess: () => setConfirming(false),
  });
  const retry = useMutation({ mutationFn: () => retryRun(client, run.run_id), onSuccess: onRetried });
  const queued = run.status === 'queued';
  // A run waiting at human tasks has no process: stopping it aborts it at once.
  const waiting = run.status === 'waiting';
  const canStop = run.status === 'running' || queued || waiting;
  const canRetry = isTerminal(run.status) && !awaitingAttempt;

  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex gap-2">
        {canStop && (
          <button
            type="button"
            className={buttonClass('danger')}
            disabled={stop.isPending}
            onClick={() => {
              stop.reset();
              setConfirming(true);
            }}
            data-testid="stop-run"
          >
            {queued ? 'Cancel run' : 'Stop'}
          </button>
        )}
        {canRetry && (
          <button
            type="button"
            className={buttonClass('secondary')}
            disabled={retry.isPending}
            onClick={() => retry.mutate()}
            data-testid="retry-run"
          >
            {retry.isPending ? 'Retrying…' : 'Retry'}
          </button>
        )}
      </div>
      {stop.isSuccess && !isTerminal(run.status) && (
        <p
          role="status"
          className="max-w-xs text-right text-xs text-zinc-600 dark:text-zinc-300"
          data-testid="stop-outcome"
        >
          {stopOutcome(stop.data)}
        </p>
      )}
      {retry.isError && (
        <p role="alert" className="max-w-xs text-right text-xs text-red-700 dark:text-red-300">
          Cannot retry: {errorText(retry.error)}
        </p>
      )}
      {confirming && (
        <ConfirmDialog
          title={queued ? `Cancel run ${run.run_id}?` : `Stop run ${run.run_id}?`}
          confirmLabel={queued ? 'Cancel run' : 'Stop run'}
          dismissLabel={queued ? 'Keep' : 'Keep running'}
          tone="danger"
          busy={stop.isPending}
          error={stop.isError ? errorText(stop.error) : null}
          onConfirm={() => stop.mutate()}
          onDismiss={() => setConfirming(false)}
          testId="stop-dialog"
        >
          {queued ? (
            <p>It leaves the queue without running and ends aborted.</p>
          ) : waiting ? (
            <p>Its open human tasks are aborted with it; the run ends aborted at once.</p>
          ) : (
            <p>
              Its steps are sent a stop signal{run.worker_id ? ` by worker ${run.worker_id}` : ''}; the run
              ends aborted. Steps that finished keep their results.
            </p>
          )}
        </ConfirmDialog>
      )}
    </div>
  );
}
