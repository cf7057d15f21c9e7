'use client';
// A DAG's history at a glance: its last runs × its steps, each cell the step's state (colour, glyph and
// words) linking to that run with the step selected; a duration sparkline beside the counts, and the duration
// trend of the same runs with its median below. One API call (GET /api/v1/dags/:name/history).

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { HistoryRun } from '@/components/apiTypes';
import { ErrorPanel, LoadingPanel } from '../Panels';
import { errorText } from '../errorText';
import { formatDurationMs, formatTime } from '../format';
import { dagHistoryQuery } from '../queries';
import { runHref } from '../runs/runLinks';
import { median, sparklinePath } from './durationChart';
import { DurationTrend } from './DurationTrend';
import {
  CELL_GLYPHS,
  cellClass,
  cellStateLabel,
  historyCell,
  historyColumns,
  runMark,
  statesShown,
} from './historyCells';

/** Runs the grid shows, as Dagu's history tab does. */
export const HISTORY_RUNS = 30;

/** `03-01 10:02`: a run's column header (the full time is in its tooltip). */
const shortTime = (run: HistoryRun) => formatTime(run.started_at ?? run.created_at).slice(5, 16);

export function HistoryGrid({ dag, steps }: { dag: string; steps: readonly string[] }) {
  const { data, error, refetch } = useQuery(dagHistoryQuery(dag, HISTORY_RUNS));
  if (!data) {
    return error ? (
      <ErrorPanel title="Cannot load the history" message={errorText(error)} onRetry={() => void refetch()} />
    ) : (
      <LoadingPanel label="Loading the history…" />
    );
  }
  if (data.runs.length === 0) return null;
  // Oldest left, so that time reads left to right like the sparkline and the trend.
  const runs = [...data.runs].reverse();
  const columns = historyColumns(steps, data.steps);
  const durations = runs.map((r) => r.duration_ms);
  const mid = median(durations);
  const failed = runs.filter(
    (r) => r.status === 'failed' || r.status === 'aborted' || r.status === 'rejected',
  ).length;
  const succeeded = runs.filter((r) => r.status === 'succeeded').length;

  return (
    <section aria-labelledby="history-heading" className="flex flex-col gap-3" data-testid="dag-history">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
        <h2 id="history-heading" className="text-lg font-semibold">
          History
        </h2>
        <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="history-summary">
          Last {runs.length} runs: {succeeded} succeeded, {failed} failed or aborted
          {mid !== null && <> · median {formatDurationMs(mid)}</>}
        </p>
        <Sparkline durations={durations} />
      </div>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className="border-separate border-spacing-0.5 text-xs" data-testid="history-grid">
          <caption className="sr-only">
            States of the steps of {dag} in its last {runs.length} runs, oldest first
          </caption>
          <thead>
            <tr>
              <th scope="col" className="px-2 py-1 text-left font-medium">
                Step
              </th>
              {runs.map((run) => (
                <th key={run.run_id} scope="col" className="px-0.5 py-1 align-bottom font-normal">
                  <Link
                    href={runHref(run.run_id)}
                    title={`${run.run_id}: ${run.status}, ${formatTime(run.started_at ?? run.created_at)}`}
                    aria-label={`Run ${run.run_id}, ${run.status}, ${formatTime(run.started_at ?? run.created_at)}`}
                    data-testid="history-run"
                    data-run-id={run.run_id}
                    data-status={run.status}
                    className="flex flex-col items-center gap-0.5 rounded focus-visible:outline-2 focus-visible:outline-blue-500"
                  >
                    <span className="[writing-mode:vertical-rl] whitespace-nowrap text-zinc-500 dark:text-zinc-400">
                      {shortTime(run)}
                    </span>
                    <RunDot status={run.status} />
                  </Link>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {columns.map((step) => (
              <tr key={step}>
                <th scope="row" className="max-w-48 truncate px-2 text-left font-medium" title={step}>
                  {step}
                </th>
                {runs.map((run) => {
                  const cell = historyCell(run, step, formatTime(run.started_at ?? run.created_at));
                  return (
                    <td key={run.run_id} className="p-0">
                      {cell.state === 'absent' ? (
                        <span
                          className={`block size-6 rounded border ${cell.className}`}
                          title={cell.label}
                          aria-label={cell.label}
                          role="img"
                          data-testid="history-cell"
                          data-run-id={run.run_id}
                          data-step={step}
                          data-state={cell.state}
                        />
                      ) : (
                        <Link
                          href={runHref(run.run_id, step)}
                          title={cell.label}
                          aria-label={cell.label}
                          data-testid="history-cell"
                          data-run-id={run.run_id}
                          data-step={step}
                          data-state={cell.state}
                          className={`flex size-6 items-center justify-center rounded border text-[11px] leading-none focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500 ${cell.className}`}
                        >
                          <span aria-hidden>{cell.glyph}</span>
                        </Link>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs" aria-label="Legend" data-testid="history-legend">
        {statesShown(runs, columns).map((state) => (
          <li key={state} className="flex items-center gap-1">
            <span
              aria-hidden
              className={`flex size-4 items-center justify-center rounded border text-[10px] ${cellClass(state)}`}
            >
              {CELL_GLYPHS[state]}
            </span>
            {cellStateLabel(state)}
          </li>
        ))}
      </ul>
      <DurationTrend runs={runs} />
    </section>
  );
}

/** The run's own state above its column (its words are in the link's name). */
function RunDot({ status }: { status: HistoryRun['status'] }) {
  const mark = runMark(status);
  return (
    <span
      aria-hidden
      className={`flex size-4 items-center justify-center rounded-full border text-[10px] ${mark.className}`}
    >
      {mark.glyph}
    </span>
  );
}

/** Durations of the runs, oldest left: a small line beside the counts. */
function Sparkline({ durations }: { durations: ReadonlyArray<number | null> }) {
  const d = sparklinePath(durations, 120, 24);
  if (d === '') return null;
  const known = durations.filter((v): v is number => v !== null);
  return (
    <svg
      width={120}
      height={24}
      viewBox="0 0 120 24"
      role="img"
      aria-label={`Duration sparkline: from ${formatDurationMs(Math.min(...known))} to ${formatDurationMs(Math.max(...known))}`}
      data-testid="history-sparkline"
      className="text-blue-600 dark:text-blue-400"
    >
      <path d={d} fill="none" stroke="currentColor" strokeWidth={1.5} strokeLinejoin="round" />
    </svg>
  );
}
