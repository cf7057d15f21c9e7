import type { StepStatus } from '../../core/types';
import { describe, expect, it } from 'vitest';
import { testRunStatus } from '../../testing/testRunStatus';
import { cancelLine, dispatchLine, exitCodeOf } from './dispatchClient';

describe('dispatchLine', () => {
  it('names the run and the selector of a dispatched run', () => {
    expect(dispatchLine('dispatched', 'r1', { zone: 'b' }, 120_000)).toBe(
      'Dispatched r1 to a worker matching {zone: b}',
    );
  });

  it('names the selector and the wait, the Go way, of a held run', () => {
    expect(dispatchLine('held', 'r1', { zone: 'b', gpu: 'true' }, 120_000)).toBe(
      'Holding r1: no healthy worker matches {gpu: true, zone: b}; waiting up to 2m0s',
    );
  });
});

describe('cancelLine', () => {
  it('says a run waiting for a worker was cancelled before one took it', () => {
    const status = testRunStatus({ run_id: 'r1', status: 'aborted' });
    expect(cancelLine({ kind: 'aborted', status }, 'r1', null)).toBe('Cancelled r1 before a worker took it');
  });

  it('names the worker asked to stop the run, from the run or else from the claim', () => {
    const onWorker = testRunStatus({ run_id: 'r1', status: 'running', worker_id: 'worker-b' });
    expect(cancelLine({ kind: 'requested', status: onWorker }, 'r1', null)).toBe(
      'Asked worker worker-b to stop r1',
    );
    const claimed = testRunStatus({ run_id: 'r1', status: 'queued', worker_id: null });
    expect(cancelLine({ kind: 'requested', status: claimed }, 'r1', 'worker-c')).toBe(
      'Asked worker worker-c to stop r1',
    );
  });

  it('speaks of the claiming worker when no worker has acknowledged the run yet', () => {
    const claimed = testRunStatus({ run_id: 'r1', status: 'queued', worker_id: null });
    expect(cancelLine({ kind: 'requested', status: claimed }, 'r1', null)).toBe(
      'Asked the worker that claimed r1 to stop it',
    );
  });

  it('has nothing to say when there was nothing to cancel', () => {
    expect(cancelLine({ kind: 'not_found' }, 'r1', null)).toBeNull();
  });
});

describe('exitCodeOf', () => {
  it('follows Dagu: 0 for a success or a clean stop, 1 for a failure or a partial success a step failed', () => {
    const code = (status: 'succeeded' | 'partially_succeeded' | 'failed' | 'aborted') =>
      exitCodeOf(testRunStatus({ run_id: 'r1', status }));
    expect([code('succeeded'), code('failed'), code('aborted')]).toEqual([0, 1, 0]);
    // Partially succeeded: 1 through a failed step, 0 when only a child run partially succeeded.
    const partial = testRunStatus({ run_id: 'r1', status: 'partially_succeeded' });
    const step = (name: string, state: StepStatus['status']) => ({
      ...partial.steps[0],
      name,
      status: state,
    });
    expect(exitCodeOf({ ...partial, steps: [step('a', 'failed'), step('b', 'succeeded')] })).toBe(1);
    expect(exitCodeOf({ ...partial, steps: [step('call', 'partially_succeeded')] })).toBe(0);
  });

  it('is 1 for an aborted run whose init handler or a step failed', () => {
    const aborted = testRunStatus({ run_id: 'r1', status: 'aborted' });
    const failed: StepStatus = {
      name: 'onInit',
      status: 'failed',
      started_at: null,
      finished_at: null,
      exit_code: 1,
      error: 'exit code 1',
      retry_count: 0,
      stdout: null,
      stderr: null,
      output: null,
    };
    expect(exitCodeOf({ ...aborted, handlers: { init: failed } })).toBe(1);
    expect(exitCodeOf({ ...aborted, steps: [{ ...failed, name: 'check' }] })).toBe(1);
  });
});
