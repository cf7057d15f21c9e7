import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { supervisedChildren } from './children';
import { spawnShell } from './spawnShell';

describe('supervisedChildren', () => {
  it('counts a step shell from its spawn until it is gone', async () => {
    const devNull = openSync('/dev/null', 'w');
    try {
      const before = supervisedChildren();
      const shell = spawnShell({
        file: 'sh',
        args: ['-c', 'sleep 0.2'],
        cwd: process.cwd(),
        env: process.env,
        stdoutFd: devNull,
        stderrFd: devNull,
      });
      expect(supervisedChildren()).toBe(before + 1);
      const exit = await shell.exited;
      expect(exit).toMatchObject({ kind: 'exited', exitCode: 0 });
      await Promise.resolve(); // the count drops in the turn the exit settles
      expect(supervisedChildren()).toBe(before);
    } finally {
      closeSync(devNull);
    }
  });

  it('counts a shell that could not start only until its failure is known', async () => {
    const devNull = openSync('/dev/null', 'w');
    try {
      const before = supervisedChildren();
      const shell = spawnShell({
        file: 'no-such-shell-for-dagu-tests',
        args: [],
        cwd: process.cwd(),
        env: process.env,
        stdoutFd: devNull,
        stderrFd: devNull,
      });
      expect((await shell.exited).kind).toBe('spawn_failed');
      await Promise.resolve();
      expect(supervisedChildren()).toBe(before);
    } finally {
      closeSync(devNull);
    }
  });
});
