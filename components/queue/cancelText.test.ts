import { describe, expect, it } from 'vitest';
import { cancelQuestion, cancellingText, cancelSummary } from './cancelText';

const result = (run_id: string, ok: boolean, error: string | null = null) => ({
  run_id,
  ok,
  status: ok ? ('aborted' as const) : ('running' as const),
  error,
});

describe('cancel texts', () => {
  it('counts runs in words that agree with the number', () => {
    expect(cancellingText(1)).toBe('Cancelling 1 run…');
    expect(cancellingText(3)).toBe('Cancelling 3 runs…');
    expect(cancelQuestion(1)).toBe('Cancel this run?');
    expect(cancelQuestion(2)).toBe('Cancel 2 runs?');
  });
});

describe('cancelSummary', () => {
  it('says how many were cancelled when all were', () => {
    expect(cancelSummary([result('a', true), result('b', true)])).toEqual({
      text: 'Cancelled 2 runs.',
      failed: [],
    });
  });

  it('lists the refused runs after the count of the others', () => {
    const refused = result('b', false, 'run is running, not waiting');
    const summary = cancelSummary([result('a', true), refused]);
    expect(summary.text).toBe('Cancelled 1 run. 1 could not be cancelled:');
    expect(summary.failed).toEqual([refused]);
  });

  it('says nothing was cancelled when every run was refused', () => {
    expect(cancelSummary([result('a', false), result('b', false)]).text).toBe(
      'No run was cancelled. 2 could not be cancelled:',
    );
  });
});
