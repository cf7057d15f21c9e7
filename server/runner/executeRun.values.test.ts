// Dagu 2.x values and outputs at run time, with real processes: consts, declared step outputs through
// $DAGU_OUTPUT_FILE, the built-in run context (handlers' run status, aliases, the run log file) and a step's
// mail_on_error.

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../../tests/support/smtpSink';
import type { ConditionSpec, DagSpec } from '../core/types';
import { notifyStepFailure } from './runNotification';
import { dagOf, runDag, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
let sink: SmtpSink | null = null;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  await sink?.close();
  sink = null;
  cleanup();
});

const read = (path: string) => readFileSync(path, 'utf8');
const handlers = (over: Partial<DagSpec['handler_on']>): DagSpec['handler_on'] => ({
  init: null,
  success: null,
  failure: null,
  abort: null,
  exit: null,
  ...over,
});
const cond = (c: Partial<ConditionSpec>): ConditionSpec => ({
  condition: null,
  eval: null,
  expected: null,
  negate: false,
  ...c,
});

describe('executeRun: consts', () => {
  it('resolves ${consts.x} in run text, step and DAG env, preconditions and working_dir', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf(
      [
        stepOf(
          'show',
          `printf '%s %s %s %s\\n' '\${consts.service}' "$FROM_STEP" "$FROM_DAG" "$(basename "$PWD")" > ${seen}`,
          {
            env: { FROM_STEP: 'step-${consts.replicas}' },
            preconditions: [cond({ condition: '${consts.service}', expected: 'api' })],
          },
        ),
      ],
      {
        consts: { service: 'api', replicas: '3' },
        env: { FROM_DAG: 'dag-${consts.service}' },
        working_dir: join(dir, 'w-${consts.service}'),
      },
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe('api step-3 dag-api w-api\n');
  });

  it('keeps an unknown const and one with a path beyond the name as written', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf(
      [stepOf('show', `printf '%s|%s\\n' '\${consts.missing}' '\${consts.service.name}' > ${seen}`)],
      { consts: { service: 'api' } },
    );
    await runDag(dag, dir);
    expect(read(seen)).toBe('${consts.missing}|${consts.service.name}\n');
  });
});

describe('executeRun: the params payload', () => {
  it('leaves ${params} as written and DAG_PARAMS_JSON unset when the run has no params', async () => {
    const seen = join(dir, 'seen');
    const step = stepOf('s', `printf '%s|%s\\n' '\${params}' "\${DAG_PARAMS_JSON-unset}" > ${seen}`);
    await runDag(dagOf([step]), dir);
    expect(read(seen)).toBe('${params}|unset\n');
    await runDag(dagOf([step]), dir, { params: ['A=1'] });
    expect(read(seen)).toBe('{"A":"1"}|{"A":"1"}\n');
  });
});

