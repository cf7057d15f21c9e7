import { describe, expect, it } from 'vitest';
import { testRunStatus } from '../../store/testRunStatus';
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
  it('is 0 for a success or a partial success and 1 otherwise', () => {
    const code = (status: 'succeeded' | 'partially_succeeded' | 'failed' | 'aborted') =>
      exitCodeOf(testRunStatus({ run_id: 'r1', status }));
    expect([code('succeeded'), code('partially_succeeded'), code('failed'), code('aborted')]).toEqual([
      0, 0, 1, 1,
    ]);
  });
});
