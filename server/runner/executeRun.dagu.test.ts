// Dagu 2.x run-level rules, with real processes: graph order, gating, preconditions, handlers, environment,
// working directories (research note §1.3, §1.6, §2.2, §3.1, §3.6, §3.8, §3.9, §8).

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConditionSpec, StepStatus } from '../core/types';
import { runExitCode } from './runOutcome';
import { dagOf, minimalEnv, runDag, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const step = (steps: StepStatus[], name: string) => steps.find((s) => s.name === name)!;
const ms = (iso: string | null) => Date.parse(iso!);
const read = (path: string) => readFileSync(path, 'utf8');
const cond = (c: Partial<ConditionSpec>): ConditionSpec => ({
  condition: null,
  eval: null,
  expected: null,
  negate: false,
  ...c,
});
const noHandlers = { init: null, success: null, failure: null, abort: null, exit: null };

describe('executeRun: the graph', () => {
  it('starts steps without depends together, and one at a time with max_active_steps 1', async () => {
    const steps = [stepOf('a', 'sleep 0.3'), stepOf('b', 'sleep 0.3')];
    const together = (await runDag(dagOf(steps), dir)).final.steps;
    expect(ms(together[1].started_at)).toBeLessThan(ms(together[0].finished_at));

    const serial = (await runDag(dagOf(steps, { max_active_steps: 1 }), dir)).final.steps;
    expect(ms(serial[1].started_at)).toBeGreaterThanOrEqual(ms(serial[0].finished_at));
  });

  it('waits delay_sec after each start before the next', async () => {
    const { final } = await runDag(
      dagOf([stepOf('a', 'true'), stepOf('b', 'true')], { delay_sec: 0.3 }),
      dir,
    );
    expect(ms(final.steps[1].started_at) - ms(final.steps[0].started_at)).toBeGreaterThanOrEqual(280);
  });

  it('lets an unrelated branch finish after a failure, spreads the abort, and ends failed with exit 1', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('bad', 'exit 1'),
        stepOf('child', 'true', { depends: ['bad'] }),
        stepOf('grandchild', 'true', { depends: ['child'] }),
        stepOf('other', 'sleep 0.2'),
      ]),
      dir,
    );
    expect(final.steps.map((s) => [s.name, s.status, s.skip_reason ?? null])).toEqual([
      ['bad', 'failed', null],
      ['child', 'aborted', 'upstream failed'],
      ['grandchild', 'aborted', 'upstream aborted'],
      ['other', 'succeeded', null],
    ]);
    expect(final.status).toBe('failed');
    expect(runExitCode(final)).toBe(1);
  });

  it('is succeeded when every step was skipped, and partially_succeeded (exit 1) with a tolerated failure', async () => {
    const never = [cond({ condition: 'false' })];
    const skipped = await runDag(dagOf([stepOf('a', 'true', { preconditions: never })]), dir);
    expect(skipped.final.status).toBe('succeeded');

    const partial = await runDag(
      dagOf([
        stepOf('ok', 'true'),
        stepOf('meh', 'exit 2', { continue_on: { failure: false, exit_code: [2] } }),
      ]),
      dir,
    );
    expect(partial.final.status).toBe('partially_succeeded');
    expect(runExitCode(partial.final)).toBe(1);
  });
});

describe('executeRun: step preconditions', () => {
  it('skips a step whose precondition is not met with the reason, and skips its dependents', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('gate', 'echo ran', { preconditions: [cond({ condition: 'test -f missing-file' })] }),
        stepOf('next', 'true', { depends: ['gate'] }),
        stepOf('tolerant', 'true', { depends: ['allowed'] }),
        stepOf('allowed', 'true', {
          preconditions: [cond({ condition: 'x', expected: 'y' })],
          continue_on: { failure: false, skipped: true },
        }),
      ]),
      dir,
    );
    expect(step(final.steps, 'gate')).toMatchObject({ status: 'skipped', started_at: expect.any(String) });
    expect(step(final.steps, 'gate').skip_reason).toMatch(/^precondition not met: .*test -f missing-file/);
    expect(step(final.steps, 'next')).toMatchObject({ status: 'skipped', skip_reason: 'upstream skipped' });
    expect(step(final.steps, 'tolerant').status).toBe('succeeded');
    expect(existsSync(join(dir, 'logs', 'gate.out')) ? read(join(dir, 'logs', 'gate.out')) : '').toBe('');
    expect(final.status).toBe('succeeded');
  });

  it('fails the step and cancels the run (aborted, exit 1) when a precondition cannot be evaluated', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('check', 'true', { preconditions: [cond({ eval: '`exit 3`', expected: 'x' })] }),
        stepOf('slow', 'sleep 0.5; echo done'),
      ]),
      dir,
    );
    expect(step(final.steps, 'check').status).toBe('failed');
    expect(step(final.steps, 'check').error).toMatch(/could not be evaluated/);
    expect(step(final.steps, 'slow').status).toBe('aborted');
    expect(final.status).toBe('aborted');
    expect(runExitCode(final)).toBe(1);
  });
});

