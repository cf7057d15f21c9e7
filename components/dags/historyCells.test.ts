import { describe, expect, it } from 'vitest';
import type { HistoryRun } from '@/components/apiTypes';
import { historyCell, historyColumns, statesShown } from './historyCells';

const run = (steps: HistoryRun['steps']): HistoryRun => ({
  run_id: 'r1',
  attempt: 1,
  status: 'failed',
  trigger_type: 'manual',
  created_at: '2026-03-01T10:00:00Z',
  started_at: '2026-03-01T10:00:00Z',
  finished_at: '2026-03-01T10:01:00Z',
  duration_ms: 60_000,
  steps,
});
const st = (status: NonNullable<HistoryRun['steps']>[string]['status'], retry_count = 0) => ({
  status,
  started_at: null,
  finished_at: null,
  retry_count,
});

describe('historyCell', () => {
  it('gives a failed step the red swatch, a cross and words that name the step, run and state', () => {
    const cell = historyCell(run({ load: st('failed', 2) }), 'load', '10:00');
    expect(cell.state).toBe('failed');
    expect(cell.glyph).toBe('✗');
    expect(cell.className).toContain('bg-red-200');
    expect(cell.label).toBe('load in run r1 (10:00): failed, retried 2 times');
  });

  it('tells a succeeded, a skipped and a partially succeeded step apart without colour', () => {
    const r = run({ a: st('succeeded'), b: st('skipped'), c: st('partially_succeeded') });
    const glyphs = ['a', 'b', 'c'].map((s) => historyCell(r, s, '').glyph);
    expect(new Set(glyphs).size).toBe(3);
    expect(historyCell(r, 'c', 'x').label).toBe('c in run r1 (x): partially succeeded');
  });

  it('marks a step the run did not have, and every step of an unreadable run, as absent', () => {
    expect(historyCell(run({ a: st('succeeded') }), 'b', '').state).toBe('absent');
    expect(historyCell(run(null), 'a', '').label).toContain('not in this run');
  });
});

describe('statesShown', () => {
  it('lists only the states that occur, in legend order', () => {
    const runs = [run({ a: st('failed'), b: st('succeeded') }), run({ a: st('succeeded') })];
    expect(statesShown(runs, ['a', 'b'])).toEqual(['succeeded', 'failed', 'absent']);
  });
});

describe('historyColumns', () => {
  it('puts the definition steps in run order first, then steps only seen in history', () => {
    expect(historyColumns(['extract', 'load'], ['load', 'extract', 'old'])).toEqual([
      'extract',
      'load',
      'old',
    ]);
  });
});
