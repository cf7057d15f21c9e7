import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepStatus } from '../core/types';
import { newRunStatus } from '../core/runStatus';
import { liveGroupMembers } from './processGroup';
import {
  NO_SUB_DAG_RUNNER,
  SubDagStartError,
  type SubDagRequest,
  type SubDagResult,
  type SubDagRunner,
} from './subDag';
import { chain, dagOf, minimalEnv, recordingReporter, runDag, stepOf, tempDir, waitFor } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const stepNamed = (steps: StepStatus[], name: string) => steps.find((s) => s.name === name)!;
const ms = (iso: string | null) => Date.parse(iso!);
const read = (path: string) => readFileSync(path, 'utf8');

describe('executeRun', () => {
  it('runs a chain of steps in order, logs their output and ends succeeded', async () => {
    const dag = dagOf(
      chain([stepOf('a', 'echo one'), stepOf('b', 'echo two >&2'), stepOf('c', 'echo three')]),
    );
    const { final, reporter } = await runDag(dag, dir);

    expect(final.status).toBe('succeeded');
    expect(final.error).toBeNull();
    expect(final.pid).toBe(process.pid);
    expect(final.finished_at).not.toBeNull();
    const [a, b, c] = final.steps;
    expect(ms(b.started_at)).toBeGreaterThanOrEqual(ms(a.finished_at));
    expect(ms(c.started_at)).toBeGreaterThanOrEqual(ms(b.finished_at));
    expect(final.steps.map((s) => [s.status, s.exit_code])).toEqual([
      ['succeeded', 0],
      ['succeeded', 0],
      ['succeeded', 0],
    ]);
    expect(a.stdout).toBe('test-dag/run-1/1/a.out');
    expect(read(join(dir, 'logs', 'a.out'))).toBe('one\n');
    expect(read(join(dir, 'logs', 'b.err'))).toBe('two\n');
    expect(reporter.statuses[0].status).toBe('running');
    expect(reporter.statuses.at(-1)).toEqual(final);
  });

  it('sends a heartbeat every interval while the run lasts, and none for a run shorter than one', async () => {
    const long = await runDag(dagOf([stepOf('wait', 'sleep 0.35')]), dir, { heartbeatIntervalMs: 100 });
    expect(long.reporter.heartbeats.length).toBeGreaterThanOrEqual(2);
    const short = await runDag(dagOf([stepOf('quick', 'true')]), dir, { heartbeatIntervalMs: 5000 });
    expect(short.reporter.heartbeats).toEqual([]);
  });

  it('runs independent steps of a graph in parallel and a joining step after both', async () => {
    const dag = dagOf([
      stepOf('left', 'sleep 0.3'),
      stepOf('right', 'sleep 0.3'),
      stepOf('join', 'true', { depends: ['left', 'right'] }),
    ]);
    const { final } = await runDag(dag, dir);

    const [left, right, join_] = final.steps;
    expect(final.status).toBe('succeeded');
    // Overlap: each started before the other finished.
    expect(ms(left.started_at)).toBeLessThan(ms(right.finished_at));
    expect(ms(right.started_at)).toBeLessThan(ms(left.finished_at));
    expect(ms(join_.started_at)).toBeGreaterThanOrEqual(
      Math.max(ms(left.finished_at), ms(right.finished_at)),
    );
  });

  it('fails with the exit code, aborts dependents (upstream failed) and runs the failure and exit handlers', async () => {
    const marker = join(dir, 'handlers');
    const dag = dagOf(chain([stepOf('load', 'exit 3'), stepOf('after', 'true')]), {
      handler_on: {
        success: stepOf('on_success', `echo success >> ${marker}`),
        failure: stepOf('on_failure', `echo failure >> ${marker}`),
        abort: null,
        exit: stepOf('on_exit', `echo exit >> ${marker}`),
      },
    });
    const { final } = await runDag(dag, dir);

    expect(final.status).toBe('failed');
    expect(final.error).toBe('step "load" failed: exit code 3');
    expect(stepNamed(final.steps, 'load')).toMatchObject({
      status: 'failed',
      exit_code: 3,
      error: 'exit code 3',
    });
    expect(stepNamed(final.steps, 'after')).toMatchObject({
      status: 'aborted',
      started_at: null,
      skip_reason: 'upstream failed',
    });
    expect(read(marker)).toBe('failure\nexit\n');
    expect(final.handlers.failure?.status).toBe('succeeded');
    expect(final.handlers.exit?.status).toBe('succeeded');
    expect(final.handlers.success).toBeUndefined();
  });

  it('keeps the run running while its handlers execute and fails it when a success handler fails', async () => {
    const dag = dagOf([stepOf('fine', 'true')], {
      handler_on: {
        success: stepOf('on_success', 'exit 5'),
        failure: null,
        abort: null,
        exit: stepOf('on_exit', 'true'),
      },
    });
    const { final, reporter } = await runDag(dag, dir);

    const duringHandler = reporter.statuses.filter((s) => s.handlers.success?.status === 'running');
    expect(duringHandler.length).toBeGreaterThan(0);
    expect(new Set(duringHandler.map((s) => s.status))).toEqual(new Set(['running']));
    expect(final.status).toBe('failed');
    expect(final.error).toBe('handler "on_success" failed: exit code 5');
    expect(final.handlers.exit?.status).toBe('succeeded');
  });

  it('stops a command list at the first failing entry', async () => {
    const dag = dagOf([stepOf('list', ['echo one', 'exit 4', 'echo three'])]);
    const { final } = await runDag(dag, dir);

    expect(final.steps[0]).toMatchObject({ status: 'failed', exit_code: 4 });
    expect(read(join(dir, 'logs', 'list.out'))).toBe('one\n');
  });

  it('retries a failing step with state retrying and succeeds on the second try', async () => {
    const marker = join(dir, 'tried');
    const dag = dagOf([
      stepOf('flaky', `if [ -f "${marker}" ]; then echo ok; else touch "${marker}"; exit 1; fi`, {
        retry_policy: { limit: 3, interval_sec: 0.05, backoff: 2, max_interval_sec: null },
      }),
    ]);
    const { final, reporter } = await runDag(dag, dir);

    expect(final.status).toBe('succeeded');
    expect(final.steps[0]).toMatchObject({ status: 'succeeded', retry_count: 1, exit_code: 0, error: null });
    const retrying = reporter.statuses.find((s) => s.steps[0].status === 'retrying');
    expect(retrying?.steps[0]).toMatchObject({ retry_count: 0, exit_code: 1, error: 'exit code 1' });
  });

  it('gives up after the retry limit with the last error', async () => {
    const dag = dagOf([
      stepOf('broken', 'exit 2', {
        retry_policy: { limit: 2, interval_sec: 0, backoff: 1, max_interval_sec: null },
      }),
    ]);
    const { final } = await runDag(dag, dir);

    expect(final.steps[0]).toMatchObject({ status: 'failed', retry_count: 2, exit_code: 2 });
    expect(final.error).toBe('step "broken" failed: exit code 2');
  });

  it('kills the whole process group of a step that times out, even children ignoring SIGTERM', async () => {
    const pgidFile = join(dir, 'pgid');
    const dag = dagOf([
      stepOf('slow', `echo $$ > "${pgidFile}"; sh -c 'trap "" TERM; sleep 30' & sleep 30`, {
        timeout_sec: 0.4,
      }),
    ]);
    const { final } = await runDag(dag, dir, { killGraceMs: 200 });

    expect(final.status).toBe('failed');
    expect(final.steps[0]).toMatchObject({ status: 'failed', exit_code: 124 });
    expect(final.steps[0].error).toMatch(/^step timed out after/);
    expect(final.error).toMatch(/^step "slow" failed: step timed out after/);
    const pgid = Number(read(pgidFile));
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  it('fails the run when the DAG timeout passes: running steps killed and aborted, the rest aborted', async () => {
    const marker = join(dir, 'handlers');
    const dag = dagOf(
      [
        stepOf('slow', 'trap "" TERM; sleep 30'),
        stepOf('never', 'true', { depends: ['slow'] }),
        stepOf('late', 'true', { depends: ['quick'] }),
        stepOf('quick', 'sleep 5'),
      ],
      {
        timeout_sec: 0.3,
        handler_on: {
          success: null,
          failure: stepOf('on_failure', `echo failure >> ${marker}`),
          abort: null,
          exit: stepOf('on_exit', `echo "exit $DAG_RUN_STATUS" >> ${marker}`),
        },
      },
    );
    const started = Date.now();
    const { final } = await runDag(dag, dir, { killGraceMs: 10_000 });

    // SIGKILL at once: the trap and the long clean-up time do not delay the end.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(final.status).toBe('failed');
    expect(final.error).toBe('run timed out after 300ms (context deadline exceeded)');
    expect(final.steps.map((s) => [s.name, s.status])).toEqual([
      ['slow', 'aborted'],
      ['never', 'aborted'],
      ['late', 'aborted'],
      ['quick', 'aborted'],
    ]);
    expect(read(marker)).toBe('failure\nexit failed\n');
  });

  it('on abort sends the signal to the running step, ends aborted and runs the abort and exit handlers', async () => {
    const ready = join(dir, 'ready');
    const got = join(dir, 'got');
    const marker = join(dir, 'handlers');
    const controller = new AbortController();
    const dag = dagOf(
      chain([
        stepOf('wait', `trap 'echo TERM > "${got}"; exit 143' TERM; touch "${ready}"; sleep 30 & wait`),
        stepOf('later', 'true'),
      ]),
      {
        handler_on: {
          success: null,
          failure: stepOf('on_failure', `echo failure >> ${marker}`),
          abort: stepOf('on_abort', `echo abort >> ${marker}`),
          exit: stepOf('on_exit', `echo exit >> ${marker}`),
        },
      },
    );
    const running = runDag(dag, dir, { signal: controller.signal, killGraceMs: 2000 });
    await waitFor(() => existsSync(ready));
    controller.abort('SIGTERM');
    const { final } = await running;

    expect(final.status).toBe('aborted');
    expect(final.error).toBe('run aborted (SIGTERM)');
    expect(read(got)).toBe('TERM\n');
    expect(stepNamed(final.steps, 'wait')).toMatchObject({ status: 'aborted', exit_code: 143 });
    // Dagu leaves a step the stop kept from starting not_started.
    expect(stepNamed(final.steps, 'later')).toMatchObject({
      status: 'not_started',
      skip_reason: 'run aborted (SIGTERM)',
    });
    expect(read(marker)).toBe('abort\nexit\n');
    expect(final.handlers.abort?.status).toBe('succeeded');
  });

  it('starts no step of a run aborted before it started and still runs the abort handler', async () => {
    const controller = new AbortController();
    controller.abort('SIGINT');
    const dag = dagOf(chain([stepOf('a', 'true'), stepOf('b', 'true')]), {
      handler_on: { success: null, failure: null, abort: stepOf('on_abort', 'true'), exit: null },
    });
    const { final } = await runDag(dag, dir, { signal: controller.signal });

    expect(final.status).toBe('aborted');
    expect(final.error).toBe('run aborted (SIGINT)');
    expect(final.steps.map((s) => s.status)).toEqual(['not_started', 'not_started']);
    expect(final.handlers.abort?.status).toBe('succeeded');
  });

  it('ends partially_succeeded when the only failing step may continue, and its dependents still run', async () => {
    const dag = dagOf(
      chain([stepOf('optional', 'exit 1', { continue_on: { failure: true } }), stepOf('next', 'echo ran')]),
    );
    const { final } = await runDag(dag, dir);

    expect(final.status).toBe('partially_succeeded');
    expect(stepNamed(final.steps, 'optional').status).toBe('failed');
    expect(stepNamed(final.steps, 'next').status).toBe('succeeded');
    expect(final.error).toBe('step "optional" failed: exit code 1');
  });

  it('passes a trimmed step output to later steps as an environment variable', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf(
      chain([
        stepOf('produce', 'printf "  hello world \\n\\n"', { output: 'GREETING' }),
        stepOf('consume', `printf %s "$GREETING" > "${seen}"`),
      ]),
    );
    const { final } = await runDag(dag, dir);

    expect(stepNamed(final.steps, 'produce').output).toEqual({ GREETING: 'hello world' });
    expect(read(seen)).toBe('hello world');
  });

  it('keeps named params with shell metacharacters inert as env values', async () => {
    const seen = join(dir, 'seen');
    const nasty = `a'; touch ${dir}/pwned1; '$(touch ${dir}/pwned2)\`touch pwned3\`"; touch pwned4 #`;
    const dag = dagOf([stepOf('show', `printf '%s\\n' "$NAMED" > "${seen}"`)]);
    const { final } = await runDag(dag, dir, { params: [`NAMED=${nasty}`], baseEnv: minimalEnv() });

    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe(`${nasty}\n`);
    for (const n of [1, 2]) expect(existsSync(join(dir, `pwned${n}`))).toBe(false);
    for (const n of [3, 4]) expect(existsSync(join(dir, 'work', `pwned${n}`))).toBe(false);
  });

  it('gives every step the DAG_* variables and layers named params, DAG env and step env (later wins)', async () => {
    const seen = join(dir, 'seen');
    const vars = ['DAG_NAME', 'DAG_RUN_ID', 'DAG_RUN_STEP_NAME', 'DAG_RUN_LOG_FILE', 'DAG_RUN_SCHEDULE_TIME'];
    const dag = dagOf(
      [
        stepOf('show', `for v in ${vars.join(' ')} A B C; do eval "echo $v=\\$$v"; done > "${seen}"`, {
          env: { B: 'step', C: 'step' },
        }),
      ],
      { env: { A: 'dag', B: 'dag', C: 'dag' } },
    );
    await runDag(dag, dir, { params: ['C=param'], scheduleTime: '2026-11-30T01:15:00Z' });

    expect(read(seen).split('\n')).toEqual([
      'DAG_NAME=test-dag',
      'DAG_RUN_ID=run-1',
      'DAG_RUN_STEP_NAME=show',
      // The run's own log (no process log here), not the step's stdout: Dagu's run log file.
      `DAG_RUN_LOG_FILE=${join(dir, 'logs', '_run.log')}`,
      'DAG_RUN_SCHEDULE_TIME=2026-11-30T01:15:00Z',
      'A=dag',
      'B=step',
      'C=step',
      '',
    ]);
  });

  it('runs a script from a file with the params as $1.. and stdin free', async () => {
    const dag = dagOf([
      stepOf('script', null, { script: 'set -e\necho "first=$1"\nread line || echo "stdin empty"\n' }),
    ]);
    const { final } = await runDag(dag, dir, { params: ['p1'] });

    expect(final.status).toBe('succeeded');
    expect(read(join(dir, 'logs', 'script.out'))).toBe('first=p1\nstdin empty\n');
  });

  it('creates a missing step working directory and runs the step there with PWD set', async () => {
    const dag = dagOf([stepOf('here', 'echo "$PWD"; pwd', { dir: join(dir, 'missing', 'deep') })]);
    const { final } = await runDag(dag, dir);

    expect(final.status).toBe('succeeded');
    const where = join(dir, 'missing', 'deep');
    expect(read(join(dir, 'logs', 'here.out'))).toBe(`${where}\n${where}\n`);
  });

  it('fails a step whose working directory cannot be created without starting it', async () => {
    writeFileSync(join(dir, 'file'), '');
    const dag = dagOf([stepOf('lost', 'true', { dir: join(dir, 'file', 'sub') })]);
    const { final } = await runDag(dag, dir);

    expect(final.steps[0].error).toMatch(/cannot create working directory/);
    expect(final.status).toBe('failed');
  });
});

/** A fake sub-DAG runner: records requests and ends each child as `outcome` says (or when aborted). */
function fakeSubDag(outcome: (r: SubDagRequest) => Promise<SubDagResult>) {
  const requests: SubDagRequest[] = [];
  const runner: SubDagRunner = (r) => {
    requests.push(r);
    return outcome(r);
  };
  return { runner, requests };
}

describe('executeRun with call steps', () => {
  const callDag = () =>
    dagOf(
      chain([
        stepOf('prepare', 'echo prepared'),
        stepOf('child', null, {
          call: 'child-dag',
          params: [
            { name: 'REGION', value: 'eu' },
            { name: null, value: 'positional' },
          ],
          worker_selector: { zone: 'b' },
        }),
        stepOf('after', 'true'),
      ]),
    );

  it('runs the called DAG through the sub-DAG runner and succeeds when the child succeeds', async () => {
    let runningWhileChildRuns: StepStatus['status'] | undefined;
    const reporter = recordingReporter();
    const fake = fakeSubDag(async (r) => {
      runningWhileChildRuns = reporter.statuses.at(-1)?.steps[1].status;
      return { run_id: r.runId, status: 'succeeded', error: null };
    });
    const { final } = await runDag(callDag(), dir, { subDag: fake.runner, reporter });

    expect(final.status).toBe('succeeded');
    expect(runningWhileChildRuns).toBe('running');
    expect(fake.requests).toHaveLength(1);
    const childId = fake.requests[0].runId;
    expect(fake.requests[0]).toMatchObject({
      parent: { run_id: 'run-1', dag_name: 'test-dag', step: 'child' },
      dagName: 'child-dag',
      params: ['REGION=eu', 'positional'],
      workerSelector: { zone: 'b' },
    });
    expect(stepNamed(final.steps, 'child')).toMatchObject({ status: 'succeeded', exit_code: 0, error: null });
    expect(stepNamed(final.steps, 'after').status).toBe('succeeded');
    expect(stepNamed(final.steps, 'child').sub_runs?.[0]).toMatchObject({
      run_id: childId,
      status: 'succeeded',
    });
  });

  it('fails a call step that declares outputs: nothing writes them', async () => {
    const fake = fakeSubDag(async (r) => ({ run_id: r.runId, status: 'succeeded', error: null }));
    const dag = callDag();
    dag.steps[1] = { ...dag.steps[1], id: 'child', outputs: [{ name: 'tag', type: 'string' }] };
    const { final } = await runDag(dag, dir, { subDag: fake.runner });

    expect(stepNamed(final.steps, 'child')).toMatchObject({
      status: 'failed',
      error: 'failed to parse DAGU_OUTPUT_FILE: declared step output "tag" was not emitted',
    });
    expect(stepNamed(final.steps, 'after').status).toBe('aborted');
  });

  it("passes a child's partial success on: dependents run and the run ends partially_succeeded", async () => {
    const fake = fakeSubDag(async (r) => ({ run_id: r.runId, status: 'partially_succeeded', error: 'x' }));
    const { final } = await runDag(callDag(), dir, { subDag: fake.runner });

    expect(stepNamed(final.steps, 'child').status).toBe('partially_succeeded');
    expect(stepNamed(final.steps, 'after').status).toBe('succeeded');
    expect(final.status).toBe('partially_succeeded');
  });

  it('fails the step with the child state and error when the child fails, and aborts its dependents', async () => {
    const fake = fakeSubDag(async (r) => ({
      run_id: r.runId,
      status: 'failed',
      error: 'step "x" failed: exit code 1',
    }));
    const { final } = await runDag(callDag(), dir, { subDag: fake.runner });

    const childId = fake.requests[0].runId;
    const error = stepNamed(final.steps, 'child').error!;
    expect(error).toContain(childId);
    expect(error).toContain('step "x" failed: exit code 1');
    expect(stepNamed(final.steps, 'child').status).toBe('failed');
    expect(stepNamed(final.steps, 'after')).toMatchObject({
      status: 'aborted',
      skip_reason: 'upstream failed',
    });
    expect(final.status).toBe('failed');
    expect(final.error).toBe(`step "child" failed: ${error}`);
  });

  it("fails the step with the runner's own message when the child could not be started", async () => {
    const fake = fakeSubDag(async () => {
      throw new SubDagStartError('child-dag', 'no worker matches the selector {zone: b}');
    });
    const { final } = await runDag(callDag(), dir, { subDag: fake.runner });

    expect(stepNamed(final.steps, 'child')).toMatchObject({
      status: 'failed',
      error: 'no worker matches the selector {zone: b}',
    });
  });

  it('fails a call step with a clear message when the engine has no sub-DAG runner', async () => {
    const { final } = await runDag(callDag(), dir);

    expect(stepNamed(final.steps, 'child')).toMatchObject({ status: 'failed', error: NO_SUB_DAG_RUNNER });
    expect(final.error).toBe(`step "child" failed: ${NO_SUB_DAG_RUNNER}`);
  });

  it('aborts the child when the parent is aborted and ends the step aborted', async () => {
    const controller = new AbortController();
    let childSignal: AbortSignal | null = null;
    const fake = fakeSubDag(
      (r) =>
        new Promise((resolve) => {
          childSignal = r.signal;
          r.signal.addEventListener('abort', () =>
            resolve({ run_id: r.runId, status: 'aborted', error: 'run aborted (SIGTERM)' }),
          );
        }),
    );
    const running = runDag(callDag(), dir, { subDag: fake.runner, signal: controller.signal });
    await waitFor(() => childSignal !== null);
    controller.abort('SIGTERM');
    const { final } = await running;

    expect(childSignal!.aborted).toBe(true);
    expect(final.status).toBe('aborted');
    expect(stepNamed(final.steps, 'child')).toMatchObject({
      status: 'aborted',
      error: 'run aborted (SIGTERM)',
    });
    expect(stepNamed(final.steps, 'after').status).toBe('not_started');
  });

  it('stops the child when the call step times out and fails the step with the timeout', async () => {
    const fake = fakeSubDag(
      (r) =>
        new Promise((resolve) => {
          r.signal.addEventListener('abort', () =>
            resolve({ run_id: r.runId, status: 'aborted', error: null }),
          );
        }),
    );
    const dag = dagOf([stepOf('child', null, { call: 'child-dag', timeout_sec: 0.2 })]);
    const { final } = await runDag(dag, dir, { subDag: fake.runner });

    expect(final.steps[0]).toMatchObject({ status: 'failed', error: 'timed out after 200ms' });
    expect(final.status).toBe('failed');
  });

  it('gives the child of a later attempt a new run ID', async () => {
    const fake = fakeSubDag(async (r) => ({ run_id: r.runId, status: 'succeeded', error: null }));
    const dag = dagOf([stepOf('child', null, { call: 'child-dag' })]);
    const status = newRunStatus({
      dag,
      runId: 'run-1',
      attempt: 2,
      status: 'running',
      triggerType: 'retry',
      scheduleTime: null,
      params: [],
      nowIso: new Date().toISOString(),
    });
    await runDag(dag, dir, { subDag: fake.runner });
    await runDag(dag, dir, { subDag: fake.runner, status });

    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1].runId).not.toBe(fake.requests[0].runId);
  });
});