describe('executeRun: DAG preconditions, init and handlers', () => {
  const marker = () => join(dir, 'order');
  const handlers = () => ({
    init: stepOf('onInit', `echo "init $DAG_RUN_STATUS" >> ${marker()}`),
    success: stepOf('onSuccess', `echo "success $DAG_RUN_STATUS $DAG_RUN_STEP_NAME" >> ${marker()}`),
    failure: stepOf('onFailure', `echo "failure $DAG_RUN_STATUS" >> ${marker()}`),
    abort: stepOf('onAbort', `echo "abort $DAG_RUN_STATUS" >> ${marker()}`),
    exit: stepOf('onExit', `echo "exit $DAG_RUN_STATUS" >> ${marker()}`),
  });

  it('runs init, the steps, success (also for a partial success) and exit, in that order', async () => {
    const { final } = await runDag(
      dagOf(
        [
          stepOf('a', `echo a >> ${marker()}`),
          stepOf('b', 'exit 1', { depends: ['a'], continue_on: { failure: true } }),
        ],
        { handler_on: handlers() },
      ),
      dir,
    );
    expect(final.status).toBe('partially_succeeded');
    expect(read(marker())).toBe(
      'init running\na\nsuccess partially_succeeded onSuccess\nexit partially_succeeded\n',
    );
    expect(final.handlers.init?.status).toBe('succeeded');
  });

  it('ends aborted without steps or init when a DAG precondition is not met, runs abort and exit, exits 0', async () => {
    const { final } = await runDag(
      dagOf([stepOf('a', `echo a >> ${marker()}`)], {
        preconditions: [cond({ condition: '${DAY}', expected: 'monday' })],
        env: { DAY: 'sunday' },
        handler_on: handlers(),
      }),
      dir,
    );
    expect(final.status).toBe('aborted');
    expect(final.steps[0].status).toBe('not_started');
    expect(read(marker())).toBe('abort aborted\nexit aborted\n');
    expect(final.error).toMatch(/precondition not met/);
    expect(runExitCode(final)).toBe(0);
  });

  it('fails the run and runs the failure handler when a DAG precondition cannot be evaluated', async () => {
    const { final } = await runDag(
      dagOf([stepOf('a', 'true')], {
        preconditions: [cond({ eval: '$(exit 4)', expected: 'x' })],
        handler_on: handlers(),
      }),
      dir,
    );
    expect(final.status).toBe('failed');
    expect(final.steps[0].status).toBe('not_started');
    expect(read(marker())).toBe('failure failed\nexit failed\n');
  });

  it('ends aborted with exit 1 and runs no step when init fails', async () => {
    const { final } = await runDag(
      dagOf([stepOf('a', `echo a >> ${marker()}`)], {
        handler_on: { ...handlers(), init: stepOf('onInit', `echo init >> ${marker()}; exit 1`) },
      }),
      dir,
    );
    expect(final.status).toBe('aborted');
    expect(final.handlers.init?.status).toBe('failed');
    expect(read(marker())).toBe('init\nabort aborted\nexit aborted\n');
    expect(runExitCode(final)).toBe(1);
  });

  it('fails a good run whose exit handler fails', async () => {
    const { final } = await runDag(
      dagOf([stepOf('a', 'true')], { handler_on: { ...noHandlers, exit: stepOf('onExit', 'exit 9') } }),
      dir,
    );
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/handler "onExit" failed/);
  });

  it('skips the failure handler while DAG-level retries remain (the exit handler still runs)', async () => {
    const dag = dagOf([stepOf('a', 'exit 1')], {
      retry_policy: { limit: 1, interval_sec: 1, backoff: 1, max_interval_sec: null },
      handler_on: handlers(),
    });
    await runDag(dag, dir);
    expect(read(marker())).toBe('init running\nexit failed\n');
  });

  it('gives handlers the outputs of every step but no step log file variables', async () => {
    const seen = join(dir, 'seen');
    await runDag(
      dagOf([stepOf('p', 'echo hello', { output: 'GREETING' })], {
        handler_on: {
          ...noHandlers,
          exit: stepOf(
            'onExit',
            `echo "$GREETING|\${DAG_RUN_STEP_STDOUT_FILE:-none}|$DAG_RUN_STEP_NAME" > ${seen}`,
          ),
        },
      }),
      dir,
    );
    expect(read(seen)).toBe('hello|none|onExit\n');
  });
});

