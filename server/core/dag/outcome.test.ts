import { describe, expect, it } from 'vitest';

import type { RepeatPolicySpec, RunState, StepRetryPolicy } from '../types';
import {
  backoffDelayMs,
  decideFailedAttempt,
  decideRepeat,
  decideRunStatus,
  gateDependent,
  handlersToRun,
  isPartialSuccess,
  repeatCondition,
  repeatNeedsCondition,
  shouldContinue,
  shouldMarkSuccess,
  startExitCode,
  type RunFacts,
  type StepFacts,
} from './outcome';

// Expectations restate Dagu's rules (research note §1.3, §3.2–§3.4, §3.8, §8.2, §8.3; upstream runtime/runner.go
// isReady, Status, isPartialSuccess, handleNodeExecutionError, shouldRepeatNode; runtime/node.go ShouldContinue).

const ok: StepFacts = { status: 'succeeded', exit_code: 0 };
const failed = (extra: Partial<StepFacts> = {}): StepFacts => ({ status: 'failed', exit_code: 1, ...extra });
const skipped = (extra: Partial<StepFacts> = {}): StepFacts => ({
  status: 'skipped',
  exit_code: null,
  ...extra,
});

describe('continue_on', () => {
  it.each<[string, StepFacts, boolean]>([
    ['a succeeded step always lets dependents through', ok, true],
    ['a partially succeeded step too', { status: 'partially_succeeded', exit_code: 0 }, true],
    ['a failed step without continue_on does not', failed(), false],
    ['failure: true lets a failed step through', failed({ continue_on: { failure: true } }), true],
    ['a listed exit code does', failed({ exit_code: 3, continue_on: { exit_code: [1, 3] } }), true],
    ['an unlisted exit code does not', failed({ exit_code: 2, continue_on: { exit_code: [1, 3] } }), false],
    [
      'an unknown exit code never matches the list',
      failed({ exit_code: null, continue_on: { exit_code: [1] } }),
      false,
    ],
    [
      'a matched stdout pattern does',
      failed({ continue_on: { output: ['WARN'] }, output_matched: true }),
      true,
    ],
    [
      'an unmatched stdout pattern does not',
      failed({ continue_on: { output: ['WARN'] }, output_matched: false }),
      false,
    ],
    ['a match without patterns does not count', failed({ output_matched: true }), false],
    ['skipped: true lets a skipped step through', skipped({ continue_on: { skipped: true } }), true],
    ['failure: true does not cover a skipped step', skipped({ continue_on: { failure: true } }), false],
    [
      'an aborted step never does',
      { status: 'aborted', exit_code: null, continue_on: { failure: true, skipped: true } },
      false,
    ],
  ])('%s', (_name, step, want) => {
    expect(shouldContinue(step)).toBe(want);
  });

  it('mark_success needs a matching continue rule', () => {
    expect(shouldMarkSuccess(failed({ continue_on: { failure: true, mark_success: true } }))).toBe(true);
    expect(shouldMarkSuccess(failed({ continue_on: { mark_success: true } }))).toBe(false);
    expect(
      shouldMarkSuccess(failed({ exit_code: 4, continue_on: { exit_code: [4], mark_success: true } })),
    ).toBe(true);
  });
});

describe('dependency gating', () => {
  it.each<[string, StepFacts[], ReturnType<typeof gateDependent>]>([
    [
      'all dependencies succeeded: run',
      [ok, { status: 'partially_succeeded', exit_code: 0 }],
      { action: 'run' },
    ],
    ['no dependencies: run', [], { action: 'run' }],
    ['a dependency still running: wait', [ok, { status: 'running', exit_code: null }], { action: 'wait' }],
    ['a dependency not started: wait', [{ status: 'not_started', exit_code: null }], { action: 'wait' }],
    ['a dependency retrying: wait', [{ status: 'retrying', exit_code: 1 }], { action: 'wait' }],
    [
      'a failed dependency: aborted, upstream failed',
      [ok, failed()],
      { action: 'abort', reason: 'upstream failed' },
    ],
    [
      'a failed dependency allowed to continue: run',
      [failed({ continue_on: { failure: true } })],
      { action: 'run' },
    ],
    [
      'a skipped dependency: skipped, upstream skipped',
      [skipped()],
      { action: 'skip', reason: 'upstream skipped' },
    ],
    [
      'a skipped dependency with continue_on.skipped: run',
      [skipped({ continue_on: { skipped: true } })],
      { action: 'run' },
    ],
    [
      'a dependency skipped by a retry selection: run',
      [skipped({ skipped_by_retry: true })],
      { action: 'run' },
    ],
    [
      'an aborted dependency: aborted without reason',
      [{ status: 'aborted', exit_code: null }],
      { action: 'abort', reason: null },
    ],
    [
      'the first blocking dependency decides',
      [skipped(), failed()],
      { action: 'skip', reason: 'upstream skipped' },
    ],
  ])('%s', (_name, deps, want) => {
    expect(gateDependent(deps)).toEqual(want);
  });
});

