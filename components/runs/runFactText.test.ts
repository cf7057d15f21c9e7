import { describe, expect, it } from 'vitest';
import { hostText, selectorLabels, selectorText, startedByText, workerText } from './runFactText';

describe('startedByText', () => {
  it('says who started the run, and which scheduler dispatched it', () => {
    expect(startedByText({ trigger_type: 'manual', dispatched_by: null })).toBe('started by an operator');
    expect(startedByText({ trigger_type: 'scheduler', dispatched_by: 'sched-a' })).toBe(
      'started by the scheduler, for its slot (scheduler sched-a)',
    );
    expect(startedByText({ trigger_type: 'catchup' })).toBe('started by catch-up of a missed slot');
  });

  it('names a trigger this console does not know as the server sent it', () => {
    const fromNewerServer = { trigger_type: 'webhook' } as unknown as Parameters<typeof startedByText>[0];
    expect(startedByText(fromNewerServer)).toBe('started by webhook');
  });
});

describe('selector texts', () => {
  it('writes the labels in order, in braces', () => {
    expect(selectorLabels({ zone: 'b', gpu: 'true' })).toBe('zone: b, gpu: true');
    expect(selectorText({ zone: 'b', gpu: 'true' })).toBe('{zone: b, gpu: true}');
  });

  it('tells an empty selector (any worker) from none (a local run)', () => {
    expect(selectorLabels({})).toBe('');
    expect(selectorText({})).toBe('any worker');
    expect(selectorLabels(null)).toBeNull();
    expect(selectorText(null)).toBe('—');
  });
});

describe('workerText', () => {
  it('names the worker that has the run', () => {
    expect(workerText({ worker_id: 'w1', worker_selector: { zone: 'b' } })).toBe('w1');
  });

  it('says a run for the workers is not claimed yet, even with an empty selector', () => {
    expect(workerText({ worker_id: null, worker_selector: { zone: 'b' } })).toBe('not claimed yet');
    expect(workerText({ worker_id: null, worker_selector: {} })).toBe('not claimed yet');
  });

  it('says a run without a selector is local', () => {
    expect(workerText({ worker_id: null, worker_selector: null })).toBe('local');
  });
});

describe('hostText', () => {
  it('gives the host and the pid of the run process', () => {
    expect(hostText({ host: 'h1', pid: 42 })).toBe('h1 (pid 42)');
    expect(hostText({ host: 'h1', pid: null })).toBe('h1');
    expect(hostText({ host: null, pid: null })).toBe('—');
  });
});
