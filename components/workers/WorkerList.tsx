'use client';
// The workers the coordinator knows: labels, capacity in use, the runs each executes and how recently it was
// heard from (healthy / late / lost). Polled; heartbeat ages tick every second in between.

import { useQuery } from '@tanstack/react-query';
import type { WorkerSummary } from '../apiTypes';
import { EmptyState, ErrorPanel, LoadingPanel, StaleNotice, tableClass, TableHead } from '../Panels';
import { errorText } from '../errorText';
import { useNow } from '../useNow';
import { formatAge } from '../durationText';
import { workerStateOf } from './workerState';
import { WorkerRow } from './WorkerRow';
import { workersQuery } from './queries';

export function WorkerList() {
  const { data, error, isPending, refetch, dataUpdatedAt } = useQuery(workersQuery());
  const nowMs = useNow();
  if (isPending) return <LoadingPanel label="Loading workers…" />;
  if (error && !data)
    return (
      <ErrorPanel title="Cannot load workers" message={errorText(error)} onRetry={() => void refetch()} />
    );
  const staleMs = data.stale_threshold_ms;
  return (
    <div className="flex flex-col gap-4">
      {error && <StaleNotice message={errorText(error)} />}
      {data.workers.length === 0 ? (
        <EmptyState title="No worker has registered" testId="workers-empty">
          <p>
            Workers run the DAGs that have a <code className="font-mono">worker_selector</code>. Start one
            next to a running coordinator (<code className="font-mono">dagu coordinator</code>) with its
            labels:
          </p>
          <pre className="mx-auto mt-2 w-fit max-w-full overflow-x-auto rounded-md bg-zinc-100 px-3 py-2 text-left font-mono text-xs text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
            dagu worker --labels zone=b --coordinator host:50055
          </pre>
        </EmptyState>
      ) : (
        <>
          <Summary workers={data.workers} staleMs={staleMs} />
          <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
            <table className={tableClass}>
              <caption className="sr-only">Registered workers, healthy ones first</caption>
              <TableHead columns={['Worker', 'Labels', 'In use', 'Running tasks', 'Heartbeat']} />
              <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
                {data.workers.map((w) => (
                  <WorkerRow
                    key={w.worker_id}
                    worker={w}
                    state={workerStateOf(w, staleMs)}
                    fetchedAtMs={dataUpdatedAt}
                    nowMs={nowMs}
                  />
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

function Summary({ workers, staleMs }: { workers: WorkerSummary[]; staleMs: number }) {
  const count = (s: string) => workers.filter((w) => workerStateOf(w, staleMs) === s).length;
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400">
      {workers.length} {workers.length === 1 ? 'worker' : 'workers'}: {count('healthy')} healthy,{' '}
      {count('late')} late, {count('lost')} lost. Healthy: heard from within {formatAge(staleMs / 2)}; late:
      within {formatAge(staleMs)} (still given runs); lost: longer (its runs fail, it gets no new ones).
    </p>
  );
}
