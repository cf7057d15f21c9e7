// Issue-3 figures on real `bin/dagu scheduler` processes: takeover latency after `kill -9` of the active,
// clean handover latency after SIGTERM, and scheduling lateness of an every-second DAG. Each figure is printed
// next to its target; the script exits 1 when one is missed.
// Run: npm run bench -- ha [--quick] [--verbose]
//  or: node --import tsx bench/ha.bench.ts [takeoverFast|takeoverSlow|handover|lateness] [--quick] [--verbose]

import { spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { readRoleEvents } from './chaos/analysis/soakData';
import { FileRunStore } from '../server/store/fileRunStore';
import { bucketPath, markerName } from '../server/store/runIndex';
import {
  check,
  finish,
  freePort,
  median,
  missed,
  percentile,
  report,
  sleep,
  startTracked,
  tempHome,
  type TrackedProcess,
} from './lib';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const which = args.find((a) => !a.startsWith('--'));
/** Prints every sample as well (`--verbose`). */
const VERBOSE = args.includes('--verbose');
const TRIALS = QUICK ? 5 : 20;
/** Health poll period while waiting for a takeover: the resolution of every latency below. */
const POLL_MS = 20;

// ---- processes and homes, always cleaned up (also on Ctrl-C) ----

interface Scheduler extends TrackedProcess {
  port: number;
}

const live = new Set<ChildProcess>();
const homes = new Set<string>();

function killEverything() {
  for (const c of live) c.kill('SIGKILL');
  for (const h of homes) rmSync(h, { recursive: true, force: true });
}
process.once('SIGINT', () => {
  killEverything();
  process.exit(130);
});
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

function gone(c: ChildProcess) {
  return c.exitCode !== null || c.signalCode !== null;
}

async function startScheduler(env: NodeJS.ProcessEnv): Promise<Scheduler> {
  const port = await freePort();
  return { ...startTracked(['scheduler'], { ...env, DAGU_SCHEDULER_PORT: String(port) }, live), port };
}

async function stopScheduler(s: Scheduler, signal: NodeJS.Signals = 'SIGTERM') {
  if (!gone(s.child)) s.child.kill(signal);
  const force = setTimeout(() => s.child.kill('SIGKILL'), 12_000);
  await s.exited;
  clearTimeout(force);
}

/** HTTP status of the health endpoint, 0 when nothing answers. */
async function health(s: Scheduler, query = ''): Promise<{ code: number; role?: string }> {
  try {
    const r = await fetch(`http://127.0.0.1:${s.port}/health${query}`, { signal: AbortSignal.timeout(1000) });
    const body = (await r.json()) as { role?: string };
    return { code: r.status, role: body.role };
  } catch {
    return { code: 0 };
  }
}

/** Polls `/health?role=active` every POLL_MS (fixed cadence) and returns when it answered 200. */
async function untilActive(s: Scheduler, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  let next = t0;
  for (;;) {
    if ((await health(s, '?role=active')).code === 200) return performance.now();
    if (gone(s.child))
      throw new Error(
        `scheduler exited (${s.child.signalCode ?? `exit code ${String(s.child.exitCode)}`}) while waiting for it to be active:\n${s.tail()}`,
      );
    if (performance.now() - t0 > timeoutMs)
      throw new Error(`no takeover within ${timeoutMs} ms; last output:\n${s.tail()}`);
    next += POLL_MS;
    await sleep(Math.max(0, next - performance.now()));
  }
}

async function untilStandby(s: Scheduler, timeoutMs = 20_000) {
  const deadline = performance.now() + timeoutMs;
  while ((await health(s)).role !== 'standby') {
    if (gone(s.child) || performance.now() > deadline)
      throw new Error(`scheduler did not report standby:\n${s.tail()}`);
    await sleep(POLL_MS);
  }
}

// ---- what the data directory says about each trial (same host, so wall clocks agree) ----

/** Waits (briefly) for the event of `type` after `sinceMs`: appends are asynchronous. */
async function eventTime(dataDir: string, type: string, sinceMs: number): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const e = readRoleEvents(dataDir).find((x) => x.timeMs >= sinceMs && x.type === type);
    if (e) return e.timeMs;
    await sleep(POLL_MS);
  }
  return NaN;
}

