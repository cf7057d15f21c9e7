// The duration trend of a DAG's last runs: one bar per run (oldest left, coloured by its state and linking
// to it), the median as a dashed line, and a scale; runs without a duration leave their slot empty.

import Link from 'next/link';
import type { HistoryRun } from '@/components/apiTypes';
import { formatDurationMs, formatTime } from '../format';
import { runHref } from '../runs/runLinks';
import { trendGeometry } from './durationChart';

const WIDTH = 600;
const HEIGHT = 120;
/** Room left of the plot for the scale's labels. */
const AXIS = 48;

const BAR_FILL: Record<string, string> = {
  succeeded: 'fill-emerald-500',
  partially_succeeded: 'fill-lime-500',
  failed: 'fill-red-500',
  aborted: 'fill-orange-500',
  rejected: 'fill-rose-600',
  running: 'fill-blue-500',
};

export function DurationTrend({ runs }: { runs: readonly HistoryRun[] }) {
  const g = trendGeometry(
    runs.map((r) => r.duration_ms),
    WIDTH - AXIS,
    HEIGHT,
  );
  if (g.median === null) return null;
  const known = runs.flatMap((r) => (r.duration_ms === null ? [] : [r.duration_ms]));
  const summary =
    `Durations of the last ${runs.length} runs, oldest first: median ${formatDurationMs(g.median)}, ` +
    `shortest ${formatDurationMs(Math.min(...known))}, longest ${formatDurationMs(Math.max(...known))}`;
  return (
    <figure className="flex flex-col gap-1" data-testid="duration-trend">
      <figcaption className="text-sm font-medium">Duration trend</figcaption>
      <svg
        viewBox={`0 -8 ${WIDTH} ${HEIGHT + 24}`}
        className="h-auto w-full max-w-2xl text-zinc-500 dark:text-zinc-400"
        role="group"
        aria-label={summary}
      >
        {g.ticks.map((t) => (
          <g key={t}>
            <line
              x1={AXIS}
              x2={WIDTH}
              y1={g.y(t)}
              y2={g.y(t)}
              className="stroke-zinc-200 dark:stroke-zinc-800"
            />
            <text x={AXIS - 4} y={g.y(t) + 4} textAnchor="end" fontSize={10} fill="currentColor">
              {formatDurationMs(t)}
            </text>
          </g>
        ))}
        <g transform={`translate(${AXIS} 0)`}>
          {g.bars.map((bar, i) => {
            const run = runs[i];
            if (bar === null) return null;
            const label = `${run.run_id} (${formatTime(run.started_at)}): ${run.status}, ${formatDurationMs(run.duration_ms ?? 0)}`;
            return (
              <Link key={run.run_id} href={runHref(run.run_id)} aria-label={label} data-testid="trend-bar">
                <rect
                  x={bar.x}
                  y={bar.y}
                  width={bar.width}
                  height={Math.max(bar.height, 1)}
                  className={`${BAR_FILL[run.status] ?? 'fill-zinc-400'} hover:opacity-80`}
                >
                  <title>{label}</title>
                </rect>
              </Link>
            );
          })}
          {g.medianY !== null && (
            <line
              x1={0}
              x2={WIDTH - AXIS}
              y1={g.medianY}
              y2={g.medianY}
              strokeDasharray="4 3"
              className="stroke-zinc-900 dark:stroke-zinc-100"
              data-testid="trend-median"
            />
          )}
        </g>
        <text x={WIDTH} y={HEIGHT + 13} textAnchor="end" fontSize={10} fill="currentColor">
          dashed: median {formatDurationMs(g.median)}
        </text>
      </svg>
    </figure>
  );
}
