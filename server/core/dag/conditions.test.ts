import { describe, expect, it } from 'vitest';

import type { ConditionSpec } from '../types';
import {
  applyNegate,
  checkCommand,
  checkValue,
  combineConditions,
  compileGoRegexp,
  evaluateConditions,
  matchLines,
  OTHER_CONDITION_NOT_MET,
  planCondition,
  type ConditionPort,
} from './conditions';

// Expectations restate Dagu's rules (research note §3.1; upstream runtime/condition.go and stringutil/matcher.go).

function cond(partial: Partial<ConditionSpec>): ConditionSpec {
  return { condition: null, eval: null, expected: null, negate: false, ...partial };
}

describe('planning a condition', () => {
  it('a condition with expected is a value match; without it a command check', () => {
    expect(planCondition(cond({ condition: '${X}', expected: 'a' }))).toEqual({
      mode: 'value',
      text: '${X}',
      expected: 'a',
    });
    expect(planCondition(cond({ condition: 'test -f x' }))).toEqual({ mode: 'command', text: 'test -f x' });
  });

  it('eval with expected is an eval match; eval without expected is an error', () => {
    expect(planCondition(cond({ eval: '`date +%u`', expected: '1' }))).toEqual({
      mode: 'eval',
      text: '`date +%u`',
      expected: '1',
    });
    expect(planCondition(cond({ eval: '`date`' }))).toEqual({
      mode: 'invalid',
      reason: 'expected is required when eval is set',
    });
  });
});

describe('value matching', () => {
  it.each<[string, string, boolean]>([
    ['1', '1', true],
    ['1', '2', false],
    ['a\nb\nc', 'b', true],
    ['a\r\nb\r\n', 'b', true],
    ['abc', 'b', false],
    ['ABC', 'abc', false],
    ['  a', 'a', false],
    ['release-1.2', 're:^release-\\d', true],
    ['x release-1', 're:release', true],
    ['line1\nv2.0', 're:^v\\d+\\.\\d+$', true],
    ['Friday', 're:(?i)^fri', true],
    ['Friday', 're:^fri', false],
    ['', 're:^$', true],
    ['', 'x', false],
    ['a\n\nb', 're:^$', true],
    ['anything', 're:[', false],
  ])('value %j against %j: %s', (value, expected, met) => {
    expect(checkValue(value, expected).status).toBe(met ? 'met' : 'not_met');
  });

  it('says what was expected and what came', () => {
    expect(checkValue('2', '1')).toEqual({
      status: 'not_met',
      reason: 'condition was not met: expected "1", got "2"',
    });
  });
});

describe('command checks and negation', () => {
  it.each<[number | null, string]>([
    [0, 'met'],
    [1, 'not_met'],
    [127, 'not_met'],
    [null, 'not_met'],
  ])('exit %s is %s', (code, status) => {
    expect(checkCommand(code).status).toBe(status);
  });

  it('negate swaps met and not met but never turns an error into a pass', () => {
    expect(applyNegate({ status: 'met' }, true).status).toBe('not_met');
    expect(applyNegate({ status: 'not_met', reason: 'x' }, true)).toEqual({ status: 'met' });
    expect(applyNegate({ status: 'error', reason: 'boom' }, true)).toEqual({
      status: 'error',
      reason: 'boom',
    });
    expect(applyNegate({ status: 'not_met', reason: 'x' }, false).status).toBe('not_met');
  });
});

describe('a list of conditions', () => {
  it('is met only when every entry is met', () => {
    expect(combineConditions([{ status: 'met' }, { status: 'met' }]).outcome).toEqual({ status: 'met' });
    expect(combineConditions([]).outcome).toEqual({ status: 'met' });
  });

  it('takes the status of the last failing entry, and marks the passing ones', () => {
    const r = combineConditions([
      { status: 'error', reason: 'eval failed' },
      { status: 'met' },
      { status: 'not_met', reason: 'nope' },
    ]);
    expect(r.outcome).toEqual({ status: 'not_met', reason: 'nope' });
    expect(r.reasons).toEqual(['eval failed', OTHER_CONDITION_NOT_MET, 'nope']);
    expect(
      combineConditions([
        { status: 'not_met', reason: 'n' },
        { status: 'error', reason: 'e' },
      ]).outcome.status,
    ).toBe('error');
  });

  it('evaluates every entry in order, without short-circuit', async () => {
    const calls: string[] = [];
    const port: ConditionPort = {
      resolveValue: (t) => {
        calls.push(`value:${t}`);
        return t === 'bad' ? 'x' : t;
      },
      resolveEval: (t) => {
        calls.push(`eval:${t}`);
        return t === 'boom' ? Promise.reject(new Error('exit status 2')) : Promise.resolve('1');
      },
      runCommand: (t) => {
        calls.push(`cmd:${t}`);
        return Promise.resolve(t === 'false' ? 1 : 0);
      },
    };
    const r = await evaluateConditions(
      [
        cond({ condition: 'bad', expected: 'y' }),
        cond({ eval: 'boom', expected: '1' }),
        cond({ condition: 'false', negate: true }),
        cond({ condition: 'true' }),
      ],
      port,
    );
    expect(calls).toEqual(['value:bad', 'eval:boom', 'cmd:false', 'cmd:true']);
    expect(r.outcome.status).toBe('error');
    expect(r.reasons[1]).toMatch(/failed to evaluate the condition: exit status 2/);
    expect(r.reasons[2]).toBe(OTHER_CONDITION_NOT_MET);
  });

  it('a negated failing eval stays an error', async () => {
    const port: ConditionPort = {
      resolveValue: (t) => t,
      resolveEval: () => Promise.reject(new Error('exit status 1')),
      runCommand: () => Promise.resolve(0),
    };
    const r = await evaluateConditions([cond({ eval: '`false`', expected: 'x', negate: true })], port);
    expect(r.outcome.status).toBe('error');
  });
});

describe('line matching for continue_on.output', () => {
  it.each<[string, string[], boolean]>([
    ['warning: disk almost full\nok', ['disk almost'], true],
    ['ok\n', ['fail'], false],
    ['error 42', ['re:error \\d+'], true],
    ['x', [], false],
    ['', [''], true],
  ])('%j against %j (substring): %s', (content, patterns, want) => {
    expect(matchLines(content, patterns, { exact: false })).toBe(want);
  });

  it('compiles RE2 leading flags and rejects invalid patterns', () => {
    expect(compileGoRegexp('(?i)abc')?.test('ABC')).toBe(true);
    expect(compileGoRegexp('(')).toBeNull();
    expect(compileGoRegexp('end\\z')?.test('the end')).toBe(true);
  });
});
