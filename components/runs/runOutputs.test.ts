import { describe, expect, it } from 'vitest';
import type { StepStatus } from '@/components/apiTypes';
import { outputRows, previewValue } from './runOutputs';

const step = (name: string, extra: Partial<StepStatus>): StepStatus => ({
  name,
  status: 'succeeded',
  started_at: null,
  finished_at: null,
  exit_code: 0,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
  ...extra,
});

describe('outputRows', () => {
  it("lists each step's output variable and declared outputs in row order, with handler labels", () => {
    const rows = outputRows([
      { step: step('greet', { output: { GREETING: 'hello' } }) },
      { step: step('none', {}) },
      { step: step('count', { outputs: { total: '3', ok: 'true' } }) },
      { step: step('onExit', { output: { DONE: '1' } }), label: 'onExit' },
    ]);
    expect(rows.map((r) => [r.stepLabel, r.name, r.value, r.kind])).toEqual([
      ['greet', 'GREETING', 'hello', 'output'],
      ['count', 'total', '3', 'outputs'],
      ['count', 'ok', 'true', 'outputs'],
      ['onExit', 'DONE', '1', 'output'],
    ]);
  });
});

describe('previewValue', () => {
  it('keeps a short one-line value whole', () => {
    expect(previewValue('hello')).toEqual({ text: 'hello', cut: false });
  });

  it('cuts a long value at the limit and a multi-line value at its first line', () => {
    expect(previewValue('x'.repeat(300), 200)).toEqual({ text: 'x'.repeat(200), cut: true });
    expect(previewValue('first\nsecond')).toEqual({ text: 'first', cut: true });
  });
});
