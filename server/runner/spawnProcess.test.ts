import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawnProcess, type ProcessSpec } from './spawnProcess';

describe('spawnProcess', () => {
  let dir: string;
  let out: number;
  let err: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'dagu-spawn-'));
    out = openSync(join(dir, 'out'), 'a');
    err = openSync(join(dir, 'err'), 'a');
  });
  afterEach(() => {
    closeSync(out);
    closeSync(err);
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (script: string, spec: Partial<ProcessSpec> = {}) =>
    spawnProcess({
      file: 'sh',
      args: ['-c', script, 'argv0', 'first arg'],
      env: { PATH: process.env.PATH },
      detached: true,
      stdoutFd: out,
      stderrFd: err,
      ...spec,
    });
  const text = (name: string) => readFileSync(join(dir, name), 'utf8');

  it('runs the program with its arguments, directory and environment, output to the descriptors', async () => {
    const child = start('echo "$1|$(pwd)|$ONE|${GONE-unset}"; echo oops >&2', {
      cwd: dir,
      env: { PATH: process.env.PATH, ONE: 'a b;c', GONE: undefined },
    });
    expect(child.pid).toBeGreaterThan(0);
    expect(await child.exited).toEqual({ kind: 'exited', exitCode: 0, signal: null });
    expect(text('out')).toBe(`first arg|${dir}|a b;c|unset\n`);
    expect(text('err')).toBe('oops\n');
  });

  it('gives the child no stdin', async () => {
    const child = start('cat; echo "read $?"');
    await child.exited;
    expect(text('out')).toBe('read 0\n');
  });

  it('reports the exit code', async () => {
    expect(await start('exit 7').exited).toEqual({ kind: 'exited', exitCode: 7, signal: null });
  });

  it('reports the signal that killed the child', async () => {
    const child = start('kill -TERM $$; sleep 5');
    expect(await child.exited).toEqual({ kind: 'exited', exitCode: null, signal: 'SIGTERM' });
  });

  it('makes a detached child the leader of its own process group', async () => {
    const child = start('sleep 5');
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    expect(pgrp).toBe(child.pid);
    process.kill(-child.pid!, 'SIGKILL');
    expect(await child.exited).toMatchObject({ signal: 'SIGKILL' });
  });

  it('keeps an attached child in this process group', async () => {
    const child = start('ps -o pgid= -p $$', { detached: false });
    await child.exited;
    expect(Number(text('out').trim())).toBe(
      Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2]),
    );
  });

  it('reports a program that cannot be started, as child_process words it', async () => {
    const child = start('', { file: 'no-such-program-for-dagu-tests', args: [] });
    expect(child.pid).toBeNull();
    expect(await child.exited).toEqual({
      kind: 'spawn_failed',
      error: 'spawn no-such-program-for-dagu-tests ENOENT',
    });
  });

  it("needs none of Node's internal bindings, which a future Node may take away", async () => {
    const binding = vi.spyOn(process as unknown as { binding: (name: string) => unknown }, 'binding');
    try {
      expect(await start('exit 0').exited).toEqual({ kind: 'exited', exitCode: 0, signal: null });
      expect(binding).not.toHaveBeenCalled();
    } finally {
      binding.mockRestore();
    }
  });

  it('refuses an argument or variable holding a NUL character', () => {
    expect(() => start('echo', { args: ['-c', 'echo a\0b'] })).toThrow(/argument 2 contains a NUL character/);
    expect(() => start('true', { env: { X: 'a\0b' } })).toThrow(/environment variable "X" contains a NUL/);
  });
});