describe('executeRun: declared outputs', () => {
  it('publishes name=value and heredoc outputs to dependents as ${steps.<id>.outputs.<name>}', async () => {
    const seen = join(dir, 'seen');
    const handlerSeen = join(dir, 'handler');
    const dag = dagOf(
      [
        stepOf(
          'build',
          [
            `printf 'image_tag=v1.2.3\\n' >> "$DAGU_OUTPUT_FILE"`,
            `printf 'meta<<JSON\\n{"image":"api"}\\nJSON\\n' >> "$DAGU_OUTPUT_FILE"`,
          ],
          {
            id: 'build',
            outputs: [
              { name: 'image_tag', type: 'string' },
              { name: 'meta', type: 'json' },
            ],
          },
        ),
        stepOf(
          'deploy',
          `printf '%s %s\\n' '\${steps.build.outputs.image_tag}' '\${steps.build.outputs.meta}' > ${seen}`,
          {
            depends: ['build'],
          },
        ),
      ],
      {
        // Handlers have no step-output scope (Dagu spec 007): the reference stays as written.
        handler_on: handlers({
          exit: stepOf('onExit', `printf '%s\\n' '\${steps.build.outputs.image_tag}' > ${handlerSeen}`),
        }),
      },
    );
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe('v1.2.3 {"image":"api"}\n');
    expect(read(handlerSeen)).toBe('${steps.build.outputs.image_tag}\n');
    expect(final.steps[0].outputs).toEqual({ image_tag: 'v1.2.3', meta: '{"image":"api"}' });
    // The step's `output` variable is not where declared outputs go, and the output file is gone.
    expect(final.steps[0].output).toBeNull();
    expect(readdirSync(join(dir, 'logs')).filter((f) => f.endsWith('.output'))).toEqual([]);
  });

  it('gives a step that does not depend on the producer no value', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf([
      stepOf('build', `printf 'tag=v1\\n' >> "$DAGU_OUTPUT_FILE"`, {
        id: 'build',
        outputs: [{ name: 'tag', type: 'string' }],
      }),
      stepOf('gate', 'true', { depends: ['build'] }),
      // Runs after build (through gate) but does not depend on build: still sees the value (transitive).
      stepOf('late', `printf '%s\\n' '\${steps.build.outputs.tag}' > ${seen}`, { depends: ['gate'] }),
    ]);
    await runDag(dag, dir);
    expect(read(seen)).toBe('v1\n');

    const lone = join(dir, 'lone');
    const dag2 = dagOf(
      [
        stepOf('build', `printf 'tag=v1\\n' >> "$DAGU_OUTPUT_FILE"`, {
          id: 'build',
          outputs: [{ name: 'tag', type: 'string' }],
        }),
        stepOf('lone', `printf '%s\\n' '\${steps.build.outputs.tag}' > ${lone}`),
      ],
      { max_active_steps: 1 },
    );
    await runDag(dag2, dir);
    expect(read(lone)).toBe('${steps.build.outputs.tag}\n');
  });

  it('fails a step that writes an undeclared output, and its dependents do not run', async () => {
    const marker = join(dir, 'unexpected-success');
    const { final } = await runDag(
      dagOf([
        stepOf('write', `printf 'unexpected=value\\n' >> "$DAGU_OUTPUT_FILE"`, { id: 'write' }),
        stepOf('after', `touch ${marker}`, { depends: ['write'] }),
      ]),
      dir,
    );
    expect(final.status).toBe('failed');
    expect(final.steps[0]).toMatchObject({ status: 'failed', exit_code: 0 });
    expect(final.steps[0].error).toBe(
      'failed to parse DAGU_OUTPUT_FILE: undeclared step output "unexpected"',
    );
    expect(final.steps[1].status).toBe('aborted');
    expect(existsSync(marker)).toBe(false);
    expect(final.error).toMatch(/undeclared/);
  });

  it('does not take stdout as an output: a declared output never written fails the step', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('build', 'echo image_tag=v1.2.3', {
          id: 'build',
          outputs: [{ name: 'image_tag', type: 'string' }],
        }),
      ]),
      dir,
    );
    expect(final.steps[0].status).toBe('failed');
    expect(final.steps[0].error).toMatch(/declared step output "image_tag" was not emitted/);
    expect(final.steps[0].outputs ?? null).toBeNull();
  });

  it('gives every retry a fresh empty file and publishes only the successful attempt', async () => {
    const marker = join(dir, 'tried');
    const script = [
      `if [ -s "$DAGU_OUTPUT_FILE" ]; then echo "not empty" >&2; exit 3; fi`,
      `if [ ! -e ${marker} ]; then touch ${marker}; printf 'a=first\\n' >> "$DAGU_OUTPUT_FILE"; exit 1; fi`,
      `printf 'a=second\\n' >> "$DAGU_OUTPUT_FILE"`,
    ].join('\n');
    const { final } = await runDag(
      dagOf([
        stepOf('s', null, {
          id: 's',
          script,
          outputs: [{ name: 'a', type: 'string' }],
          retry_policy: { limit: 1, interval_sec: 0, backoff: 1, max_interval_sec: null },
        }),
      ]),
      dir,
    );
    expect(final.steps[0]).toMatchObject({ status: 'succeeded', retry_count: 1, outputs: { a: 'second' } });
  });

  it('fails a json output that does not parse', async () => {
    const { final } = await runDag(
      dagOf([
        stepOf('s', `printf 'm={oops\\n' >> "$DAGU_OUTPUT_FILE"`, {
          id: 's',
          outputs: [{ name: 'm', type: 'json' }],
        }),
      ]),
      dir,
    );
    expect(final.steps[0].error).toBe('failed to parse DAGU_OUTPUT_FILE: step output "m" is not valid JSON');
  });
});

