// `dagu start` on fixture DAGs, through the real binary: outcomes, exit codes, logs and status records.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAGU, dagu, eventually, tempHome, type TempHome } from './harness';

let h: TempHome;
beforeEach(() => {
  h = tempHome();
});
afterEach(() => h.cleanup());

async function status(runId: string) {
  const r = await dagu(['status', '--json', runId], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const runIdOf = (stdout: string) => /^\S+ (\S+) \(attempt/m.exec(stdout)![1];

describe('dagu start', () => {
  it('runs a chain of steps to success, exits 0 and writes logs and status', async () => {
    h.writeDag(
      'ok',
      'steps:\n  - name: one\n    command: echo first\n  - name: two\n    command: echo "second $DAG_NAME"\n',
    );
    const r = await dagu(['start', 'ok'], h.env);
    expect(r.code, r.stderr).toBe(0);
    const s = await status(runIdOf(r.stdout));
    expect(s.status).toBe('succeeded');
    expect(s.trigger_type).toBe('manual');
    expect(s.steps.map((x: { status: string }) => x.status)).toEqual(['succeeded', 'succeeded']);
    const log = readFileSync(path.join(h.home, 'logs', s.steps[1].stdout), 'utf8');
    expect(log).toContain('second ok');
  });

  it('exits 1 when a step fails and records the exit code and error', async () => {
    h.writeDag(
      'bad',
      'steps:\n  - name: boom\n    command: sh -c "exit 3"\n  - name: after\n    command: echo never\n    depends: boom\n',
    );
    const r = await dagu(['start', 'bad'], h.env);
    expect(r.code).toBe(1);
    const s = await status(runIdOf(r.stdout));
    expect(s.status).toBe('failed');
    expect(s.steps[0]).toMatchObject({ status: 'failed', exit_code: 3 });
    expect(s.steps[1]).toMatchObject({ status: 'aborted', skip_reason: 'upstream failed' });
    expect(s.error).toMatch(/boom/);
  });

  it('retries a failing step until it succeeds', async () => {
    h.writeDag(
      'flaky',
      [
        'steps:',
        '  - name: flaky',
        '    script: |',
        '      m="$DAGU_HOME/marker-$DAG_RUN_ID"',
        '      if [ -f "$m" ]; then echo ok; else touch "$m"; exit 1; fi',
        '    retry_policy:',
        '      limit: 2',
        '      interval_sec: 0',
        '',
      ].join('\n'),
    );
    const r = await dagu(['start', 'flaky'], h.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const s = await status(runIdOf(r.stdout));
    expect(s.steps[0]).toMatchObject({ status: 'succeeded', retry_count: 1 });
  });

  it('returns after the first attempt under a DAG-level retry_policy; the scheduler retries it', async () => {
    h.writeDag(
      'dagretry',
      [
        'retry_policy:',
        '  limit: 2',
        '  interval_sec: 0',
        'steps:',
        '  - name: once',
        '    script: |',
        '      m="$DAGU_HOME/dag-marker-$DAG_RUN_ID"',
        '      if [ -f "$m" ]; then echo ok; else touch "$m"; exit 1; fi',
        '',
      ].join('\n'),
    );
    // As Dagu's `start`: one attempt, its outcome, and the retry left to the scheduler.
    const r = await dagu(['start', '--run-id', 'dr1', 'dagretry'], h.env);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(await status('dr1')).toMatchObject({ status: 'failed', attempt: 1 });
    const sched = spawn(process.execPath, [DAGU, 'scheduler'], {
      env: { ...h.env, DAGU_SCHEDULER_PORT: '0' },
      stdio: 'ignore',
    });
    try {
      const s = await eventually(async () => {
        const x = await status('dr1');
        return x.status === 'succeeded' ? x : null;
      }, 30_000);
      expect(s).toMatchObject({ attempt: 2, trigger_type: 'retry', auto_retry_count: 1 });
    } finally {
      sched.kill('SIGKILL');
    }
  });

  it("retry runs again what failed (Dagu's retry plan); resume runs again only what did not succeed", async () => {
    h.writeDag(
      'twostep',
      [
        'steps:',
        '  - name: first',
        '    command: echo ran >> "$DAGU_HOME/first-$DAG_RUN_ID"',
        '  - name: second',
        '    script: |',
        '      m="$DAGU_HOME/second-$DAG_RUN_ID"',
        '      n=$(cat "$m" 2>/dev/null || echo 0); echo $((n + 1)) > "$m"',
        '      [ "$n" -ge 2 ]',
        '',
      ].join('\n'),
    );
    const count = (name: string) => readFileSync(path.join(h.home, name), 'utf8').trim().split('\n').length;
    expect((await dagu(['start', '--run-id', 'rr1', 'twostep'], h.env)).code).toBe(1);
    expect((await dagu(['retry', 'rr1'], h.env)).code).toBe(1);
    expect(count('first-rr1')).toBe(1); // it succeeded: kept, not run twice
    expect(count('second-rr1')).toBe(1); // the file holds the count of its runs: 2 by now
    expect(readFileSync(path.join(h.home, 'second-rr1'), 'utf8').trim()).toBe('2');
    const resumed = await dagu(['resume', 'rr1'], h.env);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(count('first-rr1')).toBe(1); // kept from attempt 1, not run again
    expect(await status('rr1')).toMatchObject({ status: 'succeeded', attempt: 3, trigger_type: 'retry' });
    const again = await dagu(['resume', 'rr1'], h.env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/nothing to resume/);
  });

  it("retry runs a failed step and what depends on it again, and keeps successes and skips (upstream's retry_test)", async () => {
    const line = (x: string) => `echo ${x} >> "$DAGU_HOME/seen-$DAG_RUN_ID"`;
    h.writeDag(
      'plan',
      [
        'type: graph',
        'steps:',
        '  - name: step1',
        `    run: ${line('step1')}`,
        '  - name: step2',
        '    depends: [step1]',
        '    run: |',
        `      ${line('step2')}`,
        '      test -f "$DAGU_HOME/marker" || { touch "$DAGU_HOME/marker"; exit 1; }',
        '  - name: step3',
        '    depends: [step2]',
        `    run: ${line('step3')}`,
        '  - name: side',
        `    run: ${line('side')}`,
        '  - name: skipper',
        '    preconditions: ["false"]',
        `    run: ${line('skipper')}`,
        '',
      ].join('\n'),
    );
    expect((await dagu(['start', '--run-id', 'pl1', 'plan'], h.env)).code).toBe(1);
    const retry = await dagu(['retry', 'pl1'], h.env);
    expect(retry.code, retry.stderr).toBe(0);
    const seen = readFileSync(path.join(h.home, 'seen-pl1'), 'utf8').trim().split('\n').sort();
    expect(seen).toEqual(['side', 'step1', 'step2', 'step2', 'step3']);
    const s = await status('pl1');
    expect(s.steps.map((x: { name: string; status: string }) => `${x.name}:${x.status}`)).toEqual([
      'step1:succeeded',
      'step2:succeeded',
      'step3:succeeded',
      'side:succeeded',
      'skipper:skipped',
    ]);
  });

  it('refuses a schema-backed run that lacks a required param before recording it, --run-id or not', async () => {
    // Upstream's TestIssue1182_InlineSchemaMissingRequiredFails: no run of that ID exists afterwards.
    h.writeDag(
      'req',
      'params:\n  type: object\n  properties:\n    start_date: {type: string}\n  required: [start_date]\nsteps:\n  - name: s\n    run: echo hi\n',
    );
    for (const args of [
      ['start', '--run-id', 'i2', 'req'],
      ['start', 'req'],
    ]) {
      const r = await dagu(args, h.env);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('start_date');
    }
    expect((await dagu(['status', 'i2'], h.env)).code).not.toBe(0);
    expect(JSON.parse((await dagu(['history', '--format', 'json', 'req'], h.env)).stdout)).toEqual([]);
  });

  it('kills a step that runs past its timeout', async () => {
    h.writeDag('slow', 'steps:\n  - name: sleepy\n    command: sleep 30\n    timeout_sec: 1\n');
    const r = await dagu(['start', 'slow'], h.env);
    expect(r.code).toBe(1);
    const s = await status(runIdOf(r.stdout));
    expect(s.steps[0].status).toBe('failed');
    expect(s.steps[0].error).toMatch(/timed out/);
    // On the step's own time stamps: it ran its second, then ended within the kill grace (1s) and a
    // second of slack for a loaded machine, not after its 30 s.
    const ranMs = Date.parse(s.steps[0].finished_at) - Date.parse(s.steps[0].started_at);
    expect(ranMs).toBeGreaterThanOrEqual(1000);
    expect(ranMs).toBeLessThanOrEqual(3000);
  });

  it('ends aborted when the run process gets SIGTERM, and the abort handler runs', async () => {
    h.writeDag(
      'longrun',
      'handler_on:\n  abort:\n    command: echo aborted-handler\nsteps:\n  - name: wait\n    command: sleep 30\n',
    );
    const { spawn } = await import('node:child_process');
    const { DAGU } = await import('./harness');
    const child = spawn(process.execPath, [DAGU, 'start', '--run-id', 'abort-me', 'longrun'], {
      env: h.env,
      stdio: 'ignore',
    });
    await eventually(async () => {
      const r = await dagu(['status', '--json', 'abort-me'], h.env);
      return r.code === 0 && JSON.parse(r.stdout).steps[0].status === 'running';
    });
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    // Dagu's rule: a run stopped on request ends aborted and `dagu start` exits 0.
    expect(code).toBe(0);
    const s = await status('abort-me');
    expect(s.status).toBe('aborted');
    expect(s.handlers.abort?.status).toBe('succeeded');
  });

  it('passes params as env and positional arguments without evaluating shell metacharacters', async () => {
    const canary = path.join(h.home, 'pwned');
    h.writeDag(
      'params',
      // Dagu names every param by its place: the caller's second word is $2 and replaces the DAG's second
      // entry, the third is added as $3.
      'params:\n  - one\n  - two\n  - NAME=default\nsteps:\n  - name: show\n    command: printf "%s|%s|%s" "$NAME" "$2" "$3"\n',
    );
    const evil = `'; touch ${canary}; echo '`;
    const r = await dagu(
      ['start', '--run-id', 'p1', 'params', '--', `NAME=$(touch ${canary})`, evil, 'a b'],
      h.env,
    );
    expect(r.code, r.stderr).toBe(0);
    const s = await status('p1');
    const out = readFileSync(path.join(h.home, 'logs', s.steps[0].stdout), 'utf8');
    expect(out).toBe(`$(touch ${canary})|${evil}|a b`);
    expect(existsSync(canary)).toBe(false);
    expect(s.params).toEqual(['1=one', `2=${evil}`, `NAME=$(touch ${canary})`, '3=a b']);
  });
});

describe('bad input gets one clear line, exit 2 and no run record', () => {
  it.each([
    ['a missing DAG', ['start', 'nope'], /DAG "nope" not found/],
    ['a DAG name with ..', ['start', '../etc/passwd'], /not found|invalid/],
    ['a run ID with a slash', ['start', '--run-id', 'a/b', 'ok'], /invalid run ID "a\/b"/],
    ['an unknown command', ['frobnicate'], /unknown command/],
  ])('%s', async (_label, args, message) => {
    h.writeDag('ok', 'steps:\n  - name: one\n    command: "true"\n');
    const r = await dagu(args, h.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(path.join(h.home, 'data', 'runs'))).toBe(false);
  });

  it('an invalid duration in the environment names the variable and value', async () => {
    const r = await dagu(['start', 'ok'], { ...h.env, DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '-5s' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'dagu: DAGU_SCHEDULER_LOCK_STALE_THRESHOLD (scheduler.lock_stale_threshold): "-5s" is negative',
    );
  });

  it('a malformed DAG names the file and line, and validate prints every error at once', async () => {
    h.writeDag(
      'broken',
      'steps:\n  - name: a\n    command: echo\n    depends: missing\n  - name: b\n    bogus_key: 1\n    command: echo\n',
    );
    const r = await dagu(['start', 'broken'], h.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/broken\.yaml:\d+/);
    const v = await dagu(['validate', 'broken'], h.env);
    expect(v.code).toBe(2);
    expect(v.stderr).toMatch(/depends/);
    expect(v.stderr).toMatch(/bogus_key/);
    expect(existsSync(path.join(h.home, 'data', 'runs'))).toBe(false);
  });
});

describe('dagu start and enqueue params', () => {
  const PARAMS_DAG =
    'params:\n  - FOO: bar\n  - MODE: fast\nsteps:\n  - name: show\n    run: echo "$FOO $MODE"\n';
  const stdoutOf = async (runId: string) => {
    const s = await status(runId);
    return readFileSync(path.join(h.home, 'logs', s.steps[0].stdout), 'utf8');
  };

  it("gives an enqueued run the DAG's default params when the queue starts it", async () => {
    h.writeDag('withparams', PARAMS_DAG);
    const q = await dagu(['enqueue', '--run-id', 'q1', 'withparams', '--', 'MODE=slow'], h.env);
    expect(q.code, q.stderr).toBe(0);
    expect((await status('q1')).params).toEqual(['FOO=bar', 'MODE=slow']);
    // What the scheduler's queue consumer runs for a queued run.
    const r = await dagu(['start', '--run-id', 'q1', 'withparams'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(await stdoutOf('q1')).toBe('bar slow\n');
  });

  it('takes params after --, in --params/-p text, or as one JSON argument', async () => {
    h.writeDag('withparams', PARAMS_DAG);
    const forms = [
      ['--', 'FOO=a b', 'MODE=x'],
      ['--params', 'FOO="a b" MODE=x'],
      ['-p', 'MODE=x FOO="a b"'],
      ['--', '{"FOO": "a b", "MODE": "x"}'],
    ];
    for (const [i, form] of forms.entries()) {
      const args = form[0] === '--' ? ['withparams', ...form] : [...form, 'withparams'];
      const r = await dagu(['start', '--run-id', `f${i}`, ...args], h.env);
      expect(r.code, `${form.join(' ')}: ${r.stderr}`).toBe(0);
      expect(await stdoutOf(`f${i}`)).toBe('a b x\n');
    }
  });

  it.each([
    [
      'words after the DAG without --',
      ['withparams', 'FOO=x'],
      /unexpected words after the DAG.*use|parameters go after '--'/,
    ],
    [
      'an undeclared name',
      ['withparams', '--', 'BOGUS=1'],
      /unknown parameter\(s\): "BOGUS"; accepted parameters are: FOO, MODE/,
    ],
    [
      'too many positional values',
      ['withparams', '--', 'a', 'b', 'c'],
      /too many positional params: expected at most 2, got 3/,
    ],
    [
      '--params and -- together',
      ['--params', 'FOO=1', 'withparams', '--', 'MODE=2'],
      /either with --params or after '--'/,
    ],
  ])('refuses %s with a clear error and records no run', async (_what, args, message) => {
    h.writeDag('withparams', PARAMS_DAG);
    for (const command of ['start', 'enqueue']) {
      const r = await dagu([command, '--run-id', 'refused', ...args], h.env);
      expect(r.code, command).toBe(2);
      expect(r.stderr, command).toMatch(message);
      const s = await dagu(['status', 'refused'], h.env);
      expect(s.code, command).not.toBe(0);
    }
  });

  it("fails the run before any step when a param's eval fails and has no default", async () => {
    h.writeDag(
      'evalfail',
      'params:\n  - name: DAY\n    eval: "`exit 3`"\nsteps:\n  - name: show\n    run: touch "$DAGU_HOME/ran"\n',
    );
    const r = await dagu(['start', 'evalfail'], h.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/params: parameter \\?"DAY\\?" eval failed/);
    const s = await status(runIdOf(r.stdout));
    expect(s).toMatchObject({ status: 'failed' });
    expect(s.steps[0].status).toBe('not_started');
    expect(existsSync(path.join(h.home, 'ran'))).toBe(false);
  });
});

describe("a closed pipe is the reader's choice", () => {
  // The reader's end is closed before the command writes (node takes tens of milliseconds to start), so
  // the write meets EPIPE: the command ends with the code it had, without a stack trace.
  async function withClosedPipe(args: string[], closed: 'stdout' | 'stderr') {
    const child = spawn(process.execPath, [DAGU, ...args], { env: h.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const other = closed === 'stdout' ? child.stderr : child.stdout;
    child[closed].destroy();
    let text = '';
    other.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, text };
  }

  it('on stdout: `dagu version` exits 0 and prints nothing on stderr', async () => {
    const r = await withClosedPipe(['version'], 'stdout');
    expect(r.text).toBe('');
    expect(r.code).toBe(0);
  });

  it('on stderr: a missing DAG still exits 2, and stdout stays empty', async () => {
    const r = await withClosedPipe(['start', 'no-such-dag'], 'stderr');
    expect(r.text).toBe('');
    expect(r.code).toBe(2);
  });
});
