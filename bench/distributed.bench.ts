// Issue-4 figures on real `bin/dagu coordinator` and `bin/dagu worker` processes: a matching worker's
// registration to its held run starting, a cancel to the held task being gone, dispatch throughput of
// one-step runs on 4 workers of 4 slots, and the coordinator's memory with 1,000 held tasks.
// Runs are dispatched from this process through the same Dispatcher and file stores as `dagu start`.
// Each figure is printed next to its target; the script exits 1 when one is missed.
// With --backend postgres every process keeps its state in a throwaway PostgreSQL (issue 18's targets).
// Run: npm run bench -- distributed [--quick] [--verbose] [--backend postgres]
//  or: node --import tsx bench/distributed.bench.ts [registration|cancel|throughput|memory] [--quick] [--verbose] [--backend postgres]

import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import path from 'node:path';
import { createServices, type Services } from '../server/api/services';
import { openControlPlane } from '../server/cli/openControlPlane';
import { silentLogger } from '../server/core/ports';
import type { ControlPlane } from '../server/store/controlPlane';
import { startPostgresCluster, type PostgresCluster } from '../server/testing/postgresCluster';
import { systemClock } from '../server/core/clock';
import { loadConfig } from '../server/config/loadConfig';
import type { Labels } from '../server/core/distributed';
import type { DagSpec } from '../server/core/types';
import { COORDINATOR_PATHS } from '../server/coordinator/protocol';
import { newRunDispatch } from '../server/core/dispatcherApi';
import { loadDag } from '../server/store/dagCatalog';
import type { WorkerRecord } from '../server/store/dispatchTypes';
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
  treeCpuMs,
  treeRssMb,
  type TrackedProcess,
} from './lib';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const VERBOSE = args.includes('--verbose');
const BACKEND = args.includes('--backend') ? args[args.indexOf('--backend') + 1] : 'file';
if (BACKEND !== 'file' && BACKEND !== 'postgres')
  throw new Error(`--backend ${BACKEND}: use file or postgres`);
const PG = BACKEND === 'postgres';
const which = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--backend');
const TRIALS = QUICK ? 5 : 20;
/** Poll period of the task-file and run-status checks: the resolution of the latencies below. */
const POLL_MS = 2;

// ---- processes and homes, always cleaned up (also on Ctrl-C) ----

type Proc = TrackedProcess;

const live = new Set<ChildProcess>();
const homes = new Set<string>();

let pgCluster: Promise<PostgresCluster> | null = null;
let pgSchemas = 0;

/** The environment of a home on a fresh schema of one throwaway PostgreSQL (started on first use). */
async function pgEnv(): Promise<Record<string, string>> {
  pgCluster ??= startPostgresCluster();
  return {
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: (await pgCluster).url,
    DAGU_POSTGRES_SCHEMA: `bench_${process.pid}_${++pgSchemas}`,
  };
}

process.once('SIGINT', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const h of homes) rmSync(h, { recursive: true, force: true });
  process.exit(130);
});
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

function startProc(args: string[], env: NodeJS.ProcessEnv): Proc {
  return startTracked(args, env, live);
}

async function kill(p: Proc, signal: NodeJS.Signals = 'SIGKILL') {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill(signal);
  const force = setTimeout(() => p.child.kill('SIGKILL'), 12_000);
  await p.exited;
  clearTimeout(force);
}

/** Polls `fn` every `everyMs` until it returns a value that is not null. */
async function until<T>(
  fn: () => T | null | Promise<T | null>,
  timeoutMs: number,
  what: string,
  everyMs = POLL_MS,
) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** A home with a coordinator on a free port; `body` gets it, and everything is stopped afterwards. */
class Cluster {
  readonly procs: Proc[] = [];
  coordinator!: Proc;
  services!: Services;
  dag!: DagSpec;

  constructor(
    readonly home: string,
    readonly env: NodeJS.ProcessEnv,
    readonly url: string,
  ) {}

  get dataDir() {
    return path.join(this.home, 'data');
  }

