import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { minimalEnv, tempDir, waitFor } from '../runner/testSupport';
import { processLauncher, type LaunchRequest } from './launcher';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

function request(over: Partial<LaunchRequest> = {}): LaunchRequest {
  return {
    dagName: 'etl',
    dagFile: '/dags/etl.yaml',
    runId: 'sched-0123456789ab-20261130T0115Z',
    triggerType: 'scheduler',
    scheduleTime: '2026-11-30T01:15:00Z',
    processLog: join(dir, 'logs', 'etl', 'run', '1', 'process.log'),
    ...over,
  };
}

/** A stand-in for `dagu` that prints the arguments it was started with. */
function fakeDagu(): string {
  const script = join(dir, 'fake-dagu.mjs');
  writeFileSync(script, 'console.log(JSON.stringify(process.argv.slice(2)));\n');
  return script;
}

describe('processLauncher', () => {
  it('creates the process log and starts `dagu start` for the run with its output there', async () => {
    const launch = processLauncher({ executable: fakeDagu(), env: minimalEnv() });
    const req = request();
    const started = await launch(req);
    expect(started.fenced).toBeFalsy();
    expect(started.pid).toBeGreaterThan(0);
    await waitFor(() => existsSync(req.processLog) && readFileSync(req.processLog, 'utf8').includes('\n'));
    expect(JSON.parse(readFileSync(req.processLog, 'utf8'))).toEqual([
      'start',
      '--quiet',
      '--run-id',
      req.runId,
      '--trigger-type',
      'scheduler',
      '--schedule-time',
      '2026-11-30T01:15:00Z',
      '/dags/etl.yaml',
    ]);
  });

  it("passes the run's name as --name for a run queued under another name than its file's", async () => {
    const launch = processLauncher({ executable: fakeDagu(), env: minimalEnv() });
    const req = request({ dagName: 'nightly', renamed: true, scheduleTime: null, triggerType: 'manual' });
    await launch(req);
    await waitFor(() => existsSync(req.processLog) && readFileSync(req.processLog, 'utf8').includes('\n'));
    expect(JSON.parse(readFileSync(req.processLog, 'utf8'))).toEqual([
      'start',
      '--quiet',
      '--run-id',
      req.runId,
      '--trigger-type',
      'manual',
      '--name',
      'nightly',
      '/dags/etl.yaml',
    ]);
  });

  it('asks the fence again once the process log exists, and starts nothing when it has closed meanwhile', async () => {
    const launch = processLauncher({ executable: fakeDagu(), env: minimalEnv() });
    const req = request();
    const logExistedAtCheck: boolean[] = [];
    const started = await launch({
      ...req,
      stillAllowed: () => {
        logExistedAtCheck.push(existsSync(req.processLog));
        return false;
      },
    });
    expect(started).toEqual({ pid: undefined, fenced: true });
    expect(logExistedAtCheck).toEqual([true]);
  });

  it('rejects when the process log cannot be created', async () => {
    const launch = processLauncher({ executable: fakeDagu(), env: minimalEnv() });
    writeFileSync(join(dir, 'logs'), 'a file where the log directory should be');
    await expect(launch(request())).rejects.toThrow(/ENOTDIR|EEXIST/);
  });

  it('hands a run to the waiting pre-started process, and starts the next one', async () => {
    // A stand-in for `dagu __spare-run <log>`: prints the arguments it is assigned.
    const spare = join(dir, 'fake-spare.cjs');
    writeFileSync(
      spare,
      `let t = ''; process.stdin.on('data', (d) => (t += d));
       process.stdin.on('end', () => t.trim() ? console.log(JSON.stringify(JSON.parse(t).args)) : require('node:fs').rmSync(process.argv[3]));`,
    );
    const spares = join(dir, 'spares');
    const launch = processLauncher({
      executable: spare,
      env: minimalEnv(),
      spares: { logDir: spares, currentBuild: async () => 'b1', logger: silentLogger },
    });
    try {
      launch.prepare!();
      await waitFor(() => existsSync(spares) && readdirSync(spares).length === 1);
      const [waiting] = readdirSync(spares);
      const req = request();
      const started = await launch(req);
      expect(started.pid).toBeGreaterThan(0);
      await waitFor(() => existsSync(req.processLog) && readFileSync(req.processLog, 'utf8').includes('\n'));
      expect(JSON.parse(readFileSync(req.processLog, 'utf8'))).toContain(req.runId);
      await waitFor(() => readdirSync(spares).length === 1 && readdirSync(spares)[0] !== waiting);
    } finally {
      launch.close!();
    }
  });
});