describe('retrying a failed attempt', () => {
  const policy: StepRetryPolicy = { limit: 2, interval_sec: 1, backoff: 2, max_interval_sec: 3 };
  const base = { exit_code: 1, timed_out: null, canceled: false, retry_count: 0 } as const;

  it('retries a non-zero exit while retries remain, with interval × backoff^(k−1) capped', () => {
    expect(decideFailedAttempt(base, policy, [], {})).toEqual({
      action: 'retry',
      retry_count: 1,
      delay_ms: 1000,
    });
    expect(decideFailedAttempt({ ...base, retry_count: 1 }, policy, [], {})).toEqual({
      action: 'retry',
      retry_count: 2,
      delay_ms: 2000,
    });
    expect(decideFailedAttempt({ ...base, retry_count: 2 }, policy, [], {})).toEqual({
      action: 'finish',
      status: 'failed',
      sets_run_error: true,
    });
  });

  it('retries only listed exit codes; an unknown exit code counts as 1', () => {
    expect(decideFailedAttempt({ ...base, exit_code: 2 }, policy, [1], {}).action).toBe('finish');
    expect(decideFailedAttempt({ ...base, exit_code: null }, policy, [1], {}).action).toBe('retry');
    expect(decideFailedAttempt({ ...base, exit_code: null }, policy, [], {}).action).toBe('retry');
  });

  it('never retries a timeout or a cancel', () => {
    expect(decideFailedAttempt({ ...base, timed_out: 'step' }, policy, [], {})).toEqual({
      action: 'finish',
      status: 'failed',
      sets_run_error: true,
    });
    expect(decideFailedAttempt({ ...base, timed_out: 'dag' }, policy, [], {})).toEqual({
      action: 'finish',
      status: 'aborted',
      sets_run_error: true,
    });
    expect(decideFailedAttempt({ ...base, canceled: true }, policy, [], {})).toEqual({
      action: 'finish',
      status: 'aborted',
      sets_run_error: false,
    });
  });

  it('mark_success rewrites a final failure to succeeded, but not a timeout', () => {
    const rescue = { continue_on: { failure: true, mark_success: true } };
    expect(decideFailedAttempt(base, null, [], rescue)).toEqual({
      action: 'finish',
      status: 'succeeded',
      sets_run_error: false,
    });
    expect(decideFailedAttempt({ ...base, timed_out: 'step' }, null, [], rescue).action).toBe('finish');
    expect(decideFailedAttempt({ ...base, timed_out: 'step' }, null, [], rescue)).toMatchObject({
      status: 'failed',
    });
  });

  it('a failure allowed to continue still sets the run error', () => {
    expect(decideFailedAttempt(base, null, [], { continue_on: { failure: true } })).toEqual({
      action: 'finish',
      status: 'failed',
      sets_run_error: true,
    });
  });

  it('computes backoff delays', () => {
    expect(backoffDelayMs(5, 0, null, 3)).toBe(5000);
    expect(backoffDelayMs(5, 1, null, 3)).toBe(5000);
    expect(backoffDelayMs(1, 2, null, 3)).toBe(8000);
    expect(backoffDelayMs(1, 2, 5, 3)).toBe(5000);
    expect(backoffDelayMs(1, 2, 0, 10)).toBe(1024000);
  });
});

