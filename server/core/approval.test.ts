import { describe, expect, it } from 'vitest';
import { testRunStatus } from '../testing/testRunStatus';
import {
  applyPushBack,
  filterPushBackInputs,
  missingRequiredInputs,
  parseInputWords,
  pushBackEnv,
} from './approval';
import type { StepStatus } from './types';

function step(name: string, extra: Partial<StepStatus> = {}): StepStatus {
  return {
    name,
    status: 'succeeded',
    started_at: null,
    finished_at: null,
    exit_code: 0,
    error: null,
    retry_count: 0,
    stdout: `d/r/1/${name}.out`,
    stderr: null,
    output: null,
    ...extra,
  };
}

describe('step approval rules', () => {
  it("filters push-back inputs by approval.input (all of them when it names none), as Dagu's FilterPushBackInputs", () => {
    expect(filterPushBackInputs(['A'], { A: '1', B: '2' })).toEqual({ A: '1' });
    expect(filterPushBackInputs([], { B: '2', A: '1' })).toEqual({ A: '1', B: '2' });
    expect(filterPushBackInputs(['A'], { B: '2' })).toBeUndefined();
    expect(filterPushBackInputs(['A'], {})).toBeUndefined();
  });

  it("names missing or blank required inputs in Dagu's words", () => {
    expect(missingRequiredInputs(['A', 'B'], { A: ' ' })).toBe('missing required inputs: [A B]');
    expect(missingRequiredInputs(['A'], { A: 'x' })).toBeNull();
  });

  it('reads --input words', () => {
    expect(parseInputWords(['A=1', 'B=x=y'])).toEqual({ ok: true, inputs: { A: '1', B: 'x=y' } });
    expect(parseInputWords(['A'])).toMatchObject({ ok: false });
    expect(parseInputWords(['A=1', 'A=2'])).toMatchObject({ ok: false, error: /duplicate/ });
  });

  it('counts push-backs, keeps their history, and resets only the target and what follows it', () => {
    const gate = { prompt: '', input: ['F'], required: [], rewind_to: 'b' };
    const run = testRunStatus({
      run_id: 'r',
      status: 'waiting',
      steps: [
        step('a'),
        step('b', { depends: ['a'] }),
        step('c', { status: 'waiting', depends: ['b'], approval: gate }),
        step('side'),
      ],
    });
    const once = applyPushBack(run, 'c', { F: 'one', X: 'dropped' }, 'T1')!;
    expect(once.steps.map((s) => [s.name, s.status])).toEqual([
      ['a', 'succeeded'],
      ['b', 'not_started'],
      ['c', 'not_started'],
      ['side', 'succeeded'],
    ]);
    expect(once.steps[1].push_back).toEqual({
      iteration: 1,
      inputs: { F: 'one' },
      history: [{ iteration: 1, at: 'T1', inputs: { F: 'one' } }],
      previous_stdout: 'd/r/1/b.out',
    });
    // The next attempt waits again with the push-back it ran under; a second push-back adds to the history.
    const waitingAgain = structuredClone(once);
    Object.assign(waitingAgain.steps[2], { status: 'waiting', approval: gate, stdout: 'd/r/2/c.out' });
    const twice = applyPushBack(waitingAgain, 'c', {}, 'T2')!;
    expect(twice.steps[2].push_back).toEqual({
      iteration: 2,
      history: [
        { iteration: 1, at: 'T1', inputs: { F: 'one' } },
        { iteration: 2, at: 'T2' },
      ],
      previous_stdout: 'd/r/2/c.out',
    });
    const env = pushBackEnv(twice.steps[2].push_back!, gate.input, '/logs/c.out');
    expect(env).toEqual({
      DAG_PUSHBACK_ITERATION: '2',
      DAG_PUSHBACK_PREVIOUS_STDOUT_FILE: '/logs/c.out',
      DAG_PUSHBACK: JSON.stringify({
        iteration: 2,
        at: 'T2',
        history: [
          { iteration: 1, at: 'T1', inputs: { F: 'one' } },
          { iteration: 2, at: 'T2' },
        ],
      }),
    });
    expect(applyPushBack(run, 'a', {}, 'T')).toBeNull();
  });
});
