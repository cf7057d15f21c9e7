// Spec 085 (scheduler HA) under injected faults: storage that stalls or fails (a FUSE mount per host over one
// shared backing directory) and a wall clock an hour ahead (faketime), against real `bin/dagu scheduler`s.
// Durations are bounded on the time stamps of the schedulers' own log records (a host under faketime is an
// exact hour ahead, which every test checks), not on when the test happened to notice a change.
// File backend only, unlike ha.test.ts: every fault here is one of the shared filesystem (a FUSE mount) or of
// a host's clock as the file lock sees it. A database's faults (a crash, a stall, cut connections) are of
// another kind and are not injected here.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseSlotRunId } from '../../server/core/slotRunId';
import {
  dagu,
  eventually,
  ROOT,
  freePort,
  startService,
  tempHome,
  waitForLog,
  type LogRecord,
  type Service,
  type TempHome,
} from '../../tests/integration/harness';
import {
  daguArgv,
  faultToolsAvailable,
  mountFaultFs,
  startWrappedService,
  withFaketime,
  type FaultFs,
} from '../support/faults';
import { EVENT_DEADLINE_MS, I_MS, R_MS, T_MS, TIMER_SLACK_MS } from './cluster';

const TIMING = { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s', DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms' };
const HOUR_MS = 3_600_000;

interface Host {
  name: string;
  svc: Service;
  /** The scheduler's own PID (under faketime, not the wrapper's). */
  pid: number;
  port: number;
  /** How far the host's wall clock is ahead of ours: its log time stamps less this are on our clock. */
  clockAheadMs: number;
}

type Health = { code: number; role: string };

let homes: TempHome[] = [];
let dirs: string[] = [];
let mounts: FaultFs[] = [];
let hosts: Host[] = [];

afterEach(async () => {
  // Storage back to normal first: a scheduler stuck in a stalled FUSE call cannot even be SIGKILLed.
  await Promise.allSettled(mounts.map((m) => m.set('normal')));
  await Promise.allSettled(hosts.map((h) => h.svc.stop('SIGKILL')));
  for (const m of mounts) await m.unmount();
  for (const h of homes) h.cleanup();
  // A run process just killed with its home may still be finishing a write through the mount: retry.
  for (const d of dirs) rmSync(d, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  [homes, dirs, mounts, hosts] = [[], [], [], []];
});

function newHome(): TempHome {
  const home = tempHome(TIMING);
  homes.push(home);
  return home;
}

function newBackingDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-backing-'));
  dirs.push(dir);
  return dir;
}

async function mount(backing: string): Promise<FaultFs> {
  const fs = await mountFaultFs(backing);
  mounts.push(fs);
  return fs;
}

/**
 * Starts `dagu scheduler` on a free health port, `aheadMs` ahead under faketime when given, and waits for
 * /health. Then checks the clock it runs on: its first log record, less `aheadMs`, must fall between the
 * moment we started it and the moment we read that record. Were faketime to do nothing (or something else),
 * the record would be an hour off that window and the test fails here instead of quietly becoming a plain
 * takeover test.
 */
async function startHost(name: string, env: NodeJS.ProcessEnv, aheadMs = 0): Promise<Host> {
  const port = await freePort();
  const hostEnv = { ...env, DAGU_SCHEDULER_PORT: String(port) };
  const startedAtMs = Date.now();
  let host: Host;
  if (aheadMs !== 0) {
    // faketime's "+Ns" offset is exact: the process reads our wall clock plus N seconds.
    const spec = `${aheadMs >= 0 ? '+' : '-'}${Math.abs(aheadMs) / 1000}s`;
    const svc = await startWrappedService(withFaketime(spec, daguArgv(['scheduler'])), hostEnv);
    host = { name, svc, pid: svc.pid, port, clockAheadMs: aheadMs };
  } else {
    const svc = startService(['scheduler'], hostEnv);
    host = { name, svc, pid: svc.child.pid!, port, clockAheadMs: 0 };
  }
  hosts.push(host);
  await eventually(() => health(host), EVENT_DEADLINE_MS, 50).catch((err: Error) => {
    throw new Error(`${name} never answered /health: ${err.message}\n${host.svc.output()}`);
  });
  const first = await waitForLog(host.svc, /./, EVENT_DEADLINE_MS);
  const readAtMs = Date.now();
  const onOurClock = first.timeMs - aheadMs;
  const clockMessage = `${name}'s clock should be ${aheadMs} ms ahead of ours: its first record at ${new Date(first.timeMs).toISOString()}, started ${new Date(startedAtMs).toISOString()}, read ${new Date(readAtMs).toISOString()}`;
  expect(onOurClock, clockMessage).toBeGreaterThanOrEqual(startedAtMs);
  expect(onOurClock, clockMessage).toBeLessThanOrEqual(readAtMs);
  return host;
}