describe('repeat policy', () => {
  const policy = (p: Partial<RepeatPolicySpec>): RepeatPolicySpec => ({
    mode: 'while',
    condition: null,
    expected: null,
    exit_code: [],
    interval_sec: 2,
    limit: null,
    backoff: 0,
    max_interval_sec: null,
    ...p,
  });
  const after = (executions: number, extra: Partial<Parameters<typeof decideRepeat>[1]> = {}) => ({
    executions,
    succeeded: true,
    exit_code: 0,
    stopped: false,
    ...extra,
  });

  it('limit counts total executions', () => {
    expect(decideRepeat(policy({ limit: 3 }), after(2))).toEqual({ repeat: true, delay_ms: 2000 });
    expect(decideRepeat(policy({ limit: 3 }), after(3))).toEqual({ repeat: false });
  });

  it('while without a condition repeats while the step succeeds; until until it succeeds', () => {
    expect(decideRepeat(policy({}), after(1)).repeat).toBe(true);
    expect(decideRepeat(policy({}), after(1, { succeeded: false, exit_code: 1 })).repeat).toBe(false);
    expect(decideRepeat(policy({ mode: 'until' }), after(1, { succeeded: false, exit_code: 1 })).repeat).toBe(
      true,
    );
    expect(decideRepeat(policy({ mode: 'until' }), after(1)).repeat).toBe(false);
  });

  it('exit codes: while repeats on a listed code, until stops on one', () => {
    expect(
      decideRepeat(policy({ exit_code: [1] }), after(1, { succeeded: false, exit_code: 1 })).repeat,
    ).toBe(true);
    expect(decideRepeat(policy({ exit_code: [1] }), after(1)).repeat).toBe(false);
    expect(decideRepeat(policy({ mode: 'until', exit_code: [0] }), after(1)).repeat).toBe(false);
    expect(decideRepeat(policy({ mode: 'until', exit_code: [0] }), after(1, { exit_code: 3 })).repeat).toBe(
      true,
    );
  });

  it('a condition decides regardless of the exit status', () => {
    const p = policy({ condition: '${STATUS}', expected: 'pending' });
    expect(decideRepeat(p, after(1, { condition_met: true, succeeded: false })).repeat).toBe(true);
    expect(decideRepeat(p, after(1, { condition_met: false })).repeat).toBe(false);
    expect(decideRepeat({ ...p, mode: 'until' }, after(1, { condition_met: false })).repeat).toBe(true);
    expect(decideRepeat({ ...p, mode: 'until' }, after(1, { condition_met: true })).repeat).toBe(false);
  });

  it('never repeats a stopped step or a policy without mode', () => {
    expect(decideRepeat(policy({}), after(1, { stopped: true })).repeat).toBe(false);
    expect(decideRepeat(policy({ mode: null }), after(1)).repeat).toBe(false);
  });

  it('multiplies even the first wait by the backoff, capped', () => {
    expect(decideRepeat(policy({ backoff: 2 }), after(1))).toEqual({ repeat: true, delay_ms: 4000 });
    expect(decideRepeat(policy({ backoff: 2 }), after(2))).toEqual({ repeat: true, delay_ms: 8000 });
    expect(decideRepeat(policy({ backoff: 2, max_interval_sec: 5 }), after(2))).toEqual({
      repeat: true,
      delay_ms: 5000,
    });
  });

  it('builds the condition to evaluate and says when it is needed', () => {
    const p = policy({ condition: '`cat f`', expected: 're:done', limit: 2 });
    expect(repeatCondition(p)).toEqual({
      condition: '`cat f`',
      eval: null,
      expected: 're:done',
      negate: false,
    });
    expect(repeatCondition(policy({}))).toBeNull();
    expect(repeatNeedsCondition(p, 1)).toBe(true);
    expect(repeatNeedsCondition(p, 2)).toBe(false);
    expect(repeatNeedsCondition(policy({}), 1)).toBe(false);
  });
});