function lockRenewedAtMs(dataDir: string): number {
  try {
    const rec = JSON.parse(readFileSync(path.join(dataDir, 'scheduler', 'lock', 'lock.json'), 'utf8')) as {
      renewed_at: string;
    };
    return Date.parse(rec.renewed_at);
  } catch {
    return NaN;
  }
}

// ---- a pair of schedulers, reused across the trials of a set ----

/** Two instances on one home; every instance started through it is stopped by `withPair`. */
class Pair {
  readonly started: Scheduler[] = [];
  active!: Scheduler;
  standby!: Scheduler;

  constructor(
    readonly env: NodeJS.ProcessEnv,
    readonly dataDir: string,
    readonly tMs: number,
    readonly rMs: number,
  ) {}

  async spawn(): Promise<Scheduler> {
    const s = await startScheduler(this.env);
    this.started.push(s);
    return s;
  }

  /** Starts a new standby and waits until it has watched the holder renew, at a random renewal phase. */
  async replaceStandby() {
    this.standby = await this.spawn();
    await untilStandby(this.standby);
    await settle(this.tMs, this.rMs);
  }
}

/** Lets a fresh standby see a renewal (3R), then waits a random part of I so trials sample every phase. */
function settle(tMs: number, rMs: number) {
  return sleep(3 * rMs + Math.random() * Math.min(7000, tMs / 4));
}

async function withPair(tMs: number, rMs: number, body: (p: Pair) => Promise<void>): Promise<void> {
  const h = tempHome({
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${tMs}ms`,
    DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${rMs}ms`,
  });
  homes.add(h.home);
  const pair = new Pair(h.env, path.join(h.home, 'data'), tMs, rMs);
  try {
    pair.active = await pair.spawn();
    await untilActive(pair.active, 20_000);
    await pair.replaceStandby();
    await body(pair);
  } finally {
    await Promise.all(pair.started.map((s) => stopScheduler(s, 'SIGKILL')));
    h.cleanup();
    homes.delete(h.home);
  }
}

// ---- figures ----

function printLatencies(label: string, ms: number[], boundMs: number, targetMs: number, targetText: string) {
  report(`${label}: p50`, percentile(ms, 50), 'ms', `reference; bound T + 2R = ${boundMs} ms`);
  report(`${label}: p95`, percentile(ms, 95), 'ms', `reference; bound T + 2R = ${boundMs} ms`);
  check(`${label}: p99`, percentile(ms, 99), 'ms', { max: targetMs, why: targetText });
  check(`${label}: max`, Math.max(...ms), 'ms', { max: boundMs, why: 'bound T + 2R' });
}

async function killTakeover(tMs: number, rMs: number) {
  const renewEveryMs = Math.min(7000, tMs / 4);
  const total: number[] = [];
  const toLock: number[] = [];
  const renewalAge: number[] = [];
  await withPair(tMs, rMs, async (p) => {
    for (let i = 0; i < TRIALS; i++) {
      const victim = p.active;
      const killWall = Date.now();
      const t0 = performance.now();
      victim.child.kill('SIGKILL');
      renewalAge.push(killWall - lockRenewedAtMs(p.dataDir));
      const seenAt = await untilActive(p.standby, tMs + 2 * rMs + 10_000);
      total.push(seenAt - t0);
      toLock.push((await eventTime(p.dataDir, 'scheduler.lock.acquired', killWall)) - killWall);
      await victim.exited;
      p.active = p.standby;
      await p.replaceStandby();
    }
  });
  const label = `takeover after kill -9, T=${tMs / 1000}s R=${rMs / 1000}s (${total.length})`;
  printLatencies(label, total, tMs + 2 * rMs, tMs + rMs + 500, 'T + R + 0.5s');
  check('  min (a takeover needs at least T - I)', Math.min(...total), 'ms', {
    min: tMs - renewEveryMs,
    why: 'T - I',
  });
  report('  kill -> takeover event: p50', percentile(toLock, 50), 'ms', 'reference');
  report('  kill -> takeover event: p99', percentile(toLock, 99), 'ms', 'reference');
  report('  takeover event -> /health 200: p99', percentile(diff(total, toLock), 99), 'ms', 'reference');
  report(
    '  age of the last renewal at the kill: p50',
    percentile(renewalAge, 50),
    'ms',
    `I = ${renewEveryMs}`,
  );
}

