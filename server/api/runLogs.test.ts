import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger } from '../core/ports';
import type { RunStatus } from '../core/types';
import { startRun } from '../runner/startRun';
import { loadDagByName } from '../store/dagCatalog';
import { BadRequestError, NotFoundError } from './errors';
import { enqueueDag } from './queue';
import { readRunLog } from './runLogs';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let run: RunStatus;

beforeEach(async () => {
  svc = testServices();
  svc.writeDag(
    'hello',
    'steps:\n  - name: greet\n    command: echo hi\n  - name: later\n    command: "true"\n',
  );
  run = await enqueueDag(svc, 'hello', []);
});
afterEach(() => svc.cleanup());

async function withStepLogs(stdout: string | null, stderr: string | null = null): Promise<void> {
  const steps = run.steps.map((s) =>
    s.name === 'greet' ? { ...s, status: 'succeeded' as const, stdout, stderr } : s,
  );
  run = { ...run, status: 'running', steps };
  await svc.runs.writeStatus(run);
}

describe('readRunLog', () => {
  it("returns a step's whole stdout and stderr", async () => {
    await withStepLogs(
      svc.writeLog(`hello/${run.run_id}/1/greet.out`, 'hi\n'),
      svc.writeLog(`hello/${run.run_id}/1/greet.err`, 'oops\n'),
    );
    expect(await readRunLog(svc, run.run_id, 'greet', 'stdout')).toEqual({
      run_id: run.run_id,
      step: 'greet',
      stream: 'stdout',
      exists: true,
      size: 3,
      truncated: false,
      content: 'hi\n',
    });
    expect((await readRunLog(svc, run.run_id, 'greet', 'stderr')).content).toBe('oops\n');
  });

  it('finds the logs of a step whose name has a "/" (its files have a file-safe name)', async () => {
    const stdout = svc.writeLog(`hello/${run.run_id}/1/build_test.out`, 'built\n');
    const steps = run.steps.map((s) =>
      s.name === 'later' ? { ...s, name: 'build/test', status: 'succeeded' as const, stdout } : s,
    );
    run = { ...run, status: 'running', steps };
    await svc.runs.writeStatus(run);
    expect(await readRunLog(svc, run.run_id, 'build/test', 'stdout')).toMatchObject({
      step: 'build/test',
      content: 'built\n',
    });
  });

  it('returns only the last bytes when asked for a tail', async () => {
    await withStepLogs(svc.writeLog(`hello/${run.run_id}/1/greet.out`, 'line 1\nline 2\n'));
    const log = await readRunLog(svc, run.run_id, 'greet', 'stdout', { tailBytes: 7 });
    expect(log).toMatchObject({ size: 14, truncated: true, content: 'line 2\n' });
  });

  it('answers an empty log for a step that has not started', async () => {
    expect(await readRunLog(svc, run.run_id, 'later', 'stdout')).toMatchObject({
      exists: false,
      content: '',
    });
  });

  it('fails with NotFoundError for a step the run does not have', async () => {
    await expect(readRunLog(svc, run.run_id, 'nope', 'stdout')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses step names with control characters and unknown streams', async () => {
    await expect(readRunLog(svc, run.run_id, 'gr\0eet', 'stdout')).rejects.toBeInstanceOf(BadRequestError);
    await expect(readRunLog(svc, run.run_id, 'gr\neet', 'stdout')).rejects.toBeInstanceOf(BadRequestError);
    // A "/" only names a step: one the run does not have is not found, never a path.
    await expect(readRunLog(svc, run.run_id, '../greet', 'stdout')).rejects.toBeInstanceOf(NotFoundError);
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdin' as 'stdout')).rejects.toThrow(
      /^stream: "stdin"/,
    );
  });

  it('never reads outside the logs directory, even when a status record points there', async () => {
    const outside = path.join(path.dirname(svc.config.paths.log_dir), 'secret.txt');
    writeFileSync(outside, 'secret');
    await withStepLogs('../secret.txt', outside);
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
    await expect(readRunLog(svc, run.run_id, 'greet', 'stderr')).rejects.toThrow(
      /outside the logs directory/,
    );
  });

  it("refuses a record naming another run's log, or a file that is not a log", async () => {
    const other = svc.writeLog('hello/other-run/1/greet.out', 'not yours\n');
    const script = svc.writeLog(`hello/${run.run_id}/1/greet.script`, 'echo hi');
    for (const recorded of [other, script, `hello/${run.run_id}/greet.out`, `x/${run.run_id}/1/greet.out`]) {
      await withStepLogs(recorded);
      await expect(readRunLog(svc, run.run_id, 'greet', 'stdout'), recorded).rejects.toThrow(
        /outside the logs directory/,
      );
    }
  });

  it('does not follow a symlink inside the logs directory to a file outside it', async () => {
    const outside = path.join(path.dirname(svc.config.paths.log_dir), 'secret.txt');
    writeFileSync(outside, 'secret');
    const runDir = path.join(svc.config.paths.log_dir, 'hello', run.run_id, '1');
    mkdirSync(runDir, { recursive: true });
    symlinkSync(outside, path.join(runDir, 'link.out'));
    await withStepLogs(`hello/${run.run_id}/1/link.out`);
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
  });
});

