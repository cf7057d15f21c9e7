'use client';
// Suspend or resume a DAG's schedule: a "Suspended" badge while it is, and one button that suspends (after a
// confirmation) or resumes. Used on the DAG list (one per row) and on the DAG's page.

import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { SuspendState } from '@/components/apiTypes';
import { postJson } from '../api';
import { ConfirmDialog } from '../dialog/ConfirmDialog';
import { errorText } from '../errorText';
import { formatTime } from '../format';
import { buttonClass } from '../Panels';
import { queryKeys } from '../queryKeys';
import { suspendedSince, suspendQuestion, suspendText } from './suspendText';

/** POST /api/v1/dags/:name/suspend, then refreshes the DAG list, the DAG and the overview. */
export async function setDagSuspended(
  client: QueryClient,
  dag: string,
  suspend: boolean,
): Promise<SuspendState> {
  const state = await postJson<SuspendState>(`/api/v1/dags/${encodeURIComponent(dag)}/suspend`, { suspend });
  await Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.dags() }),
    client.invalidateQueries({ queryKey: queryKeys.overview() }),
  ]);
  return state;
}

/** The plain badge a suspended DAG carries. */
export function SuspendedBadge({ dag, suspendedAt }: { dag: string; suspendedAt?: string | null }) {
  return (
    <span
      data-testid={`suspended-badge-${dag}`}
      title={suspendedSince(suspendedAt, formatTime)}
      className="inline-flex items-center rounded-md bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 ring-1 ring-amber-300 ring-inset dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800"
    >
      Suspended
    </span>
  );
}

export function SuspendToggle({
  dag,
  suspended,
  suspendedAt,
  withBadge = false,
}: {
  dag: string;
  suspended: boolean;
  suspendedAt?: string | null;
  /** Also shows the badge beside the button (the DAG's page; the list shows it by the name). */
  withBadge?: boolean;
}) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const toggle = useMutation({
    mutationFn: (suspend: boolean) => setDagSuspended(client, dag, suspend),
    onSuccess: () => setAsking(false),
  });
  const text = suspendText(dag, suspended);
  const question = suspendQuestion(dag);
  return (
    <div className="flex flex-col items-end gap-1">
      <div className="flex items-center gap-2">
        {withBadge && suspended && <SuspendedBadge dag={dag} suspendedAt={suspendedAt} />}
        <button
          type="button"
          className={buttonClass('secondary')}
          disabled={toggle.isPending}
          aria-label={text.ariaLabel}
          data-testid={`suspend-toggle-${dag}`}
          onClick={() => {
            toggle.reset();
            if (text.confirm) setAsking(true);
            else toggle.mutate(!suspended);
          }}
        >
          {toggle.isPending && !asking ? text.busyLabel : text.label}
        </button>
      </div>
      {toggle.isError && !asking && (
        <p role="alert" className="max-w-xs text-right text-xs text-red-700 dark:text-red-300">
          {errorText(toggle.error)}
        </p>
      )}
      {asking && (
        <ConfirmDialog
          title={question.title}
          confirmLabel={toggle.isPending ? text.busyLabel : 'Suspend schedule'}
          dismissLabel="Keep it running"
          tone="danger"
          busy={toggle.isPending}
          error={toggle.isError ? errorText(toggle.error) : null}
          onConfirm={() => toggle.mutate(true)}
          onDismiss={() => {
            setAsking(false);
            toggle.reset();
          }}
          testId={`suspend-dialog-${dag}`}
        >
          {question.body}
        </ConfirmDialog>
      )}
    </div>
  );
}
