import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock';
import type { StepSpec, StepStatus } from '../core/types';
import { groupAlive } from './processGroup';
import { freshStepStatus } from '../core/runStatus';
import { runStep, type StepRun, type StopReason } from './runStep';
import { minimalEnv, stepOf, tempDir, waitFor } from './testSupport';

const freshStatus = freshStepStatus;

/** True while `pid` runs (a zombie waiting for its reaper does not count). */
const running = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
};

describe('runStep', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = tempDir('dagu-runstep-')));
  afterEach(() => cleanup());

  const read = (name: string) => readFileSync(join(dir, name), 'utf8');

  /** Runs `step` with short timings; `changes` records the status after every report. */
  async function run(step: StepSpec, extra: Partial<StepRun> = {}) {
    const status = freshStatus(step.name);
    const changes: StepStatus[] = [];
    const state = await runStep({
      step,
      status,
      env: minimalEnv(),
      positional: [],
      cwd: dir,
      files: { stdout: join(dir, 'step.out'), stderr: join(dir, 'step.err') },
      killGraceMs: 300,
      clock: systemClock,
      stop: new AbortController().signal,
      onChange: () => changes.push(structuredClone(status)),
      ...extra,
    });
    return { state, status, changes };
  }

  describe('commands', () => {
    it('adds -e to the default shell, so a failing line ends the step', async () => {
      const { state, status } = await run(stepOf('s', 'false\necho after'));
      expect(state).toBe('failed');
      expect(status.exit_code).toBe(1);
      expect(read('step.out')).toBe('');
    });

    it('says when the file system of its log is full, where its stderr would have said why it failed', async () => {
      const asked: string[] = [];
      const full = async (file: string) => {
        asked.push(file);
        return 0;
      };
      const failed = await run(stepOf('s', 'exit 1'), { logSpaceLeft: full });
      expect(failed.status.error).toBe('exit code 1 (no space left on the file system of its log)');
      expect(asked).toEqual([join(dir, 'step.err')]);

      // Space left, or a file system that cannot be asked: the exit code alone.
      const spaceLeft = await run(stepOf('s', 'exit 1'), { logSpaceLeft: async () => 4096 });
      expect(spaceLeft.status.error).toBe('exit code 1');
      const unknown = await run(stepOf('s', 'exit 1'), {
        logSpaceLeft: () => Promise.reject(new Error('EIO')),
      });
      expect(unknown.status.error).toBe('exit code 1');
      // The real check on this disk, which has room.
      expect((await run(stepOf('s', 'exit 1'))).status.error).toBe('exit code 1');
    });

    it('stops a command list at the first failing entry, with that entry as the result', async () => {
      const { state, status } = await run(stepOf('s', ['echo one', 'exit 3', 'echo three']));
      expect(state).toBe('failed');
      expect(status.exit_code).toBe(3);
      expect(status.error).toBe('exit code 3');
      expect(read('step.out')).toBe('one\n');
    });

    it('appends the tail of stderr to the error of a failing step', async () => {
      const { status } = await run(stepOf('s', 'echo "it broke" >&2; exit 2'));
      expect(status.error).toBe('exit code 2\nrecent stderr:\nit broke');
    });

    it('substitutes positional params into the text, leaving $VAR to the shell', async () => {
      const { state } = await run(stepOf('s', `echo "$1 and $NAME"`), {
        positional: ['first'],
        env: { ...minimalEnv(), NAME: 'from-env' },
      });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('first and from-env\n');
    });

    it('runs exec argv directly, with no shell to read metacharacters', async () => {
      const step = stepOf('s', null, {
        action: { kind: 'exec', command: 'printf', args: ['%s|%s', 'a;b', '${X}'] },
      });
      const { state } = await run(step, { scope: { vars: { X: 'x-value' } } });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('a;b|x-value');
    });

    it("lets exec argv fall back to the host environment, after the run's own, never shell text", async () => {
      const hostEnv = { HOST_ONLY: 'from-host', X: 'host-x' };
      const exec = stepOf('s', null, {
        action: { kind: 'exec', command: 'printf', args: ['%s|%s|%s', '$HOST_ONLY', '${X}', '${UNSET}'] },
      });
      const { state } = await run(exec, { scope: { vars: { X: 'run-x' } }, hostEnv });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('from-host|run-x|${UNSET}');
      // A shell step's text is left to the shell, whose environment is the step's, not the host's (the
      // second run appends to the same log).
      await run(stepOf('s', 'printf "%s" "${HOST_ONLY:-unset}"'), { hostEnv });
      expect(read('step.out')).toBe('from-host|run-x|${UNSET}unset');
    });

    it('creates a missing working directory and runs there', async () => {
      const { state } = await run(stepOf('s', 'pwd'), { cwd: join(dir, 'a', 'b') });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe(`${join(dir, 'a', 'b')}\n`);
    });

    it('writes one merged log when stdout and stderr share a path', async () => {
      const log = join(dir, 'step.log');
      await run(stepOf('s', 'echo out; echo err >&2'), { files: { stdout: log, stderr: log } });
      expect(read('step.log')).toBe('out\nerr\n');
    });
  });

  describe('scripts', () => {
    const scriptsLeft = () => readdirSync(tmpdir()).filter((f) => f.startsWith('dagu_script-')).length;

    it('runs a script from a temp file it deletes afterwards', async () => {
      const before = scriptsLeft();
      const { state } = await run(stepOf('s', null, { script: 'echo "script $0" | grep -c dagu_script-' }));
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('1\n');
      expect(scriptsLeft()).toBe(before);
    });

    it('honours a shebang when the step set no shell', async () => {
      const script = '#!/usr/bin/env python3\nimport sys\nprint("py", sys.version_info[0])\n';
      const { state } = await run(stepOf('s', [script]));
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('py 3\n');
    });

    it('substitutes $VAR from the run scope into a python3 step shell script', async () => {
      const step = stepOf('s', null, {
        shell: 'python3',
        shell_explicit: true,
        script: 'print("hello $NAME")',
      });
      const { state } = await run(step, { scope: { vars: { NAME: 'world' } } });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('hello world\n');
    });

    it('runs command: python3 + script as the interpreter on the file', async () => {
      const step = stepOf('s', 'python3', {
        script: 'import sys\nprint(len(sys.argv))',
        script_interpreter: true,
      });
      const { state } = await run(step);
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('1\n');
    });
  });

  describe('output', () => {
    it('captures trimmed stdout only, and keeps it when the step fails', async () => {
      const { state, status } = await run(
        stepOf('s', 'echo "  value  "; echo noise >&2; exit 4', { output: 'OUT' }),
      );
      expect(state).toBe('failed');
      expect(status.output).toEqual({ OUT: 'value' });
    });

    it("trims the captured output as Go's TrimSpace does: NEL goes, a byte order mark stays", async () => {
      const { state, status } = await run(
        stepOf('s', "printf '\\357\\273\\277v\\302\\205\\n'", { output: 'OUT' }),
      );
      expect(state).toBe('succeeded');
      expect(status.output).toEqual({ OUT: '\ufeffv' });
    });

    it('fails a step whose stdout passes max_output_size', async () => {
      const { state, status } = await run(stepOf('s', 'printf 0123456789', { output: 'OUT' }), {
        dag: { max_output_size: 9 },
      });
      expect(state).toBe('failed');
      expect(status.error).toBe('failed to capture output: output exceeded maximum size limit of 9 bytes');
      expect(read('step.out')).toBe('0123456789');
    });

    it('appends to stdout and stderr files and still writes the logs', async () => {
      writeFileSync(join(dir, 'copy.txt'), 'before\n');
      const step = stepOf('s', 'echo out; echo err >&2', { stdout_file: 'copy.txt', stderr_file: '${ERRF}' });
      const { state } = await run(step, { scope: { vars: { ERRF: 'err.txt' } } });
      expect(state).toBe('succeeded');
      expect(read('copy.txt')).toBe('before\nout\n');
      expect(read('err.txt')).toBe('err\n');
      expect(read('step.out')).toBe('out\n');
      expect(read('step.err')).toBe('err\n');
      // A file the step creates is its owner's only; one that was there keeps its mode.
      expect(statSync(join(dir, 'err.txt')).mode & 0o077).toBe(0);
      expect(statSync(join(dir, 'err.txt')).mode & 0o600).toBe(0o600);
      chmodSync(join(dir, 'copy.txt'), 0o644);
      await run(step, { scope: { vars: { ERRF: 'err.txt' } } });
      expect(statSync(join(dir, 'copy.txt')).mode & 0o777).toBe(0o644);
      expect(read('copy.txt')).toBe('before\nout\nout\n');
    });
  });

  describe('timeouts and stops', () => {
    it('kills the whole process group at the step timeout, fails with 124 and does not retry', async () => {
      const pidFile = join(dir, 'pids');
      const step = stepOf(
        's',
        `(trap '' TERM; sleep 30) & echo "$$ $!" > ${pidFile}; trap '' TERM; sleep 30`,
        {
          timeout_sec: 0.5,
          retry_policy: { limit: 2, interval_sec: 0, backoff: 1, max_interval_sec: null },
        },
      );
      const started = Date.now();
      const { state, status } = await run(step);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(state).toBe('failed');
      expect(status.exit_code).toBe(124);
      expect(status.error).toMatch(/^step timed out after \d+ms \(timeout 500ms\)$/);
      expect(status.retry_count).toBe(0);
      // One try: its times are the step's own, and no list is kept.
      expect(status.executions).toBeUndefined();
      const [shell, child] = read('pids').trim().split(' ').map(Number);
      await waitFor(() => !running(shell!) && !running(child!) && !groupAlive(shell!), 2000);
    });

    it('kills a running step at once when the run times out, and ends it aborted', async () => {
      const controller = new AbortController();
      const running = run(stepOf('s', `trap '' TERM; echo started; sleep 30`), { stop: controller.signal });
      await waitFor(() => existsSync(join(dir, 'step.out')) && read('step.out').includes('started'));
      const started = Date.now();
      controller.abort({ kind: 'timed_out', message: 'run timed out after 1s' } satisfies StopReason);
      const { state, status } = await running;
      expect(Date.now() - started).toBeLessThan(1500);
      expect(state).toBe('aborted');
      expect(status.exit_code).toBe(124);
      expect(status.error).toBe('run timed out after 1s');
    });

    it("sends the step's signal_on_stop on a stop request and ends the step aborted", async () => {
      const controller = new AbortController();
      const step = stepOf(
        's',
        `trap 'echo got INT; exit 0' INT; echo started; while :; do sleep 0.05; done`,
        {
          signal_on_stop: 'SIGINT',
        },
      );
      const running = run(step, { stop: controller.signal });
      await waitFor(() => existsSync(join(dir, 'step.out')) && read('step.out').includes('started'));
      controller.abort({
        kind: 'aborted',
        signal: 'SIGTERM',
        message: 'run aborted (SIGTERM)',
      } satisfies StopReason);
      const { state, status } = await running;
      expect(state).toBe('aborted');
      expect(status.error).toBe('run aborted (SIGTERM)');
      expect(read('step.out')).toContain('got INT');
    });

    it('SIGKILLs a stopped step that ignores the signal after max_clean_up_time_sec', async () => {
      const controller = new AbortController();
      const running = run(stepOf('s', `trap '' TERM; echo started; sleep 30`), {
        stop: controller.signal,
        dag: { max_clean_up_time_sec: 0.3 },
        killGraceMs: 60_000,
      });
      await waitFor(() => existsSync(join(dir, 'step.out')) && read('step.out').includes('started'));
      const started = Date.now();
      controller.abort({ kind: 'aborted', signal: 'SIGTERM', message: 'stopped' } satisfies StopReason);
      const { state } = await running;
      expect(state).toBe('aborted');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(3000);
    });
  });

  describe('retries', () => {
    it('retries only on the listed exit codes', async () => {
      const counter = join(dir, 'n');
      const cmd = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ] && exit 0; exit $((n+1))`;
      const policy = { limit: 5, interval_sec: 0, backoff: 1, max_interval_sec: null };
      // Tries exit 2, then 3: with only 2 listed, the second failure is final.
      const { state, status, changes } = await run(
        stepOf('s', cmd, { retry_policy: policy, retry_exit_codes: [2] }),
      );
      expect(state).toBe('failed');
      expect(status.exit_code).toBe(3);
      expect(status.retry_count).toBe(1);
      expect(changes.map((c) => c.status)).toContain('retrying');
    });

    it('retries any non-zero exit code without a list, and succeeds when a try does', async () => {
      const counter = join(dir, 'n');
      const cmd = `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]`;
      const policy = { limit: 5, interval_sec: 0, backoff: 1, max_interval_sec: null };
      const { state, status } = await run(stepOf('s', cmd, { retry_policy: policy }));
      expect(state).toBe('succeeded');
      expect(status.retry_count).toBe(2);
      // Each try with its own times and exit code, for the run's timeline.
      const tries = status.executions!;
      expect(tries.map((e) => [e.kind, e.exit_code])).toEqual([
        ['first', 1],
        ['retry', 1],
        ['retry', 0],
      ]);
      expect(tries[0].started_at >= status.started_at!).toBe(true);
      expect(tries[2].finished_at! <= status.finished_at!).toBe(true);
      for (let i = 1; i < tries.length; i++)
        expect(tries[i].started_at >= tries[i - 1].finished_at!).toBe(true);
    });
  });

  describe('repeats', () => {
    const counting = (file: string) =>
      `n=$(cat ${file} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${file}; echo $n`;
    const repeat = (extra: Partial<NonNullable<StepSpec['repeat_policy']>>) => ({
      mode: null,
      condition: null,
      expected: null,
      exit_code: [],
      interval_sec: 0,
      limit: null,
      backoff: 1,
      max_interval_sec: null,
      ...extra,
    });

    it('repeats until the condition on the fresh output is met', async () => {
      const step = stepOf('s', counting(join(dir, 'n')), {
        output: 'N',
        repeat_policy: repeat({ mode: 'until', condition: '${N}', expected: '3' }),
      });
      const { state, status } = await run(step);
      expect(state).toBe('succeeded');
      expect(status.repeat_count).toBe(2);
      expect(status.output).toEqual({ N: '3' });
      expect(status.executions!.map((e) => [e.kind, e.exit_code])).toEqual([
        ['first', 0],
        ['repeat', 0],
        ['repeat', 0],
      ]);
    });

    it('repeats while the exit code is listed, and the limit counts all executions', async () => {
      const step = stepOf('s', `${counting(join(dir, 'n'))}; exit 1`, {
        repeat_policy: repeat({ mode: 'while', exit_code: [1], limit: 3 }),
      });
      const { state, status } = await run(step);
      expect(state).toBe('failed');
      expect(read('n')).toBe('3\n');
      expect(status.repeat_count).toBe(2);
    });

    it('runs a handler once, whatever its repeat policy', async () => {
      const step = stepOf('s', counting(join(dir, 'n')), {
        repeat_policy: repeat({ mode: 'while', limit: 5 }),
      });
      await run(step, { once: true });
      expect(read('n')).toBe('1\n');
    });

    it('ends repeating after the current execution on a stop request', async () => {
      const controller = new AbortController();
      const step = stepOf('s', `${counting(join(dir, 'n'))}; sleep 0.3`, {
        repeat_policy: repeat({ mode: 'while', limit: 100 }),
      });
      const running = run(step, { stop: controller.signal });
      await waitFor(() => existsSync(join(dir, 'n')));
      controller.abort({ kind: 'aborted', signal: 'SIGTERM', message: 'stopped' } satisfies StopReason);
      const { state } = await running;
      expect(state).toBe('succeeded');
      expect(read('n')).toBe('1\n');
    });
  });

  describe('actions', () => {
    it('runs a log action with its value-resolved with: map, into the log and the output', async () => {
      const step = stepOf('s', null, {
        action: { kind: 'log', with: { message: 'hi ${WHO}' } },
        output: 'O',
      });
      const { state, status } = await run(step, { scope: { vars: { WHO: 'there' } } });
      expect(state).toBe('succeeded');
      expect(read('step.out')).toBe('hi there\n');
      expect(status.output).toEqual({ O: 'hi there' });
    });

    it('fails an action step at its timeout with 124', async () => {
      const step = stepOf('s', null, { action: { kind: 'noop' }, timeout_sec: 0.2 });
      const { state, status } = await run(step, {
        runAction: (_action, ctx) =>
          new Promise((resolve) => {
            ctx.signal.addEventListener('abort', () => resolve({ exitCode: 1, error: 'aborted' }));
          }),
      });
      expect(state).toBe('failed');
      expect(status.exit_code).toBe(124);
      expect(status.error).toMatch(/^step timed out after/);
    });

    it('runs a noop action and captures its (empty) output', async () => {
      const { state, status } = await run(stepOf('s', null, { action: { kind: 'noop' }, output: 'O' }));
      expect(state).toBe('succeeded');
      expect(status.output).toEqual({ O: '' });
    });
  });
});
