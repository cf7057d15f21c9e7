// Issue-13 "at scale" figures: N DAGs (one `true` step each) all due in the same second, one real
// `dagu scheduler`; for every slot, the time from the slot to its run record and to its run's end, and the
// CPU time the scheduler and the run processes spent, which bounds the latter on this machine.
// Run: npm run bench -- scale [200] [1000] [--repeat=K] [--verbose]
//  or: node --import tsx bench/scale.bench.ts [200] [1000] [--repeat=K] [--verbose]
// The scheduler gets this process's environment (DAGU_RUN_PRESTART=false, say, compares without a spare;
// DAGU_RUN_HOST_MAX_RUNS=0 without run hosts, one Node process per run).

import { type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
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
  type Target,
  type TrackedProcess,
} from './lib';

const args = process.argv.slice(2);
const VERBOSE = args.includes('--verbose');
const REPEAT = Number(/^--repeat=(\d+)$/.exec(args.find((a) => a.startsWith('--repeat=')) ?? '')?.[1] ?? 1);
const SIZES = args.filter((a) => /^\d+$/.test(a)).map(Number);
const CORES = availableParallelism();

/**
 * Targets by number of DAGs (ms); null: reported only. The issue sets those for 200. For 1,000 the records
 * are held to the same rate, a second per 200 DAGs (creating one is a few file calls in the scheduler, so the
 * time grows linearly); the end of the last run is reported only: it is bound by the CPU time of the run
 * processes (run hosts, or 1,000 Node processes without them) spread over this machine's cores (the figures
 * below print that bound).
 */
const TARGETS: Record<number, { recordP99Ms: number; finishedMaxMs: number | null }> = {
  200: { recordP99Ms: 1000, finishedMaxMs: 5000 },
  1000: { recordP99Ms: 5000, finishedMaxMs: null },
};
const targetsFor = (n: number) => TARGETS[n] ?? { recordP99Ms: (1000 * n) / 200, finishedMaxMs: null };

/** How long before the slot the scheduler is started: it loads and parses every DAG file first. */
const LEAD_MS = (n: number) => 8000 + 12 * n;
/** How long after the slot the bench waits for the last run to end before it gives up. */
const GIVE_UP_MS = (n: number) => 30_000 + 100 * n;

// ---- processes and homes, always cleaned up (also on Ctrl-C) ----

const live = new Set<ChildProcess>();
const homes = new Set<string>();
/** Process groups of run processes still going when a trial ends (given up): killed with the trial. */
const runGroups = new Set<number>();

function killRuns() {
  for (const pid of runGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  runGroups.clear();
}

process.once('SIGINT', () => {
  for (const c of live) c.kill('SIGKILL');
  killRuns();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  process.exit(130);
});
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** A 6-field cron expression (seconds first, UTC) that fires at `slotMs`, and next a day later. */
function cronAt(slotMs: number): string {
  const d = new Date(slotMs);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
}

function entries(dir: string): number {
  try {
    return readdirSync(dir).filter((n) => !n.startsWith('.')).length;
  } catch {
    return 0;
  }
}

/**
 * CPU time (user + system, ms) of a process so far, and of the children it has waited for (Linux /proc):
 * the scheduler reaps the run processes it starts, so theirs (with their steps') ends up in `children`.
 */
function cpuMs(pid: number): { own: number; children: number } {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ms = (a: string, b: string) => ((Number(a) + Number(b)) * 1000) / 100; // ticks of 10 ms
    return { own: ms(f[11], f[12]), children: ms(f[13], f[14]) };
  } catch {
    return { own: NaN, children: NaN };
  }
}

