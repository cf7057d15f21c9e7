import { describe, expect, it } from 'vitest';
import {
  buildDecisionLabel,
  buildDecisionText,
  buildDecisionTone,
  buildReasonText,
  buildTitle,
  producerText,
} from './buildNotes';
import { BUILD_DECISIONS } from '@/server/core/build/types';

describe('buildDecisionLabel', () => {
  it('names every decision a run records in a word of its own', () => {
    expect(BUILD_DECISIONS.map(buildDecisionLabel)).toEqual([
      'no decision',
      'always run',
      'executed',
      'reused',
      'deferred',
    ]);
  });

  it('shows a decision it does not know as it is, readable', () => {
    expect(buildDecisionLabel('rebuilt_later')).toBe('rebuilt later');
  });
});

describe('buildDecisionTone', () => {
  it('greens a reuse, marks an execution as information and leaves the others neutral', () => {
    expect(buildDecisionTone('reuse')).toBe('ok');
    expect(buildDecisionTone('execute')).toBe('info');
    expect(buildDecisionTone('always')).toBe('neutral');
    expect(buildDecisionTone('deferred')).toBe('neutral');
    expect(buildDecisionTone('none')).toBe('neutral');
  });
});

describe('buildReasonText', () => {
  it('makes the reason readable and adds its detail', () => {
    expect(buildReasonText({ reason: 'input_changed', detail: 'source' })).toBe('input changed: source');
    expect(buildReasonText({ reason: 'matched' })).toBe('matched');
    expect(buildReasonText({ detail: ' recovering ' })).toBe('recovering');
    expect(buildReasonText({})).toBeNull();
    expect(buildReasonText({ reason: 'reuse_disabled', detail: '' })).toBe('reuse disabled');
  });
});

describe('buildDecisionText and buildTitle', () => {
  const reused = {
    decision: 'reuse',
    phase: 'complete',
    reason: 'matched',
    producer_run: { dag_name: 'make', run_id: '20261130-011430-ab12cd34' },
    producer_attempt: 2,
  };

  it('says a reused step ran nothing, and whose output it kept', () => {
    expect(buildDecisionText(reused)).toBe('reused — matched');
    expect(buildTitle(reused)).toBe(
      'reused — matched; nothing ran; output of make 20261130-011430-ab12cd34, attempt 2',
    );
  });

  it('says why a step executed, and names a decision without a reason alone', () => {
    const executed = { decision: 'execute', phase: 'complete', reason: 'recipe_changed' };
    expect(buildTitle(executed)).toBe('executed — recipe changed');
    expect(buildTitle({ decision: 'always', reason: 'ineligible', detail: 'a repeat_policy' })).toBe(
      'always run — ineligible: a repeat_policy',
    );
    expect(buildDecisionText({ decision: 'none' })).toBe('no decision');
  });
});

describe('producerText', () => {
  it('names the producing run, with its attempt when recorded; null without one', () => {
    expect(producerText({ producer_run: { dag_name: 'make', run_id: 'r1' } })).toBe('make r1');
    expect(producerText({ producer_run: { dag_name: 'make', run_id: 'r1' }, producer_attempt: 1 })).toBe(
      'make r1, attempt 1',
    );
    expect(producerText({})).toBeNull();
  });
});
