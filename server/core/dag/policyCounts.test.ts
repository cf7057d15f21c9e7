import { describe, expect, it } from 'vitest';
import type { RepeatPolicySpec, StepRetryPolicy } from '../types';
import { PolicyCountError, resolvePolicyCounts } from './policyCounts';

const retry = (deferred: StepRetryPolicy['deferred']): StepRetryPolicy => ({
  limit: 0,
  interval_sec: 0,
  backoff: 1,
  max_interval_sec: null,
  deferred,
});

const repeat = (deferred: RepeatPolicySpec['deferred']): RepeatPolicySpec => ({
  mode: 'while',
  condition: null,
  expected: null,
  exit_code: [],
  interval_sec: 0,
  limit: null,
  backoff: 1,
  max_interval_sec: null,
  deferred,
});

describe('resolvePolicyCounts', () => {
  it('reads counts from the run scope, params and the host environment', () => {
    const out = resolvePolicyCounts(retry({ limit: '${N}', interval_sec: '${params.WAIT}' }), 'retry', {
      vars: { N: '3' },
      params: { WAIT: '5' },
    });
    expect(out).toEqual({ limit: 3, interval_sec: 5, backoff: 1, max_interval_sec: null });
    expect('deferred' in out).toBe(false);
    const host = resolvePolicyCounts(retry({ limit: '$FROM_HOST' }), 'retry', {
      hostEnv: { FROM_HOST: '+2' },
    });
    expect(host.limit).toBe(2);
  });

  it('lets the run scope win over the host environment', () => {
    const out = resolvePolicyCounts(retry({ limit: '${N}' }), 'retry', {
      vars: { N: '1' },
      hostEnv: { N: '9' },
    });
    expect(out.limit).toBe(1);
  });

  it('reads a repeat limit of 0 as no limit, and resolves max_interval_sec', () => {
    const out = resolvePolicyCounts(repeat({ limit: '$L', max_interval_sec: '$M' }), 'repeat', {
      vars: { L: '0', M: '30' },
    });
    expect(out.limit).toBeNull();
    expect(out.max_interval_sec).toBe(30);
  });

  it('returns a policy without text counts as it is', () => {
    const p = retry(undefined);
    delete p.deferred;
    expect(resolvePolicyCounts(p, 'retry', {})).toBe(p);
  });

  it.each([
    ['two', '"two" is not an integer'],
    [' 3', '" 3" is not an integer'],
    ['3.5', '"3.5" is not an integer'],
    ['', '"" is not an integer'],
    ['-1', '"-1" is negative'],
    ['1000001', '"1000001" is more than 1000000'],
  ])('fails the step on %j, naming the field, its text and the value', (value, why) => {
    const run = () => resolvePolicyCounts(repeat({ limit: '${N}' }), 'repeat', { vars: { N: value } });
    expect(run).toThrow(PolicyCountError);
    expect(run).toThrow(`failed to substitute repeat limit "\${N}": ${why}`);
  });

  it('keeps an unknown reference as written, which is then no number', () => {
    expect(() => resolvePolicyCounts(retry({ interval_sec: '${MISSING}' }), 'retry', {})).toThrow(
      'failed to substitute retry interval "${MISSING}": "${MISSING}" is not an integer',
    );
  });

  it('runs no command substitution', () => {
    expect(() => resolvePolicyCounts(retry({ limit: '$(echo 3)' }), 'retry', {})).toThrow(
      /is not an integer/,
    );
    expect(() => resolvePolicyCounts(retry({ limit: '`echo 3`$X' }), 'retry', {})).toThrow(
      /is not an integer/,
    );
  });
});
