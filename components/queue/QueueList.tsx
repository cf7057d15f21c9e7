'use client';
// The queues: queued runs per queue in the order they will start, why each still waits, and a dequeue button.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import type { QueueView as Queue, QueuedRunView } from '@/server/api/operations';
import {
  EmptyState,
  ErrorPanel,
  LoadingPanel,
  StaleNotice,
  buttonClass,
  linkClass,
  tableClass,
  tdClass,
  thClass,
} from '../Panels';
import { errorText } from '../errorText';
import { formatRelative, formatTime } from '../format';
import { dequeueRun, queueQuery } from '../queries';
import { useNow } from '../useNow';

export function QueueList() {
  const { data, error, isPending, refetch } = useQuery(queueQuery());
  const now = useNow();
  if (isPending) return <LoadingPanel label="Loading queues…" />;
  if (error && !data)
    return (
      <ErrorPanel title="Cannot load queues" message={errorText(error)} onRetry={() => void refetch()} />
    );
  const total = data.queues.reduce((n, q) => n + q.items.length, 0);
  return (
    <div className="flex flex-col gap-6">
      {error && <StaleNotice message={errorText(error)} />}
      {!data.enabled && (
        <p
          role="status"
          className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          Queues are disabled (<code>queues.enabled: false</code>): new runs cannot be enqueued.
        </p>
      )}
      {total === 0 && (
        <EmptyState title="Nothing is queued" testId="queue-empty">
          Runs wait here when their queue is full. Queue one with{' '}
          <code className="font-mono">dagu enqueue &lt;dag&gt;</code>.
        </EmptyState>
      )}
      {data.queues
        .filter((q) => q.items.length > 0 || q.max_concurrency !== null)
        .map((q) => (
          <QueueSection key={q.name} queue={q} now={now} />
        ))}
    </div>
  );
}

function QueueSection({ queue, now }: { queue: Queue; now: number | null }) {
  const headingId = `queue-${queue.name}`;
  return (
    <section aria-labelledby={headingId} data-testid={headingId}>
      <h2 id={headingId} className="mb-2 flex flex-wrap items-baseline gap-3 text-lg font-semibold">
        {queue.name}
        <span className="text-sm font-normal text-zinc-500 dark:text-zinc-400">
          {queue.items.length} queued · {queue.running} running
          {queue.max_concurrency !== null && ` · at most ${queue.max_concurrency} at once`}
        </span>
      </h2>
      {queue.items.length === 0 ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">No queued runs.</p>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
          <table className={tableClass}>
            <thead className="bg-zinc-50 dark:bg-zinc-900">
              <tr>
                <th scope="col" className={thClass}>
                  #
                </th>
                <th scope="col" className={thClass}>
                  Run
                </th>
                <th scope="col" className={thClass}>
                  DAG
                </th>
                <th scope="col" className={thClass}>
                  Queued
                </th>
                <th scope="col" className={thClass}>
                  Waiting because
                </th>
                <th scope="col" className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {queue.items.map((item) => (
                <QueueRow key={item.run_id} item={item} now={now} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function QueueRow({ item, now }: { item: QueuedRunView; now: number | null }) {
  const client = useQueryClient();
  const dequeue = useMutation({ mutationFn: () => dequeueRun(client, item.run_id) });
  const queuedAt = item.queued_at ?? item.enqueued_at;
  return (
    <tr data-testid={`queue-row-${item.run_id}`}>
      <td className={tdClass}>{item.position}</td>
      <td className={`${tdClass} font-mono text-xs`}>
        <Link href={`/runs/${encodeURIComponent(item.run_id)}`} className={linkClass}>
          {item.run_id}
        </Link>
        {item.trigger_type && <div className="font-sans text-zinc-500">{item.trigger_type}</div>}
      </td>
      <td className={tdClass}>{item.dag_name}</td>
      <td className={`${tdClass} whitespace-nowrap`}>
        <div>{formatTime(queuedAt)}</div>
        <div className="text-xs text-zinc-500 dark:text-zinc-400">{formatRelative(queuedAt, now)}</div>
      </td>
      <td className={`${tdClass} text-xs`}>
        {item.problem && <p className="text-red-700 dark:text-red-300">{item.problem}</p>}
        {item.conditions.length > 0
          ? item.conditions.map((c) => (
              <p key={c.type}>
                <span className="font-mono">
                  {c.type}={c.status}
                </span>{' '}
                {c.reason}
                {c.message && `: ${c.message}`}
              </p>
            ))
          : !item.problem && <span className="text-zinc-500 dark:text-zinc-400">waiting for its turn</span>}
      </td>
      <td className={`${tdClass} text-right`}>
        <button
          type="button"
          className={buttonClass('danger')}
          disabled={dequeue.isPending}
          onClick={() => dequeue.mutate()}
          aria-label={`Dequeue run ${item.run_id}`}
          data-testid={`dequeue-${item.run_id}`}
        >
          {dequeue.isPending ? 'Dequeuing…' : 'Dequeue'}
        </button>
        {dequeue.isError && (
          <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-300">
            {errorText(dequeue.error)}
          </p>
        )}
      </td>
    </tr>
  );
}
