import { describe, expect, it } from 'vitest';
import type { StepState, StepStatus } from '../core/types';
import { finalRunState } from './runOutcome';
import { retryDelayMs } from './runStep';
import { stepOf } from './testSupport';

const specs = [stepOf('a', 'true'), stepOf('b', 'true', { continue_on: { failure: true } })];
const states = (a: StepState, b: StepState) =>
  [
    { name: 'a', status: a },
    { name: 'b', status: b },
  ] as StepStatus[];

describe('finalRunState', () => {
  it('is succeeded when every step succeeded', () => {
    expect(finalRunState(specs, states('succeeded', 'succeeded'), false)).toBe('succeeded');
  });

  it('is partially_succeeded when every failed step was allowed to continue', () => {
    expect(finalRunState(specs, states('succeeded', 'failed'), false)).toBe('partially_succeeded');
  });

  it('is failed when a step without continue_on failed, whatever the others did', () => {
    expect(finalRunState(specs, states('failed', 'skipped'), false)).toBe('failed');
    expect(finalRunState(specs, states('failed', 'failed'), false)).toBe('failed');
  });

  it('is failed when the run timed out even if no step reported a failure', () => {
    expect(finalRunState(specs, states('succeeded', 'skipped'), true)).toBe('failed');
  });
});

describe('retryDelayMs', () => {
  const retrying = (backoff: number, max: number | null) =>
    stepOf('s', 'true', { retry_policy: { limit: 5, interval_sec: 2, backoff, max_interval_sec: max } });

  it('multiplies the interval by the backoff after each try and caps it at max_interval_sec', () => {
    expect([0, 1, 2, 3].map((i) => retryDelayMs(retrying(2, 10), i))).toEqual([2000, 4000, 8000, 10000]);
  });

  it('keeps the interval constant when the backoff is 1 or less', () => {
    expect([0, 1, 2].map((i) => retryDelayMs(retrying(1, null), i))).toEqual([2000, 2000, 2000]);
    expect(retryDelayMs(retrying(0, null), 3)).toBe(2000);
  });
});
