import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus } from '../core/types';
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
      svc.writeLog('hello/r/1/greet.out', 'hi\n'),
      svc.writeLog('hello/r/1/greet.err', 'oops\n'),
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

  it('returns only the last bytes when asked for a tail', async () => {
    await withStepLogs(svc.writeLog('hello/r/1/greet.out', 'line 1\nline 2\n'));
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

  it('refuses step names with path separators and unknown streams', async () => {
    await expect(readRunLog(svc, run.run_id, '../greet', 'stdout')).rejects.toBeInstanceOf(BadRequestError);
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

  it('does not follow a symlink inside the logs directory to a file outside it', async () => {
    const outside = path.join(path.dirname(svc.config.paths.log_dir), 'secret.txt');
    writeFileSync(outside, 'secret');
    mkdirSync(path.join(svc.config.paths.log_dir, 'hello'), { recursive: true });
    symlinkSync(outside, path.join(svc.config.paths.log_dir, 'hello', 'link.out'));
    await withStepLogs('hello/link.out');
    await expect(readRunLog(svc, run.run_id, 'greet', 'stdout')).rejects.toThrow(
      /outside the logs directory/,
    );
  });
});