  async startCoordinator() {
    this.coordinator = startProc(['coordinator'], this.env);
    this.procs.push(this.coordinator);
    await until(
      async () => {
        if (this.coordinator.child.exitCode !== null)
          throw new Error(`coordinator exited:\n${this.coordinator.tail()}`);
        try {
          return (await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(1000) })).ok ? true : null;
        } catch {
          return null;
        }
      },
      20_000,
      'coordinator /health',
      50,
    );
  }

  startWorker(id: string, labels: Labels, maxActiveRuns = 4): Proc {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const p = startProc(
      [
        'worker',
        '--id',
        id,
        '--labels',
        text,
        '--max-active-runs',
        String(maxActiveRuns),
        '--coordinator',
        this.url,
      ],
      { ...this.env, DAGU_WORKER_WORK_DIR: path.join(this.home, 'workers', id) },
    );
    this.procs.push(p);
    return p;
  }

  workerRecord(id: string): Promise<WorkerRecord | null> {
    return this.services.workers.get(id).catch(() => null);
  }

  /** Dispatches a run of the cluster's DAG with `selector` (held while no worker matches it). */
  async dispatch(runId: string, selector: Labels) {
    const r = await this.services.dispatcher.dispatch(newRunDispatch(this.dag, runId, { selector }));
    if (r.outcome === 'refused') throw new Error(`dispatch of ${runId} refused: ${r.error}`);
    return r;
  }

  async runStatus(runId: string) {
    const r = await this.services.runs.readStatus(runId);
    return r.kind === 'ok' ? r.status : null;
  }
}

async function withCluster(extra: Record<string, string>, body: (c: Cluster) => Promise<void>) {
  const port = await freePort();
  const h = tempHome({
    DAGU_COORDINATOR_PORT: String(port),
    DAGU_COORDINATOR_URL: `http://127.0.0.1:${port}`,
    ...(PG ? await pgEnv() : {}),
    ...extra,
  });
  homes.add(h.home);
  h.writeDag('one', 'worker_selector:\n  pool: bench\nsteps:\n  - name: s\n    command: "true"\n');
  const c = new Cluster(h.home, h.env, `http://127.0.0.1:${port}`);
  let stores: ControlPlane | null = null;
  try {
    const config = loadConfig({ env: h.env });
    stores = await openControlPlane(config, silentLogger);
    c.services = createServices(config, undefined, { clock: systemClock, env: process.env, stores });
    const loaded = await loadDag(config.paths.dags_dir, 'one');
    if (!loaded.ok) throw new Error('the bench DAG does not load');
    c.dag = loaded.dag;
    await c.startCoordinator();
    await body(c);
  } finally {
    await Promise.all(c.procs.map((p) => kill(p)));
    await stores?.close();
    h.cleanup();
    homes.delete(h.home);
  }
}

function printLatencies(label: string, ms: number[], maxP99Ms: number) {
  report(`${label}: p50`, percentile(ms, 50), 'ms', 'reference');
  check(`${label}: p99`, percentile(ms, 99), 'ms', { max: maxP99Ms });
  report(`${label}: max`, Math.max(...ms), 'ms', 'reference');
}

// ---- figures ----

/** Held run per trial (its own selector); a worker with those labels starts; registered_at → started_at. */
async function registration() {
  const toStart: number[] = [];
  const spawnToRegistered: number[] = [];
  await withCluster({ DAGU_COORDINATOR_DETECTION_INTERVAL: '1s' }, async (c) => {
    for (let i = 0; i < TRIALS; i++) {
      const runId = `reg-${i}`;
      const selector = { trial: String(i) };
      const held = await c.dispatch(runId, selector);
      if (held.outcome !== 'held') throw new Error(`${runId} was not held (${held.outcome})`);
      const spawnedMs = Date.now();
      const w = c.startWorker(`w-${i}`, selector);
      const started = await until(
        async () => {
          const s = await c.runStatus(runId);
          return s?.started_at ? s : null;
        },
        20_000,
        `${runId} starting\n${w.tail()}`,
        5,
      );
      const rec = await c.workerRecord(`w-${i}`);
      if (!rec) throw new Error(`no worker record for w-${i}`);
      const ms = Date.parse(started.started_at!) - rec.registered_at_ms;
      toStart.push(ms);
      spawnToRegistered.push(rec.registered_at_ms - spawnedMs);
      if (VERBOSE) process.stdout.write(`  ${runId}: registered -> started ${ms} ms\n`);
      await kill(w);
    }
  });
  // Issue 18 asks a held run to start within 200 ms of a matching worker's poll on PostgreSQL (with NOTIFY).
  printLatencies(`registered -> held run started (${toStart.length})`, toStart, PG ? 200 : 500);
  report('  worker process spawned -> registered: p50', median(spawnToRegistered), 'ms', 'reference');
}