describe('executeRun: built-in run context', () => {
  it('gives handlers the final run status; steps leave ${context.run.status} as written', async () => {
    const seen = join(dir, 'seen');
    const handlerSeen = join(dir, 'handler');
    const dag = dagOf([stepOf('ok', `printf '%s\\n' '\${context.run.status}' > ${seen}`)], {
      handler_on: handlers({
        success: stepOf(
          'onSuccess',
          `printf '%s %s\\n' '\${context.run.status}' "$DAG_RUN_STATUS" > ${handlerSeen}`,
        ),
      }),
    });
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe('${context.run.status}\n');
    expect(read(handlerSeen)).toBe('succeeded succeeded\n');
  });

  it('fills attempt.started_at and its alias run.started_at, step.id, and the step output file path', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf([
      stepOf(
        'capture',
        `printf '%s|%s|%s|%s|%s\\n' '\${context.attempt.started_at}' '\${run.started_at}' '\${context.step.id}' '\${step.id}' '\${context.paths.step_output_file}' > ${seen}; test "$DAGU_OUTPUT_FILE" = '\${context.paths.step_output_file}'`,
        { id: 'capture' },
      ),
    ]);
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('succeeded');
    const [started, alias, id, idAlias, outFile] = read(seen).trim().split('|');
    expect(started).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(alias).toBe(started);
    expect(Math.abs(Date.parse(started) - Date.parse(final.started_at!))).toBeLessThan(1000);
    expect([id, idAlias]).toEqual(['capture', 'capture']);
    expect(outFile).toBe(join(dir, 'logs', 'capture.output'));
  });

  it('makes DAG_RUN_LOG_FILE the run log: _run.log with the engine lines when there is no process log', async () => {
    const seen = join(dir, 'seen');
    const dag = dagOf([
      stepOf(
        's',
        `test -f "$DAG_RUN_LOG_FILE" && printf '%s\\n%s\\n' "$DAG_RUN_LOG_FILE" '\${context.paths.log_file}' > ${seen}`,
      ),
    ]);
    const { final } = await runDag(dag, dir, { processLog: join(dir, 'no-such', 'process.log') });
    expect(final.status).toBe('succeeded');
    const runLog = join(dir, 'logs', '_run.log');
    expect(read(seen)).toBe(`${runLog}\n${runLog}\n`);
    const lines = read(runLog);
    expect(lines).toMatch(/INFO Run started/);
    expect(lines).toMatch(/INFO Step finished .*"step":"s"/);
    expect(lines).toMatch(/INFO Run finished .*"state":"succeeded"/);
  });

  it('uses the process log when the run has one, and writes no _run.log then', async () => {
    const processLog = join(dir, 'process.log');
    writeFileSync(processLog, '');
    const seen = join(dir, 'seen');
    const { final } = await runDag(
      dagOf([stepOf('s', `printf '%s\\n' "$DAG_RUN_LOG_FILE" > ${seen}`)]),
      dir,
      {
        processLog,
      },
    );
    expect(final.status).toBe('succeeded');
    expect(read(seen)).toBe(`${processLog}\n`);
    expect(existsSync(join(dir, 'logs', '_run.log'))).toBe(false);
  });

  it('keeps a step named _run apart from the run log', async () => {
    const { final } = await runDag(dagOf([stepOf('_run', 'echo hi')], { log_output: 'merged' }), dir);
    expect(final.steps[0].stdout).toBe('test-dag/run-1/1/_run-2.log');
  });
});

describe('executeRun: mail_on_error', () => {
  it('sends the error mail when a step with mail_on_error fails, with the run still running', async () => {
    sink = await startSmtpSink();
    const dag = dagOf(
      [
        stepOf('boom', 'exit 1', { mail_on_error: true }),
        stepOf('quiet', 'exit 1'),
        stepOf('fine', 'true', { mail_on_error: true }),
      ],
      {
        smtp: { host: '127.0.0.1', port: sink.port, username: '', password: '' },
        error_mail: { from: 'dagu@x.io', to: ['ops@x.io'], prefix: '[ERR]', attach_logs: false },
      },
    );
    const { final } = await runDag(dag, dir, {
      notifyStepFailure: async (d, now, step) => {
        const error = await notifyStepFailure(d, now, step, join(dir, 'logs'));
        if (error) throw new Error(error);
      },
    });
    expect(final.status).toBe('failed');
    // The run waits for the mail before it ends: it is there already, and it is the only one.
    expect(sink.messages.map((m) => [m.subject, m.to])).toEqual([['[ERR] test-dag (running)', ['ops@x.io']]]);
  });

  it('sends nothing without an error_mail', async () => {
    const sent: string[] = [];
    const dag = dagOf([stepOf('boom', 'exit 1', { mail_on_error: true })], {
      smtp: { host: '127.0.0.1', port: 1, username: '', password: '' },
    });
    await runDag(dag, dir, {
      notifyStepFailure: async (d, now, step) => {
        const error = await notifyStepFailure(d, now, step, join(dir, 'logs'));
        sent.push(error ?? 'none');
      },
    });
    expect(sent).toEqual(['none']);
  });
});
