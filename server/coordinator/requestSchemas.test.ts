import { describe, expect, it } from 'vitest';
import { testRunStatus } from '../store/testRunStatus';
import { statusReportSchema } from './requestSchemas';

const step = {
  name: 'b',
  status: 'running' as const,
  started_at: '2026-11-30T01:14:30Z',
  finished_at: null,
  exit_code: null,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
};

describe('statusReportSchema', () => {
  it("keeps the steps' depends a worker reports, so the console can draw the run's graph", () => {
    const status = testRunStatus({ run_id: 'r1', status: 'running', steps: [{ ...step, depends: ['a'] }] });
    const parsed = statusReportSchema.parse({ worker_id: 'w1', token: 't', status });
    expect(parsed.status.steps[0].depends).toEqual(['a']);
  });

  it('accepts a step without depends, as older workers send it', () => {
    const status = testRunStatus({ run_id: 'r1', status: 'running', steps: [step] });
    expect(
      statusReportSchema.parse({ worker_id: 'w1', token: 't', status }).status.steps[0].depends,
    ).toBeUndefined();
  });
});
