// What one cell of the history grid says: the step's state as colour, a glyph and words, so that colour is
// never the only cue (the glyph shows in the cell, the words are its accessible name and tooltip).

import type { HistoryRun, StepState } from '@/components/apiTypes';
import { STEP_SWATCH_STYLES, stepStateLabel } from '../graph/stepStateStyles';

/** A step that did not exist in that run (renamed, added later) or whose run's record cannot be read. */
export type CellState = StepState | 'absent';

export interface HistoryCell {
  state: CellState;
  /** One character shown in the cell. */
  glyph: string;
  /** Background and border classes. */
  className: string;
  /** `load in run r2 (2026-03-01 10:02:00Z): failed, retried 2 times`. */
  label: string;
}

export const CELL_GLYPHS: Record<CellState, string> = {
  not_started: '·',
  running: '▸',
  retrying: '↻',
  waiting: '⏸',
  succeeded: '✓',
  partially_succeeded: '◐',
  failed: '✗',
  skipped: '–',
  aborted: '■',
  rejected: '⊘',
  absent: ' ',
};

const ABSENT_STYLE = 'border-transparent bg-zinc-50 dark:bg-zinc-900/40';

/** Background and border classes of a cell in this state (also the legend's swatch). */
export function cellClass(state: CellState): string {
  return state === 'absent' ? ABSENT_STYLE : STEP_SWATCH_STYLES[state];
}

/** The run's own state above its column: glyph and swatch of the nearest step state. */
export function runMark(status: HistoryRun['status']): { glyph: string; className: string } {
  if (status === 'corrupt')
    return { glyph: '?', className: 'border-fuchsia-500 bg-fuchsia-200 dark:bg-fuchsia-800' };
  const state: CellState = status === 'queued' ? 'not_started' : status;
  return { glyph: CELL_GLYPHS[state], className: cellClass(state) };
}

export function cellStateLabel(state: CellState): string {
  return state === 'absent' ? 'not in this run' : stepStateLabel(state);
}

/** The cell of `step` in `run`; `when` is the run's time as the grid writes it. */
export function historyCell(run: HistoryRun, step: string, when: string): HistoryCell {
  const s = run.steps?.[step];
  const state: CellState = s ? s.status : 'absent';
  const retries =
    s && s.retry_count > 0 ? `, retried ${s.retry_count} time${s.retry_count === 1 ? '' : 's'}` : '';
  return {
    state,
    glyph: CELL_GLYPHS[state],
    className: cellClass(state),
    label: `${step} in run ${run.run_id} (${when}): ${cellStateLabel(state)}${retries}`,
  };
}

/** The states that occur in these runs, in the legend's order: only what the grid shows is explained. */
export function statesShown(runs: readonly HistoryRun[], steps: readonly string[]): CellState[] {
  const seen = new Set<CellState>();
  for (const run of runs) for (const step of steps) seen.add(run.steps?.[step]?.status ?? 'absent');
  return (Object.keys(CELL_GLYPHS) as CellState[]).filter((s) => seen.has(s));
}

/**
 * The grid's columns: the definition's steps in the order the DAG runs them (`ordered`), then the ones only
 * seen in history, in the order the API gave them.
 */
export function historyColumns(ordered: readonly string[], fromApi: readonly string[]): string[] {
  const known = new Set(ordered);
  return [...ordered.filter((s) => fromApi.includes(s)), ...fromApi.filter((s) => !known.has(s))];
}