/** Held run per trial; cancelled through the coordinator API, then through `dagu stop`; → task file gone. */
async function cancel() {
  const viaApi: number[] = [];
  const viaCli: number[] = [];
  await withCluster({ DAGU_COORDINATOR_DETECTION_INTERVAL: '1s' }, async (c) => {
    // A polling worker that matches none of the held runs.
    c.startWorker('bystander', { zone: 'a' });
    await until(() => c.workerRecord('bystander'), 20_000, 'bystander registering', 50);
    for (let i = 0; i < 2 * TRIALS; i++) {
      const runId = `cancel-${i}`;
      await c.dispatch(runId, { zone: 'b' });
      const task = await c.services.tasks.findByRun(runId);
      if (!task) throw new Error(`no task for ${runId}`);
      const useApi = i % 2 === 0;
      const t0 = performance.now();
      let cli: Proc | null = null;
      if (useApi) {
        const r = await fetch(`${c.url}${COORDINATOR_PATHS.cancel(runId)}`, { method: 'POST' });
        if (!r.ok) throw new Error(`cancel of ${runId} answered ${r.status}: ${await r.text()}`);
      } else {
        cli = startProc(['stop', runId], c.env);
      }
      await until(
        async () => ((await c.services.tasks.findByRun(runId)) ? null : true),
        10_000,
        `task of ${runId} gone`,
        1,
      );
      (useApi ? viaApi : viaCli).push(performance.now() - t0);
      if (cli) await cli.exited;
      const s = await c.runStatus(runId);
      if (s?.status !== 'aborted') throw new Error(`${runId} ended ${s?.status}, not aborted`);
    }
  });
  printLatencies(`cancel via coordinator API -> task gone (${viaApi.length})`, viaApi, 1000);
  printLatencies(`cancel via dagu stop (CLI start incl.) -> task gone (${viaCli.length})`, viaCli, 1000);
}

/** Transactions committed or rolled back so far on the bench's PostgreSQL (0 on files). */
async function transactions(): Promise<number> {
  if (!PG) return 0;
  const sql = "select xact_commit + xact_rollback from pg_stat_database where datname = 'postgres'";
  return Number(await (await pgCluster!).psql(sql));
}

/** Dispatches in flight at once from this process in the throughput figure. */
const DISPATCH_CONCURRENCY = 8;

/** The parts whose CPU time the throughput figure counts. */
const CPU_PARTS = ['coordinator', 'workers', 'postgres', 'bench'] as const;

interface ThroughputTrial {
  /** Runs that succeeded per second, first dispatch to last run finished. */
  rate: number;
  totalS: number;
  dispatchRate: number;
  startP50: number;
  /** CPU time per run of each part, ms. */
  cpu: Record<(typeof CPU_PARTS)[number], number>;
  transactions: number;
  failed: number;
}

/** Trials of the throughput figure: this host's speed drifts by a third between minutes, one trial misleads. */
const THROUGHPUT_TRIALS = QUICK ? 1 : 3;