describe('executeRun resuming an earlier attempt', () => {
  const succeeded = (name: string, output: Record<string, string> | null = null): StepStatus => ({
    name,
    status: 'succeeded',
    started_at: '2026-01-01T00:00:00.000Z',
    finished_at: '2026-01-01T00:00:01.000Z',
    exit_code: 0,
    error: null,
    retry_count: 0,
    stdout: `test-dag/run-1/1/${name}.out`,
    stderr: `test-dag/run-1/1/${name}.err`,
    output,
  });

  it('keeps the steps that succeeded with their outputs and runs only the others', async () => {
    const ran = join(dir, 'ran');
    const dag = dagOf(
      chain([
        stepOf('first', `echo first >> "${ran}"`, { output: 'FIRST' }),
        stepOf('second', `echo "second $FIRST" >> "${ran}"`),
        stepOf('third', `echo third >> "${ran}"`),
      ]),
    );
    const previousSteps: StepStatus[] = [
      succeeded('first', { FIRST: 'from-attempt-1' }),
      { ...succeeded('second'), status: 'failed', exit_code: 1, error: 'exit code 1' },
      { ...succeeded('third'), status: 'skipped', exit_code: null },
    ];
    const { final, reporter } = await runDag(dag, dir, { resumeFrom: previousSteps });

    expect(final.status).toBe('succeeded');
    expect(read(ran)).toBe('second from-attempt-1\nthird\n');
    // Kept as it was, with the depends of this attempt's DAG recorded beside it.
    expect(stepNamed(final.steps, 'first')).toEqual({ ...previousSteps[0], depends: [] });
    expect(final.steps.map((s) => s.depends)).toEqual([[], ['first'], ['second']]);
    expect(reporter.statuses[0].steps.map((s) => s.status)).toEqual([
      'succeeded',
      'not_started',
      'not_started',
    ]);
    expect(stepNamed(final.steps, 'second')).toMatchObject({
      status: 'succeeded',
      stdout: 'test-dag/run-1/1/second.out',
    });
  });

  it('runs a kept step again when one of its dependencies runs again', async () => {
    const dag = dagOf(chain([stepOf('a', 'true'), stepOf('b', 'true'), stepOf('c', 'true')]));
    const { final, reporter } = await runDag(dag, dir, {
      resumeFrom: [{ ...succeeded('a'), status: 'failed' }, succeeded('b'), succeeded('c')],
    });

    expect(reporter.statuses[0].steps.map((s) => s.status)).toEqual([
      'not_started',
      'not_started',
      'not_started',
    ]);
    expect(
      final.steps.every((s) => s.status === 'succeeded' && s.started_at !== '2026-01-01T00:00:00.000Z'),
    ).toBe(true);
  });

  it('ignores steps of the earlier attempt that the DAG no longer has', async () => {
    const dag = dagOf([stepOf('only', 'true')]);
    const { final } = await runDag(dag, dir, { resumeFrom: [succeeded('gone')] });

    expect(final.steps.map((s) => s.name)).toEqual(['only']);
    expect(final.status).toBe('succeeded');
  });
});
