// A run's Gantt timeline: its wait to start (queued or held), then each step in the order it started with
// its bar (or, when it was retried or repeated, one bar per try with the pause before each), the wait before
// it, and its retry and repeat counts; a running step's bar grows to now. Every row
// says in words what the bar shows, so the chart reads without colour or sight.

import { Fragment } from 'react';
import type { RunStatus } from '@/components/apiTypes';
import { formatDurationMs } from '../format';
import { STEP_SWATCH_STYLES, stepStateLabel } from '../graph/stepStateStyles';
import { runTimeline, type Segment, type TimelineRow, type TimelineTry } from './timeline';
import type { StepRowData } from './runSteps';

export function RunTimeline({
  run,
  rows,
  now,
}: {
  run: RunStatus;
  rows: readonly StepRowData[];
  now: number | null;
}) {
  const t = runTimeline(run, rows, run.finished_at ? null : now);
  if (!run.started_at && t.queued === null && t.rows.every((r) => r.bar === null)) return null;
  const offset = (ms: number) => `+${formatDurationMs(ms - t.startMs)}`;
  return (
    <section aria-labelledby="timeline-heading" className="flex flex-col gap-2" data-testid="run-timeline">
      <h2 id="timeline-heading" className="text-lg font-semibold">
        Timeline
      </h2>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 p-3 text-xs dark:border-zinc-800">
        <div className="grid min-w-[36rem] grid-cols-[12rem_1fr_6rem] items-center gap-x-2 gap-y-1">
          <span />
          <div className="relative h-4 text-zinc-500 dark:text-zinc-400" aria-hidden>
            {t.ticks.map((tick) => (
              <span
                key={tick.ms}
                className="absolute -translate-x-1/2 whitespace-nowrap"
                style={{ left: `${tick.left}%` }}
              >
                +{formatDurationMs(tick.ms)}
              </span>
            ))}
          </div>
          <span />
          <ol className="contents">
            {t.queued && (
              <li className="contents" data-testid="gantt-queued">
                <span className="truncate text-zinc-600 italic dark:text-zinc-400">waiting to start</span>
                <Track>
                  <Bar
                    segment={t.queued}
                    className="border-sky-400 bg-sky-100 dark:bg-sky-900"
                    label={`The run waited ${formatDurationMs(t.queued.endMs - t.queued.startMs)} to start (queued or held)`}
                  />
                </Track>
                <span className="text-right tabular-nums">
                  {formatDurationMs(t.queued.endMs - t.queued.startMs)}
                </span>
              </li>
            )}
            {t.rows.map((row) => (
              <li key={row.label} className="contents" data-testid="gantt-row" data-step={row.name}>
                <span className="truncate font-medium" title={row.label}>
                  {row.label}
                </span>
                <Track>
                  {row.wait && (
                    <Bar
                      segment={row.wait}
                      className="border-dashed border-zinc-400 bg-[repeating-linear-gradient(45deg,transparent,transparent_3px,rgb(161_161_170/0.4)_3px,rgb(161_161_170/0.4)_5px)]"
                      label={`${row.label} waited ${formatDurationMs(row.wait.endMs - row.wait.startMs)} after its upstream steps`}
                    />
                  )}
                  {row.bar && row.tries.length === 0 && (
                    <Bar
                      segment={row.bar}
                      className={`${STEP_SWATCH_STYLES[row.state]} ${row.live ? 'animate-pulse' : ''}`}
                      label={rowText(row, offset)}
                    />
                  )}
                  {row.tries.map((t, i) => (
                    <Fragment key={i}>
                      {t.pause && (
                        <Bar
                          segment={t.pause}
                          className="border-dashed border-zinc-400 bg-[repeating-linear-gradient(45deg,transparent,transparent_3px,rgb(161_161_170/0.4)_3px,rgb(161_161_170/0.4)_5px)]"
                          label={`${row.label} paused ${formatDurationMs(t.pause.endMs - t.pause.startMs)} before its ${t.kind} ${i}`}
                        />
                      )}
                      <Bar
                        segment={t.segment}
                        className={`${STEP_SWATCH_STYLES[t.outcome]} ${t.outcome === 'running' ? 'animate-pulse' : ''}`}
                        label={tryText(row, t, i, offset)}
                      />
                    </Fragment>
                  ))}
                  {!row.bar && (
                    <span className="absolute inset-y-0 left-1 text-zinc-500">
                      {stepStateLabel(row.state)}
                    </span>
                  )}
                </Track>
                <span
                  className="text-right whitespace-nowrap tabular-nums"
                  data-testid={`gantt-duration-${row.name}`}
                >
                  {row.bar ? formatDurationMs(row.bar.endMs - row.bar.startMs) : '—'}
                  {row.retries > 0 && <span title={`retried ${row.retries} times`}> ↻{row.retries}</span>}
                  {row.repeats > 0 && <span title={`repeated ${row.repeats} times`}> ⟳{row.repeats}</span>}
                </span>
              </li>
            ))}
          </ol>
        </div>
      </div>
    </section>
  );
}

function tryText(row: TimelineRow, t: TimelineTry, i: number, offset: (ms: number) => string): string {
  const what = t.kind === 'first' ? 'first try' : `${t.kind} ${i}`;
  const took = formatDurationMs(t.segment.endMs - t.segment.startMs);
  const end =
    t.outcome === 'running'
      ? `running for ${took}`
      : `took ${took}, ${t.outcome === 'succeeded' ? 'exit 0' : `failed${t.exitCode === null ? '' : ` with exit ${t.exitCode}`}`}`;
  return `${row.label}, ${what}: started ${offset(t.segment.startMs)}, ${end}`;
}

function rowText(row: TimelineRow, offset: (ms: number) => string): string {
  const bar = row.bar!;
  const parts = [
    `${row.label}: ${stepStateLabel(row.state)}`,
    `started ${offset(bar.startMs)}`,
    `${row.live ? 'running for' : 'took'} ${formatDurationMs(bar.endMs - bar.startMs)}`,
  ];
  if (row.retries > 0) parts.push(`retried ${row.retries} time${row.retries === 1 ? '' : 's'}`);
  if (row.repeats > 0) parts.push(`repeated ${row.repeats} time${row.repeats === 1 ? '' : 's'}`);
  return parts.join(', ');
}

function Track({ children }: { children: React.ReactNode }) {
  return <div className="relative h-5 rounded bg-zinc-50 dark:bg-zinc-900">{children}</div>;
}

function Bar({ segment, className, label }: { segment: Segment; className: string; label: string }) {
  return (
    <span
      role="img"
      aria-label={label}
      title={label}
      className={`absolute inset-y-0.5 min-w-[2px] rounded-sm border ${className}`}
      style={{ left: `${segment.left}%`, width: `${segment.width}%` }}
    />
  );
}