/** 4 workers of 4 slots; N one-step runs dispatched at once; first dispatch → last run finished. */
async function throughputTrial(n: number): Promise<ThroughputTrial> {
  let trial: ThroughputTrial | null = null;
  await withCluster({}, async (c) => {
    const ids = ['t1', 't2', 't3', 't4'];
    for (const id of ids) c.startWorker(id, { pool: 'bench' }, 4);
    await until(
      async () => ((await Promise.all(ids.map((id) => c.workerRecord(id)))).every(Boolean) ? true : null),
      20_000,
      'workers registering',
      50,
    );
    const workers = c.procs.filter((p) => p !== c.coordinator);
    const pgPid = PG ? (await pgCluster!).serverPid() : null;
    const cpuNow = () => {
      const own = process.cpuUsage();
      return {
        coordinator: treeCpuMs(c.coordinator.child.pid!),
        workers: workers.reduce((sum, w) => sum + treeCpuMs(w.child.pid!), 0),
        postgres: pgPid === null ? 0 : treeCpuMs(pgPid),
        bench: (own.user + own.system) / 1000,
      };
    };
    const cpu0 = cpuNow();
    const x0 = await transactions();
    const t0Wall = Date.now();
    const t0 = performance.now();
    // A few dispatches in flight, as several clients would: one at a time, the fsyncs of each bound the rate.
    let next = 0;
    const dispatcher = async () => {
      for (let i = next++; i < n; i = next++) {
        const r = await c.dispatch(`tp-${i}`, { pool: 'bench' });
        if (r.outcome !== 'dispatched') throw new Error(`tp-${i} was ${r.outcome}`);
      }
    };
    await Promise.all(Array.from({ length: DISPATCH_CONCURRENCY }, dispatcher));
    const dispatchMs = performance.now() - t0;
    await until(
      async () => ((await c.services.runs.listActive()).length === 0 ? true : null),
      300_000,
      'all runs ending',
      50,
    );
    const cpu1 = cpuNow();
    const x1 = await transactions();
    let lastFinish = 0;
    let succeeded = 0;
    const startDelay: number[] = [];
    for (let i = 0; i < n; i++) {
      const s = await c.runStatus(`tp-${i}`);
      if (s?.status === 'succeeded') succeeded++;
      if (s?.finished_at) lastFinish = Math.max(lastFinish, Date.parse(s.finished_at));
      if (s?.started_at) startDelay.push(Date.parse(s.started_at) - Date.parse(s.created_at));
    }
    const totalS = (lastFinish - t0Wall) / 1000;
    trial = {
      // Throughput counts the runs that succeeded: a run that failed fast is no work done.
      rate: succeeded / totalS,
      totalS,
      dispatchRate: n / (dispatchMs / 1000),
      startP50: percentile(startDelay, 50),
      cpu: {
        coordinator: (cpu1.coordinator - cpu0.coordinator) / n,
        workers: (cpu1.workers - cpu0.workers) / n,
        postgres: (cpu1.postgres - cpu0.postgres) / n,
        bench: (cpu1.bench - cpu0.bench) / n,
      },
      transactions: (x1 - x0) / n,
      failed: n - succeeded,
    };
  });
  return trial!;
}

async function throughput() {
  const n = QUICK ? 200 : 400;
  const trials: ThroughputTrial[] = [];
  for (let i = 0; i < THROUGHPUT_TRIALS; i++) trials.push(await throughputTrial(n));
  const med = (f: (t: ThroughputTrial) => number) => median(trials.map(f));
  const of = THROUGHPUT_TRIALS > 1 ? `, median of ${THROUGHPUT_TRIALS}` : '';
  check(
    `${n} one-step runs, 4 workers x 4 slots: throughput${of}`,
    med((t) => t.rate),
    'runs/s',
    {
      min: PG ? 50 : 20,
      why: PG ? 'issue 18 on PostgreSQL' : undefined,
    },
  );
  if (THROUGHPUT_TRIALS > 1)
    trials.forEach((t, k) => report(`  trial ${k + 1}`, t.rate, 'runs/s', 'reference'));
  report(
    '  first dispatch -> last run finished',
    med((t) => t.totalS),
    's',
    'reference',
  );
  report(
    `  dispatch rate alone (${DISPATCH_CONCURRENCY} in flight)`,
    med((t) => t.dispatchRate),
    'runs/s',
    'reference',
  );
  report(
    '  dispatched -> started: p50',
    med((t) => t.startP50),
    'ms',
    'reference',
  );
  // Where the two cores went: CPU time per run of each part (the bench's own polling included), to show
  // which process bounds the rate. With both cores busy, the rate cannot pass 2,000 ms / (CPU per run).
  for (const part of CPU_PARTS) {
    if (part === 'postgres' && !PG) continue;
    report(
      `  CPU per run: ${part}`,
      med((t) => t.cpu[part]),
      'ms',
      'reference',
    );
  }
  const total = (t: ThroughputTrial) => CPU_PARTS.reduce((sum, part) => sum + t.cpu[part], 0);
  report('  CPU per run: all of them', med(total), 'ms', 'reference');
  if (PG)
    report(
      '  PostgreSQL transactions per run',
      med((t) => t.transactions),
      '',
      'reference',
    );
  check(
    '  runs that did not succeed (all trials)',
    trials.reduce((sum, t) => sum + t.failed, 0),
    'runs',
    { exactly: 0 },
  );
}

