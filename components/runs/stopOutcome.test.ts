import { describe, expect, it } from 'vitest';
import { stopOutcome } from './stopOutcome';

describe('stopOutcome', () => {
  it('says the run ended when the answer has it ended', () => {
    expect(stopOutcome({ status: 'aborted', worker_id: null })).toBe('Stopped: the run is aborted now.');
    expect(stopOutcome({ status: 'succeeded', worker_id: 'w1' })).toBe('Stopped: the run is succeeded now.');
  });

  it('names the worker asked to stop a run it still runs', () => {
    expect(stopOutcome({ status: 'running', worker_id: 'gpu-1' })).toBe(
      'Worker gpu-1 was asked to stop it; it ends aborted shortly.',
    );
  });

  it('says a signal was sent to a local run still running', () => {
    expect(stopOutcome({ status: 'running', worker_id: null })).toBe(
      'Stop signal sent; the run ends aborted shortly.',
    );
  });
});
