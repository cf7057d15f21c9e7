import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { minimalEnv, tempDir, waitFor } from '../runner/testSupport';
import type { HostAssignment } from '../runner/runHostCommand';
import { processLauncher, type LaunchRequest, type Launcher } from './launcher';

let dir: string;
let cleanup: () => void;
let launchers: Launcher[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => {
  for (const l of launchers) l.close?.();
  launchers = [];
  cleanup();
});

function launcher(opts: Omit<Parameters<typeof processLauncher>[0], 'logger'>): Launcher {
  const l = processLauncher({ ...opts, logger: silentLogger });
  launchers.push(l);
  return l;
}

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
    const launch = launcher({ executable: fakeDagu(), env: minimalEnv() });
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
    const launch = launcher({ executable: fakeDagu(), env: minimalEnv() });
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
    const launch = launcher({ executable: fakeDagu(), env: minimalEnv() });
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
    const launch = launcher({ executable: fakeDagu(), env: minimalEnv() });
    writeFileSync(join(dir, 'logs'), 'a file where the log directory should be');
    await expect(launch(request())).rejects.toThrow(/ENOTDIR|EEXIST/);
  });

  it('hands a run to the waiting pre-started process, and starts the next one', async () => {
    // A stand-in for `dagu __spare-run <log> <socket> <token>`: connects back, prints the arguments it is
    // assigned.
    const spare = join(dir, 'fake-spare.cjs');
    writeFileSync(
      spare,
      `const [log, sock, token] = process.argv.slice(3); let t = '';
       const s = require('node:net').connect(sock, () => s.write(token + '\\n'));
       s.setEncoding('utf8'); s.on('data', (d) => (t += d)); s.on('error', () => {});
       s.on('close', () => t.trim() ? console.log(JSON.stringify(JSON.parse(t).args)) : require('node:fs').rmSync(log));`,
    );
    const spares = join(dir, 'spares');
    const launch = launcher({
      executable: spare,
      env: minimalEnv(),
      spares: { logDir: spares, currentBuild: async () => 'b1', logger: silentLogger },
    });
    try {
      launch.prepare!();
      await waitFor(() => launch.spareWaiting!());
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

describe('processLauncher with run hosts', () => {
  /** A stand-in for `dagu` that prints its arguments and what it was given on stdin. */
  function fakeHostDagu(): string {
    const script = join(dir, 'fake-host-dagu.mjs');
    writeFileSync(
      script,
      "let input = '';\nprocess.stdin.on('data', (d) => (input += d));\n" +
        "process.stdin.on('end', () => console.log(JSON.stringify({ argv: process.argv.slice(2), input })));\n",
    );
    return script;
  }

  const hostLogDir = () => join(dir, 'logs', '.run-host');

  function hostLauncher(maxRuns: number) {
    return launcher({
      executable: fakeHostDagu(),
      env: minimalEnv(),
      // Which runs share a host must not depend on how busy the machine is: each launch makes its log's
      // directory first, which can take longer than the product's 20 ms under a loaded test run.
      hosts: { maxRuns, logDir: hostLogDir(), gatherMs: 2000 },
    });
  }

  const burstOf = (n: number, over: (i: number) => Partial<LaunchRequest> = () => ({})) =>
    Array.from({ length: n }, (_, i) =>
      request({
        dagName: `etl${i}`,
        dagFile: `/dags/etl${i}.yaml`,
        runId: `sched-0123456789ab-2026113${i}T0115Z`,
        processLog: join(dir, 'logs', `etl${i}`, 'run', '1', 'process.log'),
        burst: n,
        ...over(i),
      }),
    );

  /** What each host was started with, once all of them printed it. */
  async function hostsStarted(count: number) {
    const read = () =>
      existsSync(hostLogDir())
        ? readdirSync(hostLogDir()).map((f) => readFileSync(join(hostLogDir(), f), 'utf8'))
        : [];
    await waitFor(() => read().length === count && read().every((t) => t.endsWith('\n')), 15_000);
    return readdirSync(hostLogDir()).map((f) => {
      const out = JSON.parse(readFileSync(join(hostLogDir(), f), 'utf8')) as {
        argv: string[];
        input: string;
      };
      return {
        file: join(hostLogDir(), f),
        argv: out.argv,
        assignment: JSON.parse(out.input) as HostAssignment,
      };
    });
  }

  it('starts a burst in hosts of at most maxRuns runs, each run given with its process log', async () => {
    const reqs = burstOf(6, (i) =>
      i === 5 ? { dagName: 'nightly', renamed: true, scheduleTime: null } : {},
    );
    const launch = hostLauncher(4);
    expect(launch.burstSize).toBe(4);
    const started = await Promise.all(reqs.map((r) => launch(r)));
    // Two hosts (which runs go in the first is the order their log directories were made in).
    const perPid = new Map<number | undefined, number>();
    for (const { pid } of started) perPid.set(pid, (perPid.get(pid) ?? 0) + 1);
    expect([...perPid.values()].sort()).toEqual([2, 4]);
    const hosts = await hostsStarted(2);
    for (const h of hosts) {
      const pidOf = (runId: string) => started[reqs.findIndex((r) => r.runId === runId)].pid;
      expect(new Set(h.assignment.runs.map((r) => pidOf(r.runId))).size).toBe(1);
    }
    for (const h of hosts) expect(h.argv).toEqual(['__run-host', h.file]);
    const given = hosts.flatMap((h) => h.assignment.runs).sort((a, b) => a.runId.localeCompare(b.runId));
    expect(hosts.map((h) => h.assignment.runs.length).sort()).toEqual([2, 4]);
    expect(given[0]).toEqual({
      dag: '/dags/etl0.yaml',
      runId: reqs[0].runId,
      triggerType: 'scheduler',
      scheduleTime: '2026-11-30T01:15:00Z',
      name: null,
      processLog: reqs[0].processLog,
    });
    expect(given[5]).toMatchObject({ dag: '/dags/etl5.yaml', name: 'nightly', scheduleTime: null });
    // Each run's process log directory exists for the host to open the log in.
    for (const r of reqs) expect(existsSync(dirname(r.processLog))).toBe(true);
  });

  it('starts a small burst, or a run whose signals must reach its own process, as a process of its own', async () => {
    const launch = hostLauncher(4);
    const small = burstOf(3);
    const propagating = burstOf(5).map((r, i) => ({
      ...r,
      runId: `${r.runId}x`,
      processLog: join(dir, 'logs', `p${i}`, 'run', '1', 'process.log'),
      propagateSignals: i === 0,
    }));
    const started = await Promise.all([...small, ...propagating].map((r) => launch(r)));
    // Three own processes, one own process for the propagating run, one host for the other four.
    expect(new Set(started.map((s) => s.pid)).size).toBe(5);
    for (const r of [...small, propagating[0]]) {
      await waitFor(() => existsSync(r.processLog) && readFileSync(r.processLog, 'utf8').includes('\n'));
      expect(JSON.parse(readFileSync(r.processLog, 'utf8')).argv[0]).toBe('start');
    }
    const [host] = await hostsStarted(1);
    expect(host.assignment.runs.map((r) => r.runId).sort()).toEqual(propagating.slice(1).map((r) => r.runId));
  });

  it('gives a host none of the runs whose fence closed before it started', async () => {
    const launch = hostLauncher(4);
    const reqs = burstOf(5, (i) => ({ stillAllowed: () => i !== 2 }));
    const started = await Promise.all(reqs.map((r) => launch(r)));
    expect(started[2]).toEqual({ pid: undefined, fenced: true });
    // One host or two, by the order the launches reach the batcher (each makes its log directory first):
    // [0, 1, 3] and [4], [0, 1, 4] and [3], or [0, 1, 3, 4] and a batch of the fenced run alone, for which no
    // host starts. Each host started is one pid.
    const hosts = await hostsStarted(new Set([0, 1, 3, 4].map((i) => started[i].pid)).size);
    const given = hosts.flatMap((h) => h.assignment.runs.map((r) => r.runId));
    expect(given.sort()).toEqual([0, 1, 3, 4].map((i) => reqs[i].runId));
  });

  it('splits a batch whose assignment is longer than the launch relay passes at once into two hosts', async () => {
    const launch = hostLauncher(4);
    const reqs = burstOf(5, (i) => ({ dagFile: `/dags/${String(i).repeat(20_000)}.yaml` }));
    await Promise.all(reqs.map((r) => launch(r)));
    // 4 runs of about 20 kB each: two hosts of two, and the fifth run's own host.
    const hosts = await hostsStarted(3);
    expect(hosts.map((h) => h.assignment.runs.length).sort()).toEqual([1, 2, 2]);
    const given = hosts.flatMap((h) => h.assignment.runs.map((r) => r.runId));
    expect(given.sort()).toEqual(reqs.map((r) => r.runId).sort());
  });

  it('starts every run in its own process when hosts take fewer than two runs', async () => {
    const launch = hostLauncher(1);
    expect(launch.burstSize).toBeUndefined();
    const started = await Promise.all(burstOf(5).map((r) => launch(r)));
    expect(new Set(started.map((s) => s.pid)).size).toBe(5);
    expect(existsSync(hostLogDir())).toBe(false);
  });
});
