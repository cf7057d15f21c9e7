// A table of run summaries, newest first; each row links to the run and shows a few of its labels.

import Link from 'next/link';
import type { RunSummary } from '@/components/apiTypes';
import { StatusBadge } from '../StatusBadge';
import { linkClass, tableClass, TableHead, tdClass } from '../Panels';
import { formatSpan, formatTime } from '../format';
import { RunLabels } from './RunLabels';

/** The most label chips a row shows; "+N" stands for the rest. */
const ROW_LABELS = 3;

export function RunTable({
  runs,
  now,
  showDag = true,
}: {
  runs: RunSummary[];
  now: number | null;
  showDag?: boolean;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className={tableClass} data-testid="run-table">
        <TableHead columns={['Run', showDag && 'DAG', 'Status', 'Trigger', 'Started', 'Duration']} />
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {runs.map((run) => (
            <tr key={run.run_id} data-testid={`run-row-${run.run_id}`}>
              <td className={`${tdClass} font-mono text-xs`}>
                <Link href={`/runs/${encodeURIComponent(run.run_id)}`} className={linkClass}>
                  {run.run_id}
                </Link>
                {run.attempt > 1 && <span className="ml-1 text-zinc-500">(attempt {run.attempt})</span>}
                {!showDag && rowLabels(run)}
              </td>
              {showDag && (
                <td className={tdClass}>
                  <Link href={`/dags/${encodeURIComponent(run.dag_name)}`} className={linkClass}>
                    {run.dag_name}
                  </Link>
                  {rowLabels(run)}
                </td>
              )}
              <td className={tdClass}>
                <StatusBadge status={run.status} />
                {run.error && (
                  <p
                    className="mt-1 max-w-xs truncate text-xs text-red-700 dark:text-red-300"
                    title={run.error}
                  >
                    {run.error}
                  </p>
                )}
              </td>
              <td className={`${tdClass} text-xs`}>
                {run.trigger_type ?? '—'}
                {run.schedule_time && (
                  <div className="text-zinc-500">slot {formatTime(run.schedule_time)}</div>
                )}
              </td>
              <td className={`${tdClass} whitespace-nowrap`}>
                {run.started_at ? (
                  formatTime(run.started_at)
                ) : (
                  <span className="text-zinc-500 dark:text-zinc-400">
                    {run.queued_at ? 'queued' : 'created'} {formatTime(run.queued_at ?? run.created_at)}
                  </span>
                )}
              </td>
              <td className={`${tdClass} whitespace-nowrap`}>
                {run.status === 'queued' ? '—' : formatSpan(run.started_at, run.finished_at, now)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A row's labels under its DAG name (or its run ID where the table shows no DAG). */
function rowLabels(run: RunSummary) {
  if (!run.labels || run.labels.length === 0) return null;
  return (
    <div className="mt-1">
      <RunLabels
        labels={run.labels}
        max={ROW_LABELS}
        name={`Labels of ${run.run_id}`}
        testId="run-row-labels"
        chipTestId="run-row-label"
      />
    </div>
  );
}
