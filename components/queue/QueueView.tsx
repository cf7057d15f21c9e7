'use client';
// The queue page: each queue's load, then every run that waits (queued in a local queue, or held/dispatched
// for a worker) with why it waits; select some and cancel them after a confirmation.

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { CancelResult, WaitingRun } from '@/components/apiTypes';
import {
  buttonClass,
  EmptyState,
  ErrorPanel,
  LoadingPanel,
  StaleNotice,
  tableClass,
  TableHead,
} from '../Panels';
import { ConfirmDialog } from '../dialog/ConfirmDialog';
import { errorText } from '../errorText';
import { queueQuery } from '../queries';
import type { QueueFilter } from '../queryKeys';
import { liveAgeMs } from '../liveAge';
import { useNow } from '../useNow';
import { QueueFilters } from './QueueFilters';
import { QueueSummaries } from './QueueSummaries';
import { WaitingRunRow } from './WaitingRunRow';
import { cancelQuestion, cancellingText, cancelSummary } from './cancelText';
import { isFiltered, queueHref } from './queueFilterUrl';
import { useCancelRuns } from './useCancelRuns';
import { selectionOf, shownItems, waitingCountText, withSelected } from './waitingSelection';

export function QueueView({ filter }: { filter: QueueFilter }) {
  const { data, error, isPending, refetch, dataUpdatedAt } = useQuery({
    ...queueQuery(filter),
    placeholderData: keepPreviousData,
  });
  const now = useNow();
  const cancel = useCancelRuns();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState<string[] | null>(null);

  if (isPending) return <LoadingPanel label="Loading the queue…" />;
  if (error && !data)
    return (
      <ErrorPanel title="Cannot load the queue" message={errorText(error)} onRetry={() => void refetch()} />
    );

  // Runs being cancelled stay hidden even if a poll lands before the server has answered.
  const items = shownItems(data.items, cancel.isPending ? cancel.variables : []);
  const shownIds = items.map((i) => i.run_id);
  const { chosen, all: allChosen, some: someChosen } = selectionOf(shownIds, selected);
  // Time since the listing arrived: added to its waits and taken off its holds, so both tick between polls.
  const elapsed = liveAgeMs(0, dataUpdatedAt, now) ?? 0;

  const select = (ids: string[], on: boolean) => setSelected((prev) => withSelected(prev, ids, on));
  const confirm = () => {
    if (!confirming) return;
    const ids = confirming;
    select(ids, false);
    setConfirming(null);
    cancel.mutate(ids);
  };

  return (
    <div className="flex flex-col gap-5">
      {error && <StaleNotice message={errorText(error)} />}
      {!data.enabled && (
        <p
          role="status"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          Queues are disabled (<code>queues.enabled: false</code>): runs start at once or not at all; runs
          held for workers still show here.
        </p>
      )}
      <QueueSummaries queues={data.queues} />
      <QueueFilters filter={filter} facets={data.facets} />
      <CancelOutcome cancel={cancel} onDismiss={() => cancel.reset()} />
      {items.length === 0 ? (
        <EmptyState title="Nothing is waiting" testId="queue-empty">
          {isFiltered(filter) ? (
            <>
              No waiting run matches this filter.{' '}
              <Link href={queueHref({})} replace className="underline">
                Show every waiting run
              </Link>
            </>
          ) : (
            <>
              Runs show here while their queue is full (<code className="font-mono">max_concurrency</code>),
              while they wait for a worker whose labels match their selector, or until a worker claims them.
            </>
          )}
        </EmptyState>
      ) : (
        <section aria-labelledby="waiting-heading" className="flex flex-col gap-3">
          <div className="flex flex-wrap items-center justify-between gap-3">
            <h2 id="waiting-heading" className="text-lg font-semibold">
              Waiting runs{' '}
              <span className="text-sm font-normal text-zinc-500 dark:text-zinc-400">
                {waitingCountText(data.total, data.items.length, items.length)}
              </span>
            </h2>
            <button
              type="button"
              className={buttonClass('danger')}
              disabled={chosen.length === 0}
              onClick={() => setConfirming(chosen)}
              data-testid="cancel-selected"
            >
              Cancel selected ({chosen.length})
            </button>
          </div>
          <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
            <table className={tableClass} data-testid="waiting-table">
              <TableHead
                columns={[
                  {
                    label: (
                      <input
                        type="checkbox"
                        checked={allChosen}
                        ref={(el) => {
                          if (el) el.indeterminate = someChosen;
                        }}
                        onChange={(e) => select(shownIds, e.currentTarget.checked)}
                        aria-label="Select all shown runs"
                        className="size-4 accent-blue-600 focus-visible:outline-2 focus-visible:outline-blue-500"
                      />
                    ),
                    className: 'w-8',
                  },
                  'Run',
                  'DAG',
                  'Queue',
                  'Selector',
                  'Why it waits',
                  'Waited',
                  'Hold expires',
                  { label: <span className="sr-only">Actions</span> },
                ]}
              />
              <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
                {items.map((item: WaitingRun) => (
                  <WaitingRunRow
                    key={item.run_id}
                    item={item}
                    elapsedMs={elapsed}
                    selected={selected.has(item.run_id)}
                    onSelect={(on) => select([item.run_id], on)}
                    onCancel={() => setConfirming([item.run_id])}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      {confirming && (
        <ConfirmDialog
          title={cancelQuestion(confirming.length)}
          confirmLabel="Cancel runs"
          dismissLabel="Keep"
          tone="danger"
          onConfirm={confirm}
          onDismiss={() => setConfirming(null)}
          testId="cancel-dialog"
        >
          <p>
            {confirming.length === 1 ? 'It leaves' : 'They leave'} the queue and end <strong>aborted</strong>;
            a worker that arrives later never runs {confirming.length === 1 ? 'it' : 'them'}.
          </p>
          <ul className="mt-2 max-h-40 overflow-auto font-mono text-xs">
            {confirming.map((id) => (
              <li key={id}>{id}</li>
            ))}
          </ul>
        </ConfirmDialog>
      )}
    </div>
  );
}

/** What the last cancel did: how many left, and each run the server refused with its reason. */
function CancelOutcome({
  cancel,
  onDismiss,
}: {
  cancel: ReturnType<typeof useCancelRuns>;
  onDismiss: () => void;
}) {
  if (cancel.isIdle) return null;
  if (cancel.isPending) {
    return (
      <p role="status" className="text-sm text-zinc-600 dark:text-zinc-300" data-testid="cancel-result">
        {cancellingText(cancel.variables.length)}
      </p>
    );
  }
  if (cancel.isError) {
    return (
      <ErrorPanel
        title="Nothing was cancelled"
        message={errorText(cancel.error)}
        onRetry={() => cancel.mutate(cancel.variables)}
      />
    );
  }
  const { text, failed } = cancelSummary((cancel.data as CancelResult).results);
  return (
    <div
      data-testid="cancel-result"
      className={`rounded-lg border px-4 py-3 text-sm ${
        failed.length
          ? 'border-red-300 bg-red-50 text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100'
          : 'border-emerald-300 bg-emerald-50 text-emerald-900 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100'
      }`}
    >
      <div className="flex items-start justify-between gap-3">
        <p role="status">{text}</p>
        <button type="button" className={buttonClass('secondary')} onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      {failed.length > 0 && (
        <ul role="alert" className="mt-2 flex flex-col gap-1">
          {failed.map((r) => (
            <li key={r.run_id} data-testid="cancel-failure" data-run-id={r.run_id}>
              <Link href={`/runs/${encodeURIComponent(r.run_id)}`} className="font-mono underline">
                {r.run_id}
              </Link>
              : {r.error ?? 'refused'}
              {r.status && ` (now ${r.status})`}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
