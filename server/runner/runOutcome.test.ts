import { describe, expect, it } from 'vitest';
import type { RunStatus, StepState, StepStatus } from '../core/types';
import { failureContinues, finalRunState, gateStep, runExitCode, type RunFacts } from './runOutcome';
import { retryDelayMs } from './runStep';
import { stepOf } from './testSupport';

const status = (name: string, state: StepState, extra: Partial<StepStatus> = {}) =>
  ({ name, status: state, exit_code: null, ...extra }) as StepStatus;
const dep = (state: StepState, opts: { continues?: boolean; skipped?: boolean } = {}) => ({
  spec: stepOf('d', 'true', { continue_on: { failure: false, skipped: opts.skipped ?? false } }),
  status: status('d', state),
  continues: opts.continues ?? false,
});
const facts = (f: Partial<RunFacts> & { allowed?: string[] } = {}): RunFacts => ({
  failed: false,
  cancelled: false,
  error: false,
  continues: new Map((f.allowed ?? []).map((n) => [n, true])),
  ...f,
});

describe('gateStep', () => {
  it('lets a step run once every dependency succeeded or partially succeeded', () => {
    expect(gateStep([dep('succeeded'), dep('partially_succeeded')])).toEqual({ kind: 'ready' });
    expect(gateStep([])).toEqual({ kind: 'ready' });
  });

  it('aborts a step whose dependency failed without continue_on, and lets it run with it', () => {
    expect(gateStep([dep('failed')])).toEqual({
      kind: 'blocked',
      state: 'aborted',
      reason: 'upstream failed',
    });
    expect(gateStep([dep('failed', { continues: true })])).toEqual({ kind: 'ready' });
  });

  it('skips a step whose dependency was skipped unless continue_on.skipped, and aborts after an abort', () => {
    expect(gateStep([dep('skipped')])).toEqual({
      kind: 'blocked',
      state: 'skipped',
      reason: 'upstream skipped',
    });
    expect(gateStep([dep('skipped', { skipped: true })])).toEqual({ kind: 'ready' });
    expect(gateStep([dep('aborted')])).toMatchObject({ kind: 'blocked', state: 'aborted' });
  });

  it('waits while a dependency earlier in depends is unfinished, even when a later one failed', () => {
    expect(gateStep([dep('running'), dep('failed')])).toEqual({ kind: 'wait' });
    expect(gateStep([dep('not_started')])).toEqual({ kind: 'wait' });
  });
});

describe('failureContinues', () => {
  const failed = status('s', 'failed', { exit_code: 3 });
  it('matches continue_on failure, an exit code, or a stdout line by substring or re:', () => {
    const on = (continue_on: object, out = '') =>
      failureContinues(
        stepOf('s', 'x', { continue_on: { failure: false, ...continue_on } }),
        failed,
        () => out,
      );
    expect(on({ failure: true })).toBe(true);
    expect(on({ exit_code: [1, 3] })).toBe(true);
    expect(on({ exit_code: [1] })).toBe(false);
    expect(on({ output: ['WARN'] }, 'ok\nWARN: disk\n')).toBe(true);
    expect(on({ output: ['re:^E[0-9]+$'] }, 'x\nE42\n')).toBe(true);
    expect(on({ output: ['re:^E[0-9]+$'] }, 'xE42\n')).toBe(false);
    expect(on({})).toBe(false);
  });

  it("reads the stdout log as Go's line scanner does: no empty last line, no trailing CR, RE2 flags", () => {
    const on = (output: string[], out: string) =>
      failureContinues(stepOf('s', 'x', { continue_on: { failure: false, output } }), failed, () => out);
    expect(on(['re:^done$'], 'done\r\n')).toBe(true);
    expect(on(['re:^$'], 'a\n')).toBe(false);
    expect(on(['re:(?i)^error'], 'ERROR: x\n')).toBe(true);
    expect(on([''], '')).toBe(true);
  });
});

describe('finalRunState', () => {
  it('is succeeded when every step succeeded or was skipped, even all skipped', () => {
    expect(finalRunState([status('a', 'succeeded'), status('b', 'skipped')], facts())).toBe('succeeded');
    expect(finalRunState([status('a', 'skipped')], facts())).toBe('succeeded');
  });

  it('is partially_succeeded when a step succeeded and every failed step was allowed to continue', () => {
    const steps = [status('a', 'succeeded'), status('b', 'failed')];
    expect(finalRunState(steps, facts({ error: true, allowed: ['b'] }))).toBe('partially_succeeded');
  });

  it('is failed when the only step failed with continue_on, since nothing succeeded', () => {
    expect(finalRunState([status('b', 'failed')], facts({ error: true, allowed: ['b'] }))).toBe('failed');
  });

  it('is failed when a step failed without continue_on, whatever the others did', () => {
    const steps = [status('a', 'succeeded'), status('b', 'failed'), status('c', 'aborted')];
    expect(finalRunState(steps, facts({ error: true }))).toBe('failed');
  });

  it('is failed when the run error is set by a timeout or a handler although no step failed', () => {
    expect(finalRunState([status('a', 'succeeded'), status('b', 'aborted')], facts({ error: true }))).toBe(
      'failed',
    );
  });

  it('is aborted when cancelled before every step ended well, and failed when the failed flag is set', () => {
    expect(finalRunState([status('a', 'not_started')], facts({ cancelled: true }))).toBe('aborted');
    expect(finalRunState([status('a', 'succeeded')], facts({ cancelled: true }))).toBe('succeeded');
    expect(finalRunState([status('a', 'not_started')], facts({ failed: true, cancelled: true }))).toBe(
      'failed',
    );
  });
});

describe('runExitCode', () => {
  const run = (state: RunStatus['status'], steps: StepStatus[] = [], handlers: RunStatus['handlers'] = {}) =>
    runExitCode({ status: state, steps, handlers });
  it("is Dagu's: 0 succeeded, 1 partially_succeeded through a failed step, 1 failed, 0 aborted by a stop", () => {
    const partial = [status('a', 'failed'), status('b', 'succeeded')];
    expect([run('succeeded'), run('partially_succeeded', partial), run('failed'), run('aborted')]).toEqual([
      0, 1, 1, 0,
    ]);
  });

  it('is 0 for a run partially succeeded only through a child run, and for a waiting run whose wait handler failed', () => {
    expect(run('partially_succeeded', [status('call', 'partially_succeeded')])).toBe(0);
    expect(run('waiting', [status('gate', 'waiting')], { wait: status('onWait', 'failed') })).toBe(0);
    // Any other failed handler is the run's error.
    expect(run('succeeded', [status('a', 'succeeded')], { exit: status('onExit', 'failed') })).toBe(1);
  });

  it('is 1 for an aborted run that carries a failure: a failed init or a precondition error', () => {
    expect(run('aborted', [], { init: status('onInit', 'failed') })).toBe(1);
    expect(run('aborted', [status('check', 'failed')])).toBe(1);
    expect(run('aborted', [status('a', 'aborted')], { abort: status('onAbort', 'succeeded') })).toBe(0);
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