function diff(a: number[], b: number[]) {
  return a.map((x, i) => x - b[i]).filter(Number.isFinite);
}

async function takeoverFast() {
  await killTakeover(3000, 500);
}

async function takeoverSlow() {
  await killTakeover(8000, 1000);
}

async function handover() {
  const tMs = 3000;
  const rMs = 500;
  const total: number[] = [];
  const toRelease: number[] = [];
  const releaseToTake: number[] = [];
  await withPair(tMs, rMs, async (p) => {
    for (let i = 0; i < TRIALS; i++) {
      const leaving = p.active;
      const sigWall = Date.now();
      const t0 = performance.now();
      leaving.child.kill('SIGTERM');
      const seenAt = await untilActive(p.standby, tMs + 2 * rMs + 10_000);
      total.push(seenAt - t0);
      const released = await eventTime(p.dataDir, 'scheduler.lock.released', sigWall);
      const acquired = await eventTime(p.dataDir, 'scheduler.lock.acquired', sigWall);
      toRelease.push(released - sigWall);
      releaseToTake.push(acquired - released);
      await leaving.exited;
      if (leaving.child.exitCode !== 0) throw new Error(`a clean stop exited ${leaving.child.exitCode}`);
      p.active = p.standby;
      await p.replaceStandby();
    }
  });
  const label = `clean handover after SIGTERM, T=3s R=0.5s (${total.length})`;
  report(`${label}: p50`, percentile(total, 50), 'ms', 'reference');
  report(`${label}: p95`, percentile(total, 95), 'ms', 'reference');
  check(`${label}: p99`, percentile(total, 99), 'ms', { max: rMs + 300, why: 'R + 0.3s' });
  report(`${label}: max`, Math.max(...total), 'ms', 'reference');
  report('  SIGTERM -> released event: p99', percentile(toRelease, 99), 'ms', 'reference');
  report('  released -> acquired event: p99', percentile(releaseToTake, 99), 'ms', `R = ${rMs}`);
}

const MS_PRECISION = /\.\d{3}Z$/;

