// Geometry of a run's Gantt timeline: the span it covers (from the moment the run was queued or created to
// its end, or now while it runs), one row per step in the order they started, each with its bar, the wait
// before it (from the moment its upstream steps were done to its start: a `delay_sec`, a slot in a full
// run, a retry interval before its first recorded start) and its retry and repeat counts. Positions are
// percentages of the plot's width, so the chart needs no measuring.

import type { RunStatus, StepState, StepStatus } from '@/components/apiTypes';
import type { StepRowData } from './runSteps';

/** A stretch of the plot, in percent of its width. */
export interface Segment {
  left: number;
  width: number;
  startMs: number;
  endMs: number;
}

export interface TimelineRow {
  name: string;
  /** What the row is called (a handler's `on failure: notify`). */
  label: string;
  state: StepState;
  /** Null for a step that never started. */
  bar: Segment | null;
  /** Time between the step's upstream being done (or the run's start) and its own start; null if none. */
  wait: Segment | null;
  /** Still going: its bar ends at now. */
  live: boolean;
  retries: number;
  repeats: number;
  /**
   * Each run of the command when there was more than one (retries, repeats), with the pause before each
   * later one (a retry or repeat interval); empty when it ran once, which `bar` shows.
   */
  tries: TimelineTry[];
}

/** One run of a step's command in the timeline, and the pause before it (null for the first). */
export interface TimelineTry {
  kind: 'first' | 'retry' | 'repeat';
  segment: Segment;
  /** Its outcome: exit 0 succeeded, another code failed; null while it runs. */
  outcome: 'succeeded' | 'failed' | 'running';
  exitCode: number | null;
  pause: Segment | null;
}

export interface Timeline {
  startMs: number;
  endMs: number;
  /** The run waiting to start (queued, or held for a worker), before its first step. */
  queued: Segment | null;
  rows: TimelineRow[];
  ticks: Array<{ ms: number; left: number }>;
}

const ms = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

/** Maps a time to its position in percent of [startMs, endMs], clamped to the plot. */
export function percentScale(startMs: number, endMs: number): (t: number) => number {
  const span = Math.max(1, endMs - startMs);
  return (t) => Math.round(Math.min(100, Math.max(0, ((t - startMs) / span) * 100)) * 100) / 100;
}

function segment(scale: (t: number) => number, startMs: number, endMs: number): Segment {
  const left = scale(startMs);
  return { left, width: Math.max(0, Math.round((scale(endMs) - left) * 100) / 100), startMs, endMs };
}

/** A tick step of 1, 2 or 5 × 10^k ms giving at most `count` ticks over `spanMs`. */
export function tickStep(spanMs: number, count = 5): number {
  const raw = Math.max(1, spanMs / Math.max(1, count));
  const exp = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5]) if (m * exp >= raw) return m * exp;
  return 10 * exp;
}

/**
 * The timeline of a run at `nowMs` (null before the clock is known: a live run then ends at its last known
 * time). `rows` are the run page's rows (steps, then handlers); they are listed by start time, steps that
 * never started last, in the order given.
 */
export function runTimeline(
  run: Pick<RunStatus, 'created_at' | 'queued_at' | 'started_at' | 'finished_at'>,
  rows: readonly StepRowData[],
  nowMs: number | null,
): Timeline {
  const created = ms(run.queued_at) ?? ms(run.created_at);
  const started = ms(run.started_at);
  const stepTimes = rows.flatMap(({ step }) => [ms(step.started_at), ms(step.finished_at)]);
  const known = [created, started, ms(run.finished_at), ...stepTimes].filter((t): t is number => t !== null);
  const startMs = Math.min(...known, ...(nowMs === null ? [] : [nowMs]));
  const endMs = ms(run.finished_at) ?? Math.max(...known, ...(nowMs === null ? [] : [nowMs]));
  const scale = percentScale(startMs, endMs);
  const finishedAt = new Map(rows.map(({ step }) => [step.name, ms(step.finished_at)]));
  const runStart = started ?? startMs;

  const ordered = rows
    .map((row, index) => ({ row, index, at: ms(row.step.started_at) }))
    .sort((a, b) => (a.at ?? Infinity) - (b.at ?? Infinity) || a.index - b.index);

  const timelineRows = ordered.map(({ row: { step, label } }): TimelineRow => {
    const at = ms(step.started_at);
    const live = at !== null && ms(step.finished_at) === null && isActive(step);
    const end = ms(step.finished_at) ?? (live ? endMs : at);
    // Handlers run once the steps are done: a wait from the run's start would say nothing.
    const ready = label === undefined ? readyAt(step, finishedAt, runStart) : null;
    return {
      name: step.name,
      label: label ?? step.name,
      state: step.status,
      bar: at === null || end === null ? null : segment(scale, at, Math.max(at, end)),
      wait: at !== null && ready !== null && at > ready ? segment(scale, ready, at) : null,
      live,
      retries: step.retry_count,
      repeats: step.repeat_count ?? 0,
      tries: triesOf(step, scale, endMs),
    };
  });

  const step = tickStep(endMs - startMs);
  const ticks: Timeline['ticks'] = [];
  for (let t = 0; t <= endMs - startMs; t += step) ticks.push({ ms: t, left: scale(startMs + t) });
  return {
    startMs,
    endMs,
    queued:
      created !== null && started !== null && started > created ? segment(scale, created, started) : null,
    rows: timelineRows,
    ticks,
  };
}

/** The step's recorded runs of its command, when there was more than one. */
function triesOf(step: StepStatus, scale: (t: number) => number, endMs: number): TimelineTry[] {
  const list = step.executions ?? [];
  if (list.length < 2) return [];
  const out: TimelineTry[] = [];
  let previousEnd: number | null = null;
  for (const e of list) {
    const start = ms(e.started_at);
    if (start === null) continue;
    const end = ms(e.finished_at) ?? endMs;
    out.push({
      kind: e.kind,
      segment: segment(scale, start, Math.max(start, end)),
      outcome: e.finished_at === null ? 'running' : e.exit_code === 0 ? 'succeeded' : 'failed',
      exitCode: e.exit_code,
      pause: previousEnd !== null && start > previousEnd ? segment(scale, previousEnd, start) : null,
    });
    previousEnd = ms(e.finished_at);
  }
  return out;
}

function isActive(step: StepStatus): boolean {
  return step.status === 'running' || step.status === 'retrying';
}

/** When a step could have started: its upstream all finished (or the run started, for a first step). */
function readyAt(step: StepStatus, finishedAt: Map<string, number | null>, runStart: number): number | null {
  const deps = step.depends ?? [];
  if (deps.length === 0) return runStart;
  let ready = runStart;
  for (const d of deps) {
    const t = finishedAt.get(d);
    if (t === undefined || t === null) return null;
    ready = Math.max(ready, t);
  }
  return ready;
}
