import { closeSync, openSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { supervisedChildren } from './children';
import { spawnShell } from './spawnShell';

describe('supervisedChildren', () => {
  let devNull: number;
  beforeEach(() => {
    devNull = openSync('/dev/null', 'w');
  });
  afterEach(() => closeSync(devNull));

  const spawn = (file: string, args: string[]) =>
    spawnShell({ file, args, cwd: process.cwd(), env: process.env, stdoutFd: devNull, stderrFd: devNull });

  it('counts a step shell from its spawn until it is gone', async () => {
    const before = supervisedChildren();
    const shell = spawn('sh', ['-c', 'sleep 0.2']);
    expect(supervisedChildren()).toBe(before + 1);
    expect(await shell.exited).toMatchObject({ kind: 'exited', exitCode: 0 });
    await Promise.resolve(); // the count drops in the turn the exit settles
    expect(supervisedChildren()).toBe(before);
  });

  it('counts a shell that could not start only until its failure is known', async () => {
    const before = supervisedChildren();
    const shell = spawn('no-such-shell-for-dagu-tests', []);
    expect((await shell.exited).kind).toBe('spawn_failed');
    await Promise.resolve();
    expect(supervisedChildren()).toBe(before);
  });
});
