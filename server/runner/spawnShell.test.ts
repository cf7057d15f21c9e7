import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutputCapture } from './outputCapture';
import { spawnShell } from './spawnShell';
import { minimalEnv, tempDir, waitFor } from './testSupport';

describe('spawnShell', () => {
  let dir: string;
  let cleanup: () => void;
  const fds: number[] = [];
  const open = (name: string) => {
    const fd = openSync(join(dir, name), 'a');
    fds.push(fd);
    return fd;
  };
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  beforeEach(() => ({ dir, cleanup } = tempDir('dagu-spawnshell-')));
  afterEach(() => {
    for (const fd of fds.splice(0)) closeSync(fd);
    cleanup();
  });

  it('resends the stop signal while the group lives, then SIGKILLs it after the grace period', async () => {
    const out = open('out');
    const shell = spawnShell({
      file: 'sh',
      args: ['-c', `trap 'echo term' TERM; echo started; while :; do sleep 0.02; done`],
      cwd: dir,
      env: minimalEnv(),
      stdoutFd: out,
      stderrFd: out,
    });
    await waitFor(() => existsSync(join(dir, 'out')) && read('out').includes('started'));
    shell.stop({ signal: 'SIGTERM', graceMs: 700, resendEveryMs: 150 });
    const end = await shell.exited;
    expect(end).toEqual({ kind: 'exited', exitCode: null, signal: 'SIGKILL' });
    expect(
      read('out')
        .split('\n')
        .filter((l) => l === 'term').length,
    ).toBeGreaterThanOrEqual(3);
  });

  it('sends the first signal, then resends the run signal instead', async () => {
    const out = open('out');
    const shell = spawnShell({
      file: 'sh',
      args: ['-c', `trap 'echo int' INT; trap 'echo term' TERM; echo started; while :; do sleep 0.02; done`],
      cwd: dir,
      env: minimalEnv(),
      stdoutFd: out,
      stderrFd: out,
    });
    await waitFor(() => existsSync(join(dir, 'out')) && read('out').includes('started'));
    shell.stop({ signal: 'SIGINT', resendSignal: 'SIGTERM', graceMs: 400, resendEveryMs: 150 });
    await shell.exited;
    const lines = read('out').split('\n');
    expect(lines[1]).toBe('int');
    expect(lines).toContain('term');
  });

  it('copies stdout to extra descriptors and a capture, stderr to its own copy', async () => {
    const capture = new OutputCapture(1024);
    const shell = spawnShell({
      file: 'sh',
      args: ['-c', 'echo out; echo err >&2; echo more'],
      cwd: dir,
      env: minimalEnv(),
      stdoutFd: open('log.out'),
      stderrFd: open('log.err'),
      stdoutTee: [open('copy.out')],
      stderrTee: [open('copy.err')],
      stdoutCapture: capture,
    });
    expect(await shell.exited).toEqual({ kind: 'exited', exitCode: 0, signal: null });
    expect(read('log.out')).toBe('out\nmore\n');
    expect(read('copy.out')).toBe('out\nmore\n');
    expect(read('log.err')).toBe('err\n');
    expect(read('copy.err')).toBe('err\n');
    expect(capture.value()).toBe('out\nmore');
  });

  it('kills the whole group at once', async () => {
    const out = open('out');
    const shell = spawnShell({
      file: 'sh',
      args: ['-c', `trap '' TERM; echo started; sleep 30`],
      cwd: dir,
      env: minimalEnv(),
      stdoutFd: out,
      stderrFd: out,
    });
    await waitFor(() => existsSync(join(dir, 'out')) && read('out').includes('started'));
    const started = Date.now();
    shell.kill();
    expect(await shell.exited).toEqual({ kind: 'exited', exitCode: null, signal: 'SIGKILL' });
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