describe('run status', () => {
  const run = (f: Partial<RunFacts>): RunState =>
    decideRunStatus({
      steps: [],
      failed_flag: false,
      canceled: false,
      run_error: false,
      finished: true,
      ...f,
    });

  it.each<[string, Partial<RunFacts>, RunState]>([
    ['all steps succeeded', { steps: [ok, ok] }, 'succeeded'],
    ['all steps skipped', { steps: [skipped(), skipped()] }, 'succeeded'],
    ['no steps', { steps: [] }, 'succeeded'],
    [
      'a failed step',
      { steps: [ok, failed(), { status: 'aborted', exit_code: null }], run_error: true },
      'failed',
    ],
    [
      'a failure allowed to continue next to a success',
      { steps: [ok, failed({ continue_on: { failure: true } })], run_error: true },
      'partially_succeeded',
    ],
    [
      'a single failing step with continue_on.failure',
      { steps: [failed({ continue_on: { failure: true } })], run_error: true },
      'failed',
    ],
    ['the same with mark_success (rewritten to succeeded)', { steps: [ok] }, 'succeeded'],
    [
      'a partially succeeded child step alone',
      { steps: [{ status: 'partially_succeeded', exit_code: 0 }] },
      'partially_succeeded',
    ],
    [
      'an allowed failure and a blocking one',
      { steps: [ok, failed({ continue_on: { failure: true } }), failed()], run_error: true },
      'failed',
    ],
    ['the failed flag wins over everything', { steps: [ok], failed_flag: true, canceled: true }, 'failed'],
    [
      'cancelled with steps left',
      { steps: [ok, { status: 'not_started', exit_code: null }], canceled: true },
      'aborted',
    ],
    [
      'cancelled with an aborted step and an error',
      { steps: [{ status: 'aborted', exit_code: null }], canceled: true, run_error: true },
      'aborted',
    ],
    ['cancelled after every step succeeded', { steps: [ok, skipped()], canceled: true }, 'succeeded'],
    ['a step still running', { steps: [ok, { status: 'running', exit_code: null }] }, 'running'],
    ['a step retrying', { steps: [{ status: 'retrying', exit_code: 1 }] }, 'running'],
    [
      'not started while the run goes on',
      { steps: [{ status: 'not_started', exit_code: null }], finished: false },
      'running',
    ],
    ['a handler failed on a good run', { steps: [ok], run_error: true }, 'failed'],
    [
      'a DAG timeout aborted the steps',
      { steps: [ok, { status: 'aborted', exit_code: null }], run_error: true },
      'failed',
    ],
    [
      'a timed-out step with continue_on and mark_success stays a failure',
      {
        steps: [ok, failed({ exit_code: 124, continue_on: { failure: true, mark_success: true } })],
        run_error: true,
      },
      'failed',
    ],
  ])('%s → %s', (_name, facts, want) => {
    expect(run(facts)).toBe(want);
  });

  it('partial success needs a success', () => {
    expect(isPartialSuccess([failed({ continue_on: { failure: true } }), skipped()])).toBe(false);
  });
});

describe('dagu start exit code', () => {
  it.each<[RunState, boolean, number]>([
    ['succeeded', false, 0],
    ['partially_succeeded', true, 1],
    ['partially_succeeded', false, 0],
    ['failed', true, 1],
    ['failed', false, 1],
    ['aborted', false, 0],
    ['aborted', true, 1],
  ])('%s with run error %s exits %d', (status, runError, code) => {
    expect(startExitCode(status, runError)).toBe(code);
  });
});

describe('handlers after the steps', () => {
  const facts = { is_root: true, auto_retry_limit: 0, auto_retry_count: 0 };
  it.each<[RunState, string[]]>([
    ['succeeded', ['success', 'exit']],
    ['partially_succeeded', ['success', 'exit']],
    ['failed', ['failure', 'exit']],
    ['aborted', ['abort', 'exit']],
    ['running', []],
    ['queued', []],
  ])('%s runs %j', (status, want) => {
    expect(handlersToRun({ ...facts, status })).toEqual(want);
  });

  it('skips failure while DAG-level retries remain on a root run', () => {
    expect(
      handlersToRun({ status: 'failed', is_root: true, auto_retry_limit: 2, auto_retry_count: 1 }),
    ).toEqual(['exit']);
    expect(
      handlersToRun({ status: 'failed', is_root: true, auto_retry_limit: 2, auto_retry_count: 2 }),
    ).toEqual(['failure', 'exit']);
    expect(
      handlersToRun({ status: 'failed', is_root: false, auto_retry_limit: 2, auto_retry_count: 0 }),
    ).toEqual(['failure', 'exit']);
  });
});
