import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { DAY, HOUR } from '../core/units';
import { tempDir } from '../runner/testSupport';
import { attemptDirs, pruneWorkDirs, workerDirName } from './workDirs';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagu-workdirs-')));
afterEach(() => cleanup());

/** Creates a run's attempt dir with one log file, everything last touched at `mtimeMs`. */
function runAt(workerId: string, runId: string, mtimeMs: number): string {
  const dirs = attemptDirs(dir, workerId, runId, 1);
  mkdirSync(dirs.logDir, { recursive: true });
  const log = join(dirs.logDir, 'a.out');
  writeFileSync(log, 'x');
  const t = mtimeMs / 1000;
  for (const p of [log, dirs.logDir, dirs.dir, join(dirs.dir, '..')]) utimesSync(p, t, t);
  return join(dirs.dir, '..');
}

describe('workDirs', () => {
  it('lays an attempt out under the worker, run and attempt, with logs beside the working files', () => {
    expect(attemptDirs('/w', 'host-1', 'run-1', 2)).toEqual({
      dir: '/w/host-1/runs/run-1/2',
      logDir: '/w/host-1/runs/run-1/2/logs',
      logDirRelative: 'runs/run-1/2/logs',
    });
    expect(workerDirName('a/b:c')).toBe('a_b_c');
    expect(workerDirName('..')).toBe('_');
  });

  it('prunes run directories untouched for a day, of any worker, and keeps recent ones', async () => {
    const now = Date.now();
    const old = runAt('gone-1', 'old-run', now - DAY - HOUR);
    const recent = runAt('live-2', 'recent-run', now - HOUR);
    const freshLog = runAt('live-2', 'old-dir-fresh-log', now - 2 * DAY);
    utimesSync(join(freshLog, '1', 'logs', 'a.out'), now / 1000, now / 1000);

    expect(await pruneWorkDirs(dir, now, DAY, silentLogger)).toBe(1);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(join(dir, 'gone-1'))).toBe(false);
    expect(existsSync(recent)).toBe(true);
    expect(existsSync(freshLog)).toBe(true);
  });
});
