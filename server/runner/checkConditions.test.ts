import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConditionSpec } from '../core/types';
import { checkConditions, type ConditionContext } from './checkConditions';
import { minimalEnv, tempDir } from './testSupport';

const value = (condition: string, expected: string, negate = false): ConditionSpec => ({
  condition,
  eval: null,
  expected,
  negate,
});
const command = (condition: string, negate = false): ConditionSpec => ({
  condition,
  eval: null,
  expected: null,
  negate,
});
const evalOf = (text: string, expected: string): ConditionSpec => ({
  condition: null,
  eval: text,
  expected,
  negate: false,
});

describe('checkConditions', () => {
  let dir: string;
  let cleanup: () => void;
  let ctx: ConditionContext;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir('dagu-conditions-'));
    ctx = {
      shell: ['sh'],
      env: { ...minimalEnv(), FROM_ENV: 'env-value' },
      cwd: dir,
      scope: { vars: { DAY: '3', LINES: 'a\nready\nb' } },
    };
  });
  afterEach(() => cleanup());

  it('is met for an empty list', async () => {
    expect(await checkConditions([], ctx)).toEqual({ status: 'met' });
  });

  it('matches a resolved value against any line, exactly or by re:', async () => {
    expect(await checkConditions([value('${DAY}', '3')], ctx)).toEqual({ status: 'met' });
    expect(await checkConditions([value('${LINES}', 'ready')], ctx)).toEqual({ status: 'met' });
    expect(await checkConditions([value('${LINES}', 're:^rea')], ctx)).toEqual({ status: 'met' });
    expect(await checkConditions([value('${DAY}', '1')], ctx)).toEqual({
      status: 'not_met',
      reason: 'precondition not met: "${DAY}": expected "1", got "3"',
    });
  });

  it('keeps backticks in a condition literal, and runs them in eval', async () => {
    expect((await checkConditions([value('`echo 3`', '3')], ctx)).status).toBe('not_met');
    expect(await checkConditions([evalOf('`echo ${DAY}`$(printf x)', '3x')], ctx)).toEqual({ status: 'met' });
  });

  it('turns a failing eval command into an evaluation error, even when negated', async () => {
    const outcome = await checkConditions([{ ...evalOf('$(exit 3)', 'x'), negate: true }], ctx);
    expect(outcome.status).toBe('error');
    expect(outcome.status === 'error' && outcome.error).toMatch(
      /^precondition "\$\(exit 3\)" could not be evaluated: /,
    );
  });

  it('runs a command check in the working directory and environment, exit 0 meaning met', async () => {
    const here = { ...ctx, scope: { vars: { DIR: dir } } };
    expect(
      await checkConditions([command('test "$(pwd)" = "${DIR}" && test "$FROM_ENV" = env-value')], here),
    ).toEqual({
      status: 'met',
    });
    expect((await checkConditions([command('test "$(pwd)" != "${DIR}"')], here)).status).toBe('not_met');
    expect(await checkConditions([command('exit 4')], ctx)).toEqual({
      status: 'not_met',
      reason: 'precondition not met: "exit 4": exit status 4',
    });
    expect((await checkConditions([command('no-such-command-for-dagu')], ctx)).status).toBe('not_met');
  });

  it('swaps met and not met with negate', async () => {
    expect(await checkConditions([value('${DAY}', '1', true)], ctx)).toEqual({ status: 'met' });
    expect((await checkConditions([command('true', true)], ctx)).status).toBe('not_met');
  });

  it('evaluates every entry, without stopping at the first that is not met', async () => {
    const marker = join(dir, 'ran');
    const outcome = await checkConditions([command('exit 1'), command(`touch ${marker}`)], {
      ...ctx,
      label: 'repeat condition',
    });
    expect(outcome).toEqual({
      status: 'not_met',
      reason: 'repeat condition not met: "exit 1": exit status 1',
    });
    expect(existsSync(marker)).toBe(true);
  });

  it('leaves $VAR of a command check to the shell and substitutes run-scope refs', async () => {
    const out = join(dir, 'out');
    await checkConditions([command(`echo "\${DAY} $FROM_ENV" > ${out}`)], ctx);
    expect(readFileSync(out, 'utf8')).toBe('3 env-value\n');
  });
});
