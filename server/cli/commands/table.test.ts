import { describe, expect, it } from 'vitest';
import { csvField, formatTable } from './table';
import { isGeneratedRunId } from './target';

describe('listing helpers', () => {
  it('aligns columns two spaces apart without padding the last one', () => {
    expect(
      formatTable(
        ['A', 'LONG'],
        [
          ['xyz', '1'],
          ['q', '22'],
        ],
      ),
    ).toEqual(['A    LONG', 'xyz  1', 'q    22']);
  });

  it('quotes a CSV field only when it must', () => {
    expect([csvField('plain'), csvField('a,b'), csvField('say "hi"')]).toEqual([
      'plain',
      '"a,b"',
      '"say ""hi"""',
    ]);
  });

  it('tells the run IDs we generate from DAG names', () => {
    expect(isGeneratedRunId('20261130-011530-1a2b3c4d')).toBe(true);
    expect(isGeneratedRunId('sched-0123456789ab-20261130T0115Z')).toBe(true);
    expect(isGeneratedRunId('sched-0123456789ab-20261130T011530Z')).toBe(true);
    expect(isGeneratedRunId('etl')).toBe(false);
    expect(isGeneratedRunId('nightly-2026')).toBe(false);
  });
});
