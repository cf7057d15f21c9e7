import { describe, expect, it } from 'vitest';
import { buildLine } from './types';

describe('buildLine', () => {
  it('writes the decision and the reason', () => {
    expect(buildLine({ decision: 'execute', phase: 'execute', reason: 'manifest_missing' })).toBe(
      'build: execute (manifest_missing)',
    );
  });

  it('writes none for a reason not reached yet', () => {
    expect(buildLine({ decision: 'none', phase: 'precondition' })).toBe('build: none (none)');
  });

  it('adds the detail and the producer of a reused output', () => {
    expect(
      buildLine({
        decision: 'reuse',
        phase: 'complete',
        reason: 'matched',
        detail: 'recipe, inputs, and output match the committed manifest',
        producer_run: { dag_name: 'etl', run_id: 'r-1' },
        producer_attempt: 2,
      }),
    ).toBe(
      'build: reuse (matched) - recipe, inputs, and output match the committed manifest; producer: etl/r-1',
    );
  });

  it('leaves out an empty detail', () => {
    expect(
      buildLine({
        decision: 'always',
        phase: 'execute',
        reason: 'ineligible',
        detail: '',
        producer_run: { dag_name: 'd', run_id: 'x' },
      }),
    ).toBe('build: always (ineligible); producer: d/x');
  });
});
