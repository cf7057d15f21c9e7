import { describe, expect, it } from 'vitest';
import type { StepStatus } from '../core/types';
import { testRunStatus } from '../testing/testRunStatus';
import { dispatchRequestSchema, leaveSchema, statusReportSchema } from './requestSchemas';

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

  it('keeps every field of a step and of the handlers, so the stored run loses nothing the worker knew', () => {
    const full: StepStatus = {
      ...step,
      status: 'waiting',
      output: { OUT: 'x' },
      outputs: { count: '3' },
      output_value: '{"a":1}',
      published_outputs: { a: 1, nested: { b: [true] } },
      repeat_count: 2,
      executions: [
        {
          kind: 'first',
          started_at: '2026-11-30T01:14:30Z',
          finished_at: '2026-11-30T01:14:31Z',
          exit_code: 0,
        },
        { kind: 'repeat', started_at: '2026-11-30T01:14:32Z', finished_at: null, exit_code: null },
      ],
      skip_reason: 'precondition not met: `test -f x`',
      foreach_items: [{ index: 0, key: '0', label: 'a', status: 'failed', error: 'boom' }],
      human_task: {
        id: 'review',
        prompt: 'Ship it?',
        max_size: 1024,
        form: { type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false },
        input: { ok: true },
        completed_at: '2026-11-30T01:15:00Z',
      },
      sub_runs: [{ dag_name: 'child', run_id: 'c1', status: 'partially_succeeded', item: 'a' }],
      approval: {
        prompt: 'Approve?',
        input: ['TICKET'],
        required: ['TICKET'],
        rewind_to: null,
        approved_at: '2026-11-30T01:16:00Z',
        inputs: { TICKET: 'T-1' },
      },
      push_back: {
        iteration: 1,
        inputs: { TICKET: 'T-0' },
        history: [{ iteration: 1, at: '2026-11-30T01:15:30Z', inputs: { TICKET: 'T-0' } }],
        previous_stdout: 'etl/r1/1/b.out',
      },
      depends: ['a'],
    };
    const status = testRunStatus({
      run_id: 'r1',
      status: 'waiting',
      steps: [full],
      handlers: { init: { ...step, name: 'onInit' }, wait: { ...step, name: 'onWait' } },
    });
    const parsed = statusReportSchema.parse({ worker_id: 'w1', status });
    expect(parsed.status).toEqual(status);
  });

  it('accepts a step without depends, as older workers send it', () => {
    const status = testRunStatus({ run_id: 'r1', status: 'running', steps: [step] });
    expect(
      statusReportSchema.parse({ worker_id: 'w1', token: 't', status }).status.steps[0].depends,
    ).toBeUndefined();
  });

  it('takes the logs a final status carries, and refuses a path for a name or a file named twice', () => {
    const status = testRunStatus({ run_id: 'r1', status: 'succeeded', steps: [step] });
    const piece = { file: 'b.out', offset: 0, data: 'hi\n', encoding: 'utf8' };
    expect(statusReportSchema.parse({ worker_id: 'w1', status, logs: [piece] }).logs).toEqual([piece]);
    for (const logs of [[{ ...piece, file: '../b.out' }], [{ ...piece, file: '..' }], [piece, piece], []]) {
      expect(statusReportSchema.safeParse({ worker_id: 'w1', status, logs }).success).toBe(false);
    }
  });
});

describe('dispatchRequestSchema', () => {
  const request = { dag_name: 'child', run_id: 'r1', worker_selector: null, parent: null };

  it('refuses a parameter that contains a NUL character', () => {
    const parsed = dispatchRequestSchema.safeParse({ ...request, params: ['A=1', 'B=x\0y'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['params', 1],
      message: 'a parameter cannot contain a NUL character',
    });
  });

  it('accepts ordinary parameters', () => {
    expect(dispatchRequestSchema.parse({ ...request, params: ['A=1', 'B=two words'] }).params).toEqual([
      'A=1',
      'B=two words',
    ]);
  });
});

describe('leaveSchema', () => {
  it('takes a worker ID and refuses one that is not valid', () => {
    expect(leaveSchema.parse({ worker_id: 'w1@host-a' })).toEqual({ worker_id: 'w1@host-a' });
    expect(leaveSchema.safeParse({ worker_id: '../w1' }).success).toBe(false);
    expect(leaveSchema.safeParse({}).success).toBe(false);
  });
});
