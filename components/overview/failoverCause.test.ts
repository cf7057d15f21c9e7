import { describe, expect, it } from 'vitest';
import { failoverCauseText, failoverCauseTone } from './failoverCause';

describe('failoverCauseText', () => {
  it('writes each cause of the API in words', () => {
    expect(failoverCauseText('released')).toBe('clean handover (released)');
    expect(failoverCauseText('stale')).toBe('taken over from a stale holder');
    expect(failoverCauseText('lock_lost')).toBe('lock lost');
    expect(failoverCauseText('initial')).toBe('first start');
  });

  it('shows a cause it does not know as the server wrote it', () => {
    expect(failoverCauseText('fenced')).toBe('fenced');
    expect(failoverCauseText('toString')).toBe('toString');
  });
});

describe('failoverCauseTone', () => {
  it('marks takeovers after a failure as warnings and routine handovers as information', () => {
    expect(failoverCauseTone('stale')).toBe('warn');
    expect(failoverCauseTone('lock_lost')).toBe('warn');
    expect(failoverCauseTone('released')).toBe('info');
    expect(failoverCauseTone('initial')).toBe('info');
    expect(failoverCauseTone('fenced')).toBe('neutral');
  });
});