describe('readRunLog: a DAG with its own log_dir', () => {
  const customRoot = () => path.join(path.dirname(svc.config.paths.dags_dir), 'custom-logs');

  /** Runs `hello` for real with `log_dir` outside the logs root; its record then holds absolute log paths. */
  async function runWithLogDir(): Promise<RunStatus> {
    svc.writeDag(
      'hello',
      'log_dir: ../custom-logs\nsteps:\n  - name: greet\n    command: echo in-custom-log-dir\n',
    );
    const loaded = await loadDagByName(svc.config.paths.dags_dir, 'hello');
    if (!loaded.ok) throw new Error('the test DAG does not load');
    return startRun({
      dag: loaded.dag,
      runStore: svc.runs,
      config: svc.config,
      clock: systemClock,
      timers: systemTimers,
      logger: silentLogger,
      signal: new AbortController().signal,
      env: { NODE_ENV: 'test', PATH: process.env.PATH },
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      newRunId: () => 'custom-run',
    });
  }

  it("shows the logs a real run wrote under the DAG's log_dir", async () => {
    const final = await runWithLogDir();
    expect(final.status).toBe('succeeded');
    const stdout = final.steps[0].stdout!;
    expect(path.isAbsolute(stdout)).toBe(true);
    expect(stdout.startsWith(path.join(customRoot(), 'hello', 'custom-run') + path.sep)).toBe(true);
    const log = await readRunLog(svc, 'custom-run', 'greet', 'stdout');
    expect(log).toMatchObject({ exists: true, content: 'in-custom-log-dir\n' });
  });

  it('refuses an absolute path in a record that is not inside that run’s directory of the log_dir', async () => {
    run = await runWithLogDir();
    const runDir = path.join(customRoot(), 'hello', 'custom-run');
    // Another run's directory under the same log_dir, a `..` escape, and a file of the host.
    const elsewhere = path.join(customRoot(), 'hello', 'other-run', '1', 'greet.out');
    mkdirSync(path.dirname(elsewhere), { recursive: true });
    writeFileSync(elsewhere, 'not yours');
    for (const hostile of [
      elsewhere,
      path.join(runDir, '..', 'other-run', '1', 'greet.out'),
      '/etc/passwd',
    ]) {
      await withStepLogs(hostile);
      await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
        /outside the logs directory/,
      );
    }
  });

  it('does not follow a symlink in the run directory to a file outside it', async () => {
    run = await runWithLogDir();
    const link = path.join(customRoot(), 'hello', 'custom-run', '1', 'link.out');
    symlinkSync('/etc/passwd', link);
    await withStepLogs(link);
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
  });

  it('refuses every absolute path when the DAG has no log_dir (or is gone)', async () => {
    await withStepLogs('/etc/passwd');
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
    const ran = await runWithLogDir();
    svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hi\n');
    await expect(readRunLog(svc, ran.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
  });
});