/**
 * Waits for the host's first log record matching `pattern`; returns it with its time on our clock. Our clock
 * and the host's differ by exactly `clockAheadMs` (checked in startHost).
 */
async function hostEvent(host: Host, pattern: RegExp): Promise<LogRecord & { ourTimeMs: number }> {
  const record = await waitForLog(host.svc, pattern, EVENT_DEADLINE_MS).catch((err: Error) => {
    throw new Error(`${host.name}: ${err.message}`);
  });
  return { ...record, ourTimeMs: record.timeMs - host.clockAheadMs };
}

/**
 * Kills the active `a` with SIGKILL and returns how long `b` took to take the lock over: from the kill to
 * the time stamp of b's takeover record. Checks b then reports itself active.
 */
async function killAndMeasureTakeover(a: Host, b: Host): Promise<number> {
  const killedAtMs = Date.now();
  process.kill(a.pid, 'SIGKILL');
  const took = await hostEvent(b, /^Took over the scheduler lock from a failed instance$/);
  await untilRole(b, 'active', EVENT_DEADLINE_MS);
  return took.ourTimeMs - killedAtMs;
}

/** GET /health on 127.0.0.1 (an IP, so no DNS lookup); null when the host does not answer within 1 s. */
async function health(host: Host, role?: 'active'): Promise<Health | null> {
  const query = role ? `?role=${role}` : '';
  try {
    const res = await fetch(`http://127.0.0.1:${host.port}/health${query}`, {
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { role: string };
    return { code: res.status, role: body.role };
  } catch {
    return null;
  }
}

/** Waits until `host` reports `role` (polled every 25 ms), failing after `timeoutMs`. */
async function untilRole(host: Host, role: 'active' | 'standby', timeoutMs: number): Promise<void> {
  await eventually(async () => (await health(host))?.role === role, timeoutMs, 25).catch((err: Error) => {
    throw new Error(`${host.name} did not become ${role}: ${err.message}\n${host.svc.output()}`);
  });
}

/**
 * Asserts, sampling every 100 ms for `forMs`, that every host stays alive in its expected role. A health
 * request that gets no answer within its second (a loaded machine) proves nothing either way and is not a
 * failure; a wrong role or an exit is, and each host must have answered in the window.
 */
async function expectRolesHold(expected: Array<[Host, 'active' | 'standby']>, forMs: number): Promise<void> {
  const until = performance.now() + forMs;
  const answered = new Set<Host>();
  while (performance.now() < until) {
    for (const [host, role] of expected) {
      expect(host.svc.child.exitCode, `${host.name} exited:\n${host.svc.output()}`).toBeNull();
      const seen = await health(host);
      if (seen === null) continue;
      answered.add(host);
      expect(seen, `${host.name} should still be ${role}`).toEqual({ code: 200, role });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const [host] of expected) expect(answered.has(host), `${host.name} never answered /health`).toBe(true);
}

/** The scheduler lock record under a home's default data directory. */
function readLockRecord(home: TempHome): { acquired_at: string; renewed_at: string } {
  const file = path.join(home.home, 'data', 'scheduler', 'lock', 'lock.json');
  return JSON.parse(readFileSync(file, 'utf8')) as { acquired_at: string; renewed_at: string };
}

/** Resolves with the exit code once the host's process has exited. */
function exitCodeOf(host: Host): Promise<number | null> {
  const child = host.svc.child;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

/** Slot times (ms) of the slot runs recorded under a data directory, read from the backing directory. */
function slotTimes(dataDir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(path.join(dataDir, 'runs'));
  } catch {
    return [];
  }
  return names.map((n) => parseSlotRunId(n)?.slotMs).filter((ms): ms is number => ms !== undefined);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

describe('spec 085: scheduler HA under storage faults and clock offsets', () => {
  beforeAll(() => {
    const tools = faultToolsAvailable();
    if (!tools.ok) throw new Error(tools.message);
  });

  it('an active whose storage stalls stops dispatching within T - I and exits non-zero once storage returns', async () => {
    const home = newHome();
    home.writeDag('every-second', 'schedule: "* * * * * *"\nsteps:\n  - name: noop\n    command: "true"\n');
    const backing = newBackingDir();
    const fs = await mount(backing);
    const a = await startHost('a', { ...home.env, DAGU_DATA_DIR: path.join(fs.mnt, 'data') });
    await untilRole(a, 'active', EVENT_DEADLINE_MS);
    const backingData = path.join(backing, 'data');
    await eventually(() => slotTimes(backingData).length > 0, EVENT_DEADLINE_MS);

    const stallWallMs = Date.now();
    await fs.set('stall');
    // The instance logs the moment it fenced itself (its own clock, the same host's wall clock as ours). The
    // wait is generous because the bound is checked on that time stamp, not on when the line reached us.
    const fenced = await hostEvent(a, /^Stopped being the active scheduler/);
    const fencedAfterMs = fenced.ourTimeMs - stallWallMs;
    expect(fencedAfterMs).toBeLessThanOrEqual(T_MS - I_MS + TIMER_SLACK_MS);
    // Past the fence it no longer claims to be active: 503, or no answer once it is exiting.
    expect((await health(a, 'active'))?.code ?? 503).toBe(503);
    expect(a.svc.child.exitCode, 'it exits only once its storage returns').toBeNull();

    await fs.set('normal');
    const code = await withTimeout(
      exitCodeOf(a),
      EVENT_DEADLINE_MS,
      'the fenced scheduler did not exit after storage returned',
    );
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();

    // Writes begun before the fence may land late, but no slot after the fence was dispatched.
    const slots = slotTimes(backingData);
    expect(slots.length).toBeGreaterThan(0);
    const lastAllowed = stallWallMs + T_MS - I_MS + TIMER_SLACK_MS;
    expect(slots.filter((s) => s > lastAllowed).map((s) => new Date(s).toISOString())).toEqual([]);
  });

  it('a standby whose storage fails with EIO keeps waiting, then takes over once the active dies', async () => {
    const home = newHome();
    const backing = newBackingDir();
    const a = await startHost('a', { ...home.env, DAGU_DATA_DIR: path.join(backing, 'data') });
    await untilRole(a, 'active', EVENT_DEADLINE_MS);
    const fsB = await mount(backing);
    const b = await startHost('b', { ...home.env, DAGU_DATA_DIR: path.join(fsB.mnt, 'data') });
    await hostEvent(b, /^Waiting as standby/);

    await fsB.set('eio');
    await expectRolesHold(
      [
        [a, 'active'],
        [b, 'standby'],
      ],
      T_MS + 2 * R_MS,
    );
    expect(b.svc.output()).toMatch(/Storage error while waiting for the scheduler lock/);
    await fsB.set('normal');
    await expectRolesHold(
      [
        [a, 'active'],
        [b, 'standby'],
      ],
      3 * R_MS,
    );

    const tookMs = await killAndMeasureTakeover(a, b);
    expect(tookMs).toBeGreaterThanOrEqual(T_MS - I_MS);
    expect(tookMs).toBeLessThanOrEqual(T_MS + 2 * R_MS + TIMER_SLACK_MS);
  });

  it('a scheduler whose storage fails with EIO at its first attempt at the lock exits non-zero at once', async () => {
    const home = newHome();
    const fs = await mount(newBackingDir());
    const dataDir = path.join(fs.mnt, 'data');
    const env = { ...home.env, DAGU_DATA_DIR: dataDir, DAGU_SCHEDULER_PORT: String(await freePort()) };
    // Only the lock's directory fails, then the whole data directory (a wrong or broken mount).
    for (const mode of ['eio path=/data/scheduler', 'eio']) {
      await fs.set(mode);
      const started = performance.now();
      const r = await dagu(['scheduler'], env, 8000);
      const output = r.stdout + r.stderr;
      expect(r.code, `${mode}: exit code\n${output}`).not.toBe(0);
      expect(r.code, `${mode}: still running after 8 s\n${output}`).not.toBeNull();
      expect(performance.now() - started, `${mode}: took longer than T`).toBeLessThan(T_MS);
      expect(output, mode).toContain(dataDir);
    }
  });

  it('an active whose wall clock is an hour ahead is taken over within T + 2R after kill -9', async () => {
    const home = newHome();
    const a = await startHost('a (faketime +1h)', home.env, HOUR_MS);
    await untilRole(a, 'active', EVENT_DEADLINE_MS);
    const b = await startHost('b', home.env);
    await hostEvent(b, /^Waiting as standby/);
    // a renews on its own clock: the lock record's display times are an hour ahead too.
    expect(Date.parse(readLockRecord(home).renewed_at) - Date.now()).toBeGreaterThan(HOUR_MS / 2);

    const tookMs = await killAndMeasureTakeover(a, b);
    expect(tookMs).toBeGreaterThanOrEqual(T_MS - I_MS);
    expect(tookMs).toBeLessThanOrEqual(T_MS + 2 * R_MS + TIMER_SLACK_MS);
  });

  it('a standby whose wall clock is an hour ahead waits while the active renews, and takes over within T + 2R', async () => {
    const home = newHome();
    const a = await startHost('a', home.env);
    await untilRole(a, 'active', EVENT_DEADLINE_MS);
    const b = await startHost('b (faketime +1h)', home.env, HOUR_MS);
    await hostEvent(b, /^Waiting as standby/);
    // The active's renewals carry timestamps an hour "old" to b: only its own monotonic watch may count.
    await expectRolesHold(
      [
        [a, 'active'],
        [b, 'standby'],
      ],
      T_MS + R_MS,
    );

    const tookMs = await killAndMeasureTakeover(a, b);
    expect(tookMs).toBeGreaterThanOrEqual(T_MS - I_MS);
    expect(tookMs).toBeLessThanOrEqual(T_MS + 2 * R_MS + TIMER_SLACK_MS);
    // And the record b wrote as the new holder carries its own clock, an hour ahead of ours.
    expect(Date.parse(readLockRecord(home).acquired_at) - Date.now()).toBeGreaterThan(HOUR_MS / 2);
  });

  it.each([
    ['an active scheduler', 'scheduler'],
    ['the web server', 'server'],
  ])(
    '%s starts a run while one of its own writes hangs on a stalled volume, and its timers keep firing',
    async (_, kind) => {
      // The launcher in a process of its own, as composed in `dagu scheduler` (or the API's, as in `dagu
      // server`): made before the storage is used, then a file of the volume held open with a write in it, as
      // an in-flight store write holds one. A fork from that process would wait, synchronously, for the volume
      // to flush that file.
      const fs = await mount(newBackingDir());
      const local = newBackingDir();
      const fakeDagu = path.join(local, 'fake-dagu.cjs');
      writeFileSync(fakeDagu, "console.log('started ' + process.argv.slice(2).join(' '));\n");
      const driver = path.join(local, 'driver.mts');
      const from = (p: string) => JSON.stringify(path.join(ROOT, p));
      writeFileSync(
        driver,
        `import { openSync, writeSync } from 'node:fs';
import { loadConfig } from ${from('server/config/loadConfig.ts')};
import { silentLogger } from ${from('server/core/ports.ts')};
import { processEnv, processStarter } from ${from('server/api/services.ts')};
import { findRelayTools, LaunchRelay } from ${from('server/runner/launchRelay.ts')};
import { processLauncher } from ${from('server/scheduler/launcher.ts')};
const [mnt, executable, logDir, kind] = process.argv.slice(2);
const processLog = logDir + '/process.log';
let start: () => Promise<number | undefined>;
if (kind === 'scheduler') {
  const launch = processLauncher({ executable, env: process.env, logger: silentLogger });
  start = async () => (await launch({ dagName: 'etl', dagFile: '/dags/etl.yaml', runId: 'r1', triggerType: 'manual',
    scheduleTime: null, processLog })).pid;
} else {
  const env = { ...process.env, DAGU_EXECUTABLE: executable };
  const config = loadConfig({ env: { DAGU_HOME: logDir } });
  const relay = new LaunchRelay({ env: processEnv(config, env), tools: findRelayTools()!, logger: silentLogger });
  relay.start();
  const startProcess = processStarter(config, env, relay);
  start = () => startProcess(['start', '--quiet', '--run-id', 'r1', 'etl'], processLog);
}
writeSync(openSync(mnt + '/held', 'w'), 'in flight');
let ticks = 0;
setInterval(() => ticks++, 10);
process.stdout.write('holding\\n');
process.stdin.once('data', () => {
  const before = ticks;
  void start().then((pid) => {
    setTimeout(() => process.stdout.write('launched ' + pid + ' ticks ' + (ticks - before) + '\\n'), 300);
  }, (err) => process.stdout.write('failed ' + err.message + '\\n'));
});
`,
      );
      const child = spawn(process.execPath, ['--import', 'tsx', driver, fs.mnt, fakeDagu, local, kind], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      try {
        await eventually(() => out.includes('holding\n'), EVENT_DEADLINE_MS).catch(() => {
          throw new Error(`the driver did not start:\n${out}`);
        });
        await fs.set('stall');
        child.stdin.write('go\n');
        await eventually(() => /^(launched|failed) /m.test(out), EVENT_DEADLINE_MS).catch(() => {
          throw new Error(`the launcher froze while a file of the stalled volume was open:\n${out}`);
        });
        const m = /^launched (\d+) ticks (\d+)$/m.exec(out);
        expect(m, out).not.toBeNull();
        // Its timers ran through the launch (every 10 ms, for at least the 300 ms after it).
        expect(Number(m![2])).toBeGreaterThanOrEqual(10);
        await eventually(
          () =>
            readFileSync(path.join(local, 'process.log'), 'utf8').includes(
              'started start --quiet --run-id r1',
            ),
          EVENT_DEADLINE_MS,
        );
      } finally {
        await fs.set('normal');
        child.kill('SIGKILL');
        await new Promise((r) =>
          child.exitCode !== null || child.signalCode !== null ? r(null) : child.once('exit', r),
        );
      }
    },
  );
});