/** 1,000 held tasks, a polling worker that matches none, a few detector passes; VmRSS of the coordinator. */
async function memory() {
  const n = 1000;
  const intervalMs = 500;
  await withCluster(
    { DAGU_COORDINATOR_DETECTION_INTERVAL: `${intervalMs}ms`, DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '30m' },
    async (c) => {
      const pid = c.coordinator.child.pid!;
      await sleep(1000);
      const idle = treeRssMb(pid).mb;
      for (let i = 0; i < n; i++) {
        const r = await c.dispatch(`held-${i}`, { zone: 'b' });
        if (r.outcome !== 'held') throw new Error(`held-${i} was ${r.outcome}`);
      }
      c.startWorker('nomatch', { zone: 'a' });
      await until(() => c.workerRecord('nomatch'), 20_000, 'worker registering', 50);
      // Ten detector passes over the held tasks, the worker polling all along.
      const samples: number[] = [];
      const cpu0 = cpuMs(pid);
      const wall0 = performance.now();
      const end = performance.now() + 10 * intervalMs;
      while (performance.now() < end) {
        samples.push(treeRssMb(pid).mb);
        await sleep(100);
      }
      const cpuShare = (cpuMs(pid) - cpu0) / (performance.now() - wall0);
      const pending = (await c.services.tasks.listPending()).length;
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      check(`coordinator RSS with ${pending} held tasks: last`, samples.at(-1)!, 'MB', { max: 120 });
      check(`  max over 10 detector passes (every ${intervalMs} ms)`, Math.max(...samples), 'MB', {
        max: 120,
      });
      report('  peak (VmHWM)', hwm ? Number(hwm[1]) / 1024 : NaN, 'MB', 'reference');
      report('  idle coordinator, no tasks', idle, 'MB', 'reference');
      report('  coordinator CPU meanwhile (detector + polls)', cpuShare * 100, '% core', 'reference');
    },
  );
}

/** CPU time (user + system) a process has used, in ms (Linux /proc, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const all: Record<string, () => Promise<void>> = { registration, cancel, throughput, memory };
const t0 = performance.now();
// The machine is shared: a busy CPU stretches every figure here, so the load is printed with them.
report(`load average (1 min) at start, ${availableParallelism()} cores`, loadavg()[0], '', 'reference');
report(`storage backend: ${BACKEND}`, 0, '', 'reference');
for (const [name, fn] of Object.entries(all)) {
  if (which && which !== name) continue;
  try {
    await fn();
  } catch (err) {
    missed(name, (err as Error).message);
  }
}
report('load average (1 min) at end', loadavg()[0], '', 'reference');
report(
  'distributed benchmarks, wall time',
  (performance.now() - t0) / 1000,
  's',
  QUICK ? 'quick run' : 'full run',
);
// Set inside pgEnv(): TypeScript cannot see it here.
const startedPg = pgCluster as Promise<PostgresCluster> | null;
if (startedPg) await (await startedPg).stop();
finish();