async function lateness() {
  const dags = 1;
  const seconds = QUICK ? 12 : 42;
  const warmupMs = 2000;
  const h = tempHome();
  homes.add(h.home);
  for (let d = 0; d < dags; d++)
    h.writeDag(`every${d}`, 'schedule: "* * * * * *"\nsteps:\n  - name: s\n    command: "true"\n');
  const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
  let sched: Scheduler | null = null;
  let fromMs: number;
  let toMs: number;
  try {
    sched = await startScheduler(h.env);
    await untilActive(sched, 20_000);
    fromMs = Date.now() + warmupMs;
    await sleep(warmupMs + seconds * 1000);
    toMs = Date.now() - 1000; // the last second's run may still be starting
    await stopScheduler(sched);
    // Runs outlive the scheduler: let the last ones finish before reading and removing the home.
    const deadline = Date.now() + 10_000;
    while ((await store.listActive()).length > 0 && Date.now() < deadline) await sleep(100);
  } finally {
    if (sched) await stopScheduler(sched, 'SIGKILL');
  }
  try {
    const created: number[] = [];
    const stepStarted: number[] = [];
    const spawnToStep: number[] = [];
    const onDisk: number[] = [];
    let coarse = 0;
    let expected = 0;
    let notSucceeded = 0;
    for (let d = 0; d < dags; d++) {
      expected += Math.floor(toMs / 1000) - Math.ceil(fromMs / 1000) + 1;
      const page = await store.listRuns({ dag: `every${d}`, limit: 500 });
      for (const item of page.items) {
        const r = await store.readStatus(item.run_id);
        if (r.kind !== 'ok' || r.status.trigger_type !== 'scheduler') continue;
        const s = r.status;
        const slot = Date.parse(s.schedule_time!);
        if (slot < fromMs || slot > toMs) continue;
        if (s.status !== 'succeeded') notSucceeded++;
        // Latencies count the runs that succeeded (a run that failed may never have started its step).
        const step = s.status === 'succeeded' ? s.steps[0]?.started_at : undefined;
        if (!MS_PRECISION.test(s.created_at)) coarse++;
        if (step && !MS_PRECISION.test(step)) coarse++;
        created.push(Date.parse(s.created_at) - slot);
        if (step) stepStarted.push(Date.parse(step) - slot);
        if (step) spawnToStep.push(Date.parse(step) - Date.parse(s.created_at));
        const markerMs = indexMarkerMtimeMs(h.home, s.dag_name, s.run_id, Date.parse(s.created_at));
        if (Number.isFinite(markerMs)) onDisk.push(markerMs - slot);
        if (VERBOSE) {
          const times = [s.created_at, s.started_at, step, s.finished_at].map((t) =>
            t ? Date.parse(t) - slot : NaN,
          );
          process.stdout.write(
            `  ${s.schedule_time} ${s.status} record/run/step/finish +${times.join(' +')} ms\n`,
          );
        }
      }
    }
    const label = `every-second DAG x${dags}, ${created.length} slots`;
    report(`${label}: slot -> run record p50`, percentile(created, 50), 'ms', 'reference');
    check(`${label}: slot -> run record p99`, percentile(created, 99), 'ms', { max: 50 });
    report(`${label}: slot -> run record max`, Math.max(...created), 'ms', 'reference');
    report('  slot -> index marker written (record on disk): p99', percentile(onDisk, 99), 'ms', 'reference');
    report(`${label}: slot -> first step p50`, percentile(stepStarted, 50), 'ms', 'reference');
    check(`${label}: slot -> first step p99`, percentile(stepStarted, 99), 'ms', { max: 150 });
    report(`${label}: slot -> first step max`, Math.max(...stepStarted), 'ms', 'reference');
    report('  run record -> first step: p50', percentile(spawnToStep, 50), 'ms', 'reference');
    report("  (bare node -e '' on this machine now, median of 5)", bareNodeMs(), 'ms', 'reference');
    check('  slots without a run', expected - created.length, 'slots', { exactly: 0 });
    check('  runs that did not succeed', notSucceeded, 'runs', { exactly: 0 });
    // A stamp that falls on a whole second prints as .000: about one in a thousand.
    check('  timestamps without a ms fraction', coarse, 'stamps', {
      max: Math.ceil((created.length * 2) / 100),
      why: `of ${created.length * 2}, a rare .000 only`,
    });
  } finally {
    h.cleanup();
    homes.delete(h.home);
  }
}

/**
 * created_at is stamped just before the record is written; the run's index marker is written last by
 * createRun and never again, so its mtime is when the whole record was on disk.
 */
function indexMarkerMtimeMs(home: string, dag: string, runId: string, createdMs: number): number {
  const file = path.join(home, 'data', 'index', 'dag', dag, ...bucketPath(createdMs));
  try {
    return statSync(path.join(file, markerName(createdMs, runId, null))).mtimeMs;
  } catch {
    return NaN;
  }
}

/** A run is its own process, so its start-up is bounded below by node's own: printed for reference. */
function bareNodeMs() {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '']);
    times.push(performance.now() - t0);
  }
  return median(times);
}

const all: Record<string, () => Promise<void>> = { takeoverFast, takeoverSlow, handover, lateness };
const t0 = performance.now();
// The machine is shared: a busy CPU stretches every figure here, so the load is printed with them.
report(`load average (1 min) at start, ${availableParallelism()} cores`, loadavg()[0], '', 'reference');
for (const [name, fn] of Object.entries(all)) {
  if (which && which !== name) continue;
  try {
    await fn();
  } catch (err) {
    missed(name, (err as Error).message);
  }
}
report('load average (1 min) at end', loadavg()[0], '', 'reference');
report('ha benchmarks, wall time', (performance.now() - t0) / 1000, 's', QUICK ? 'quick run' : 'full run');
finish();