describe('executeRun: environment', () => {
  it('shows a step the outputs of its upstream steps only', async () => {
    const seen = join(dir, 'seen');
    await runDag(
      dagOf([
        stepOf('p', 'echo one', { output: 'FIRST' }),
        stepOf('mid', 'true', { depends: ['p'] }),
        stepOf('down', `echo "down=$FIRST" >> ${seen}`, { depends: ['mid'] }),
        stepOf('side', `sleep 0.3; echo "side=\${FIRST:-unset}" >> ${seen}`),
      ]),
      dir,
    );
    expect(read(seen).split('\n').sort()).toEqual(['', 'down=one', 'side=unset']);
  });

  it('filters the host environment, reads it in DAG env, not in step env, and lets dotenv override DAG env', async () => {
    const seen = join(dir, 'seen');
    const dagDir = join(dir, 'dags');
    mkdirSync(dagDir);
    writeFileSync(join(dagDir, '.env'), 'FROM_DOTENV=yes\nOVERRIDDEN=dotenv\n');
    const host = {
      ...minimalEnv(),
      SECRET_TOKEN: 's3cret',
      HOME: '/home/u',
      ACME_X: 'passed',
      DAGU_FOO: 'f',
    };
    const show = 'SECRET_TOKEN TOKEN ACME_X DAGU_FOO FROM_DOTENV OVERRIDDEN STEP_HOME DAG_NAME';
    await runDag(
      dagOf(
        [
          stepOf('show', `for v in ${show}; do eval "echo $v=\\\${$v-unset}"; done > ${seen}`, {
            env: { STEP_HOME: '${HOME}/x' },
          }),
        ],
        {
          file: join(dagDir, 'd.yaml'),
          env: { TOKEN: '${SECRET_TOKEN}', OVERRIDDEN: 'env', DAG_NAME: 'fake' },
        },
      ),
      dir,
      { baseEnv: host, envPassthrough: { names: [], prefixes: ['ACME_'] } },
    );
    expect(read(seen).trim().split('\n')).toEqual([
      'SECRET_TOKEN=unset',
      'TOKEN=s3cret',
      'ACME_X=passed',
      'DAGU_FOO=f',
      'FROM_DOTENV=yes',
      'OVERRIDDEN=dotenv',
      // Step env has no host fallback: HOME is only the filtered host's, not the run scope's.
      'STEP_HOME=${HOME}/x',
      'DAG_NAME=test-dag',
    ]);
  });

  it('exports params, DAG_PARAMS_JSON and DAG_RUN_WORK_DIR', async () => {
    const seen = join(dir, 'seen');
    await runDag(dagOf([stepOf('show', `echo "$NAME|$DAG_PARAMS_JSON|$DAG_RUN_WORK_DIR" > ${seen}`)]), dir, {
      params: ['NAME=x', 'pos'],
    });
    // The second word is the positional param "2" (Dagu names a param by its place among all of them).
    expect(read(seen)).toBe(`x|{"2":"pos","NAME":"x"}|${join(dir, 'work')}\n`);
  });
});

describe('executeRun: working directories', () => {
  it('runs steps in the per-run work directory unless the DAG sets working_dir; a relative step dir is under it', async () => {
    const seen = join(dir, 'seen');
    const { final } = await runDag(
      dagOf([stepOf('a', `pwd > ${seen}`), stepOf('b', `pwd >> ${seen}`, { depends: ['a'], dir: 'sub' })]),
      dir,
    );
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe(`${join(dir, 'work')}\n${join(dir, 'work', 'sub')}\n`);

    const explicit = join(dir, 'explicit');
    mkdirSync(explicit);
    await runDag(dagOf([stepOf('a', `pwd > ${seen}`)], { working_dir: explicit }), dir);
    expect(read(seen)).toBe(`${explicit}\n`);
  });

  it('creates a DAG working_dir that does not exist and runs the steps there (Dagu spec 019)', async () => {
    const seen = join(dir, 'seen');
    const missing = join(dir, 'nope', 'deeper');
    const { final } = await runDag(dagOf([stepOf('a', `pwd > ${seen}`)], { working_dir: missing }), dir);
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe(`${missing}\n`);
  });

  it('fails the run before any step when the DAG working_dir cannot be a directory', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const { final } = await runDag(dagOf([stepOf('a', 'true')], { working_dir: file }), dir);
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/cannot create working directory .*a-file/);
    expect(final.steps[0].status).toBe('not_started');
  });
});

describe('executeRun: log files', () => {
  it('writes stdout and stderr to one .log file with log_output: merged', async () => {
    const { final } = await runDag(
      dagOf([stepOf('both', 'echo out; echo err >&2')], { log_output: 'merged' }),
      dir,
    );
    expect(final.steps[0]).toMatchObject({
      stdout: 'test-dag/run-1/1/both.log',
      stderr: 'test-dag/run-1/1/both.log',
    });
    expect(read(join(dir, 'logs', 'both.log'))).toBe('out\nerr\n');
  });
});

describe('executeRun: continue_on.mark_success', () => {
  it('rewrites a failure its continue rule matched to succeeded, so the run succeeds (exit 0)', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('rescued', 'echo "WARN: soft"; exit 3', {
          continue_on: { failure: false, output: ['WARN'], mark_success: true },
        }),
        stepOf('next', 'true', { depends: ['rescued'] }),
      ]),
      dir,
    );
    expect(final.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(final.status).toBe('succeeded');
    expect(runExitCode(final)).toBe(0);
  });

  it('keeps a step timeout failed even with mark_success', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('slow', 'sleep 5', {
          timeout_sec: 0.2,
          continue_on: { failure: true, mark_success: true },
        }),
      ]),
      dir,
    );
    expect(final.steps[0]).toMatchObject({ status: 'failed', exit_code: 124 });
  });
});