async function untilActive(port: number, sched: TrackedProcess, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health?role=active`, {
        signal: AbortSignal.timeout(1000),
      });
      if (r.status === 200) return;
    } catch {
      /* not up yet */
    }
    if (sched.child.exitCode !== null) throw new Error(`scheduler exited:\n${sched.tail()}`);
    if (performance.now() > deadline) throw new Error(`scheduler not active in time:\n${sched.tail()}`);
    await sleep(100);
  }
}

// ---- one trial: N DAGs, one slot ----

interface Trial {
  n: number;
  /** Slot -> the run's record on disk, per run found (ms). */
  recordWritten: number[];
  /** Slot -> created_at, stamped by the scheduler right before it writes the record. */
  recordStamped: number[];
  /** Slot -> started_at: the run process took the run over. */
  started: number[];
  /** Slot -> finished_at, of the runs that succeeded. */
  finished: number[];
  succeeded: number;
  /** CPU time from the slot on: the scheduler's, and its run processes' with their steps. */
  schedulerCpuMs: number;
  runsCpuMs: number;
}

async function trial(n: number): Promise<Trial> {
  const port = await freePort();
  const h = tempHome({ DAGU_SCHEDULER_PORT: String(port) });
  homes.add(h.home);
  const slotMs = Math.ceil((Date.now() + LEAD_MS(n)) / 1000) * 1000;
  const yaml = `schedule: "${cronAt(slotMs)}"\nsteps:\n  - name: t\n    command: "true"\n`;
  for (let i = 0; i < n; i++) h.writeDag(`d${String(i).padStart(4, '0')}`, yaml);
  const dataDir = path.join(h.home, 'data');
  let sched: TrackedProcess | null = null;
  try {
    sched = startTracked(['scheduler'], h.env, live);
    await untilActive(port, sched, LEAD_MS(n));
    if (Date.now() > slotMs - 1000) throw new Error('the scheduler became active too close to the slot');
    await sleep(slotMs - Date.now());
    const cpuAtSlot = cpuMs(sched.child.pid!);
    // Watch two directory listings (run directories, active markers), not n status files, so the watching
    // takes next to no CPU from the runs it measures.
    const giveUp = slotMs + GIVE_UP_MS(n);
    while (entries(path.join(dataDir, 'runs')) < n || entries(path.join(dataDir, 'active')) > 0) {
      if (Date.now() > giveUp) {
        process.stdout.write(`  gave up waiting ${GIVE_UP_MS(n) / 1000} s after the slot\n`);
        break;
      }
      await sleep(100);
    }
    const cpuAtEnd = cpuMs(sched.child.pid!);
    sched.child.kill('SIGTERM');
    await sched.exited;
    sched = null;
    return {
      ...(await collect(n, dataDir, slotMs)),
      schedulerCpuMs: cpuAtEnd.own - cpuAtSlot.own,
      runsCpuMs: cpuAtEnd.children - cpuAtSlot.children,
    };
  } finally {
    if (sched) {
      sched.child.kill('SIGKILL');
      await sched.exited;
    }
    killRuns();
    h.cleanup();
    homes.delete(h.home);
  }
}

async function collect(n: number, dataDir: string, slotMs: number) {
  const store = new FileRunStore({ dataDir, logDir: path.join(path.dirname(dataDir), 'logs') });
  const t = { n, recordWritten: [] as number[], recordStamped: [] as number[], started: [] as number[] };
  const finished: number[] = [];
  let succeeded = 0;
  for (const id of readdirSync(path.join(dataDir, 'runs'))) {
    const r = await store.readStatus(id);
    if (r.kind !== 'ok') continue;
    const s = r.status;
    if (s.pid !== null && (s.status === 'running' || s.status === 'queued')) runGroups.add(s.pid);
    if (s.schedule_time === null || Date.parse(s.schedule_time) !== slotMs) continue;
    const created = Date.parse(s.created_at);
    t.recordStamped.push(created - slotMs);
    t.recordWritten.push(indexMarkerMtimeMs(dataDir, s.dag_name, s.run_id, created) - slotMs);
    if (s.started_at) t.started.push(Date.parse(s.started_at) - slotMs);
    if (s.status === 'succeeded' && s.finished_at) {
      succeeded++;
      finished.push(Date.parse(s.finished_at) - slotMs);
    }
    if (VERBOSE) {
      const times = [s.created_at, s.started_at, s.finished_at].map((x) =>
        x ? Date.parse(x) - slotMs : NaN,
      );
      process.stdout.write(`  ${s.dag_name} ${s.status} record/start/finish +${times.join(' +')} ms\n`);
    }
  }
  return { ...t, finished, succeeded };
}

/**
 * The run's index marker is the last file createRun writes, and never rewritten: its mtime is when the whole
 * record was on disk (created_at is stamped before the writes).
 */
function indexMarkerMtimeMs(dataDir: string, dag: string, runId: string, createdMs: number): number {
  const dir = path.join(dataDir, 'index', 'dag', dag, ...bucketPath(createdMs));
  try {
    return statSync(path.join(dir, markerName(createdMs, runId, null))).mtimeMs;
  } catch {
    return NaN;
  }
}

// ---- figures ----

const maxOf = (v: number[]) => (v.length > 0 ? Math.max(...v) : NaN);
const minOf = (v: number[]) => (v.length > 0 ? Math.min(...v) : NaN);
/** The last run's end, or NaN (a miss) when some run did not succeed. */
const lastEnd = (t: Trial) => (t.succeeded === t.n ? maxOf(t.finished) : NaN);
/** What the CPU alone allows: every core busy with this work from the slot on, and nothing else. */
const cpuBound = (t: Trial) => (t.schedulerCpuMs + t.runsCpuMs) / CORES;

function print(t: Trial, label: string) {
  const target = targetsFor(t.n);
  const l = `${t.n} DAGs${label}`;
  const recordTarget: Target = {
    max: target.recordP99Ms,
    why: t.n === 200 ? 'issue 13' : '1 s per 200 DAGs',
  };
  report(`${l}: slot -> first record written`, minOf(t.recordWritten), 'ms', 'reference');
  report(`${l}: slot -> record written p50`, percentile(t.recordWritten, 50), 'ms', 'reference');
  check(`${l}: slot -> record written p99`, percentile(t.recordWritten, 99), 'ms', recordTarget);
  report(`${l}: slot -> record written max`, maxOf(t.recordWritten), 'ms', 'reference');
  report(`  created_at stamped (before the write): p99`, percentile(t.recordStamped, 99), 'ms', 'reference');
  report(`${l}: slot -> run taken over p50`, percentile(t.started, 50), 'ms', 'reference');
  report(`${l}: slot -> run taken over p99`, percentile(t.started, 99), 'ms', 'reference');
  report(`${l}: slot -> finished p50`, percentile(t.finished, 50), 'ms', 'reference');
  report(`${l}: slot -> finished p99`, percentile(t.finished, 99), 'ms', 'reference');
  if (target.finishedMaxMs === null) report(`${l}: slot -> all finished`, lastEnd(t), 'ms', 'report only');
  else check(`${l}: slot -> all finished`, lastEnd(t), 'ms', { max: target.finishedMaxMs, why: 'issue 13' });
  check(`${l}: runs that did not succeed`, t.n - t.succeeded, 'runs', { exactly: 0 });
  report(`${l}: succeeded runs per second`, (t.succeeded * 1000) / maxOf(t.finished), 'runs/s', 'reference');
  report(`  scheduler CPU from the slot on`, t.schedulerCpuMs, 'ms', 'reference');
  report(`  scheduler CPU per run`, t.schedulerCpuMs / t.n, 'ms', 'reference');
  report(`  run process CPU per run (with its step)`, t.runsCpuMs / t.n, 'ms', 'reference');
  report(`  all that CPU over ${CORES} cores (floor of all finished)`, cpuBound(t), 'ms', 'reference');
}

/** How the figures grow from the smallest N run to each larger one (medians over the repeats). */
function printGrowth(trials: Trial[]) {
  const sizes = [...new Set(trials.map((t) => t.n))].sort((a, b) => a - b);
  if (sizes.length < 2) return;
  const med = (n: number, f: (t: Trial) => number) => median(trials.filter((t) => t.n === n).map(f));
  const figures: Array<[string, (t: Trial) => number]> = [
    ['record written p99', (t) => percentile(t.recordWritten, 99)],
    ['all finished', lastEnd],
    ['CPU floor of all finished', cpuBound],
    ['run process CPU per run', (t) => t.runsCpuMs / t.n],
    ['scheduler CPU per run', (t) => t.schedulerCpuMs / t.n],
  ];
  const [base, ...larger] = sizes;
  for (const n of larger)
    for (const [name, f] of figures)
      report(
        `growth ${base} -> ${n} DAGs (x${n / base}): ${name}`,
        med(n, f) / med(base, f),
        'x',
        'reference',
      );
}

const t0 = performance.now();
// The machine is shared: a busy CPU stretches every figure here, so the load is printed with them.
report(`load average (1 min) at start, ${CORES} cores`, loadavg()[0], '', 'reference');
// Runs per run host as the scheduler will read it (0 or 1: every run in a process of its own).
report(
  'run.host_max_runs (DAGU_RUN_HOST_MAX_RUNS, default 32)',
  Number(process.env.DAGU_RUN_HOST_MAX_RUNS ?? 32),
  'runs',
  'reference',
);
const trials: Trial[] = [];
for (const n of SIZES.length > 0 ? SIZES : [200, 1000]) {
  for (let i = 0; i < REPEAT; i++) {
    const label = REPEAT > 1 ? ` (#${i + 1})` : '';
    try {
      const t = await trial(n);
      trials.push(t);
      print(t, label);
    } catch (err) {
      missed(`${n} DAGs${label}`, (err as Error).message);
    }
  }
}
printGrowth(trials);
report('load average (1 min) at end', loadavg()[0], '', 'reference');
report('scale benchmarks, wall time', (performance.now() - t0) / 1000, 's', 'reference');
finish();
