import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnDetachedRun } from './spawnDetached';
import { minimalEnv, tempDir, waitFor } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('spawnDetachedRun', () => {
  it('starts the script in its own session and process group and appends its output to the log file', async () => {
    const script = join(dir, 'probe.mjs');
    writeFileSync(
      script,
      `import { readFileSync } from 'node:fs';
       const f = readFileSync('/proc/self/stat', 'utf8');
       const [, , pgrp, session] = f.slice(f.lastIndexOf(')') + 2).split(' ');
       console.log(JSON.stringify({ pid: process.pid, pgrp: Number(pgrp), session: Number(session), args: process.argv.slice(2), env: process.env.PROBE }));`,
    );
    const logFile = join(dir, 'run.log');
    writeFileSync(logFile, 'earlier line\n');

    const { pid } = spawnDetachedRun({
      executable: script,
      args: ['start', 'x'],
      env: { ...minimalEnv(), PROBE: 'yes' },
      logFile,
    });
    await waitFor(() => readFileSync(logFile, 'utf8').split('\n').length > 2);

    const [earlier, probe] = readFileSync(logFile, 'utf8').split('\n');
    expect(earlier).toBe('earlier line');
    expect(JSON.parse(probe)).toEqual({ pid, pgrp: pid, session: pid, args: ['start', 'x'], env: 'yes' });
  });
});
