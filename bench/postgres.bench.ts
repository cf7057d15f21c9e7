// Issue-18 figures of storage.backend: postgres on this machine, with PostgreSQL local (a throwaway cluster
// from Debian's packages): the queue drain beside the file backend's, measured the same way in the same run;
// the run list's first page at 100,000 runs; takeover after kill -9 and a clean handover between two
// schedulers that share only the database. The dispatch figures (4 workers x 4 slots, held run -> started)
// are `npm run bench -- distributed --backend postgres`.
// Each figure is printed next to its target; the script exits 1 when one is missed.
// Run: npm run bench -- postgres [--quick]
//  or: node --import tsx bench/postgres.bench.ts [drain|list|failover] [--quick]

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { systemClock, systemTimers } from '../server/core/clock';
import { loadConfig } from '../server/config/loadConfig';
import { silentLogger } from '../server/core/ports';
import type { ControlPlane } from '../server/store/controlPlane';
import { fileControlPlane } from '../server/store/fileControlPlane';
import { pgControlPlane } from '../server/store/postgres/pgControlPlane';
import { runListKey } from '../server/store/runList';
import { startPostgresCluster, type PostgresCluster } from '../server/testing/postgresCluster';
import {
  DAGU,
  check,
  finish,
  hostCpuTicks,
  median,
  percentile,
  report,
  runSync,
  sleep,
  startProcess,
  stopProcess,
  tempHome,
  treeCpuMs,
} from './lib';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const which = args.find((a) => !a.startsWith('--'));
const TRIALS = QUICK ? 5 : 20;

let cluster: PostgresCluster | null = null;
let schemaN = 0;
const live = new Set<ChildProcess>();
const cleanups: Array<() => void> = [];
process.once('SIGINT', () => {
  for (const c of live) c.kill('SIGKILL');
  process.exit(130);
});

function pgEnv(schema = `bench_${++schemaN}`): Record<string, string> {
  return {
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: cluster!.url,
    DAGU_POSTGRES_SCHEMA: schema,
    DAGU_SKIP_EXAMPLES: 'true',
  };
}

async function planeOf(env: NodeJS.ProcessEnv): Promise<ControlPlane> {
  const config = loadConfig({ env });
  return config.storage.backend === 'postgres'
    ? pgControlPlane(config, silentLogger, systemClock, { by: 'bench', timers: systemTimers })
    : fileControlPlane(config, silentLogger, systemClock);
}

// ---- queue drain, both backends ----

interface Drained {
  rate: number;
  failed: number;
  /** CPU per run of the scheduler with its run lanes and run processes (those it has reaped), ms. */
  schedulerCpu: number;
  /** CPU per run of the PostgreSQL server and its backends, ms (0 on files). */
  postgresCpu: number;
  /** Share of the host's CPU time (both cores) left idle during the drain. */
  idle: number;
}

/** 100 one-step runs enqueued, then a scheduler drains them at max_concurrency 4: succeeded runs / s. */
async function drainOn(extra: Record<string, string>): Promise<Drained> {
  const h = tempHome({ DAGU_QUEUES_ENABLED: 'true', ...extra });
  cleanups.push(h.cleanup);
  writeFileSync(
    path.join(h.home, 'config.yaml'),
    'queues:\n  config:\n    - name: drain\n      max_concurrency: 4\n',
  );
  h.writeDag('d', 'queue: drain\nsteps:\n  - name: t\n    command: "true"\n');
  // On PostgreSQL the DAGs live in the database: the folder is pushed there, as an operator does.
  if (extra.DAGU_STORAGE_BACKEND === 'postgres') {
    const pushed = runSync(['dags', 'push', path.join(h.home, 'dags')], h.env);
    if (pushed.status !== 0) throw new Error(`dags push failed: ${pushed.stderr}`);
  }
  for (let i = 0; i < 100; i++) {
    const r = runSync(['enqueue', 'd'], h.env);
    if (r.status !== 0) throw new Error(`enqueue failed: ${r.stderr}`);
  }
  const cp = await planeOf(h.env);
  try {
    const pgPid = extra.DAGU_STORAGE_BACKEND === 'postgres' ? cluster!.serverPid() : null;
    const pg0 = pgPid === null ? 0 : treeCpuMs(pgPid);
    const host0 = hostCpuTicks();
    const t0 = performance.now();
    const sched = startProcess(['scheduler'], h.env);
    live.add(sched);
    // The end is seen from the queue and the active runs, not by reading 100 statuses every 100 ms.
    while ((await cp.queue.list('drain')).length > 0 || (await cp.runs.listActive()).length > 0) {
      await sleep(50);
      if (performance.now() - t0 > 180_000) break;
    }
    const secs = (performance.now() - t0) / 1000;
    const host1 = hostCpuTicks();
    const schedulerMs = treeCpuMs(sched.pid!);
    const pgMs = pgPid === null ? 0 : treeCpuMs(pgPid) - pg0;
    await stopProcess(sched);
    live.delete(sched);
    const page = await cp.runs.listRuns({ dag: 'd', limit: 500 });
    const done = page.items.filter((r) => r.status === 'succeeded').length;
    return {
      rate: done / secs,
      failed: 100 - done,
      // Per run enqueued, failed ones included: they cost the CPU too.
      schedulerCpu: schedulerMs / 100,
      postgresCpu: pgMs / 100,
      idle: 1 - (host1.busy - host0.busy) / (host1.all - host0.all),
    };
  } finally {
    await cp.close();
  }
}

/** Drains per backend, taken in turn (files, PostgreSQL, files, ...) so that a slow spell of the host hits both. */
const DRAIN_TRIALS = QUICK ? 1 : 3;

async function drain() {
  const file: Drained[] = [];
  const pg: Drained[] = [];
  let failed = 0;
  for (let i = 0; i < DRAIN_TRIALS; i++) {
    const f = await drainOn({});
    const p = await drainOn(pgEnv());
    file.push(f);
    pg.push(p);
    failed += f.failed + p.failed;
  }
  const trials = DRAIN_TRIALS > 1 ? `, median of ${DRAIN_TRIALS}` : '';
  const fileRate = median(file.map((d) => d.rate));
  report(
    `queue drain, 100 one-step runs, max_concurrency 4: files${trials}`,
    fileRate,
    'runs/s',
    'reference',
  );
  check(
    `queue drain, 100 one-step runs, max_concurrency 4: PostgreSQL${trials}`,
    median(pg.map((d) => d.rate)),
    'runs/s',
    { min: fileRate * 0.95, why: "the file backend's in this run (5% noise allowed)" },
  );
  // Where the two cores went, to tell a drain bound by the CPU (no idle left) from one bound by waiting.
  for (const [name, runs] of [
    ['files', file],
    ['PostgreSQL', pg],
  ] as const) {
    report(
      `  ${name}: CPU per run, scheduler and its runs`,
      median(runs.map((d) => d.schedulerCpu)),
      'ms',
      'reference',
    );
    if (name === 'PostgreSQL')
      report(
        `  ${name}: CPU per run, PostgreSQL server`,
        median(runs.map((d) => d.postgresCpu)),
        'ms',
        'reference',
      );
    report(`  ${name}: host CPU left idle`, 100 * median(runs.map((d) => d.idle)), '%', 'reference');
  }
  check('  runs that did not succeed (files + PostgreSQL, all trials)', failed, 'runs', { exactly: 0 });
}

// ---- the run list at 100,000 runs ----

/** 100,000 finished runs of 20 DAGs over 100 days, inserted in bulk in the store's own row format. */
async function seedRuns(cp: ControlPlane, schema: string, n: number): Promise<void> {
  const pg = (await import('pg')).default;
  const pool = new pg.Pool({ connectionString: cluster!.url, max: 2 });
  try {
    const day = 86_400_000;
    const t0 = Date.now() - 100 * day;
    const batch = 5000;
    for (let from = 0; from < n; from += batch) {
      const rows: unknown[][] = [];
      for (let i = from; i < Math.min(n, from + batch); i++) {
        const created = t0 + Math.floor((i * 100 * day) / n);
        const runId = `seed-${String(i).padStart(6, '0')}`;
        const dag = `dag${i % 20}`;
        const status = i % 7 === 0 ? 'failed' : 'succeeded';
        const iso = new Date(created).toISOString();
        const summary = {
          dag_name: dag,
          run_id: runId,
          attempt: 1,
          status,
          trigger_type: 'scheduler',
          schedule_time: iso,
          queue: dag,
          created_at: iso,
          queued_at: null,
          started_at: iso,
          finished_at: new Date(created + 1500).toISOString(),
          error: null,
        };
        rows.push([runId, dag, runListKey(created, runId), created, status, JSON.stringify(summary)]);
      }
      const values = rows
        .map(
          (_, r) =>
            `($${r * 6 + 1}, $${r * 6 + 2}, $${r * 6 + 3}, $${r * 6 + 4}, 1, $${r * 6 + 5}, 'scheduler', $${r * 6 + 6}::json)`,
        )
        .join(',');
      await pool.query(
        `insert into ${schema}.runs (run_id, dag_name, list_key, created_ms, latest_attempt, status, trigger_type, summary) values ${values}`,
        rows.flat(),
      );
    }
    await pool.query(`analyze ${schema}.runs`);
  } finally {
    await pool.end();
  }
  void cp;
}

async function list() {
  const schema = `bench_list_${process.pid}`;
  const h = tempHome(pgEnv(schema));
  cleanups.push(h.cleanup);
  const cp = await planeOf(h.env);
  try {
    const n = QUICK ? 20_000 : 100_000;
    const t0 = performance.now();
    await seedRuns(cp, schema, n);
    report(`  seeding ${n} runs`, (performance.now() - t0) / 1000, 's', 'reference');
    const measure = async (q: Parameters<ControlPlane['runs']['listRuns']>[0], times: number) => {
      const ms: number[] = [];
      for (let i = 0; i < times; i++) {
        const s = performance.now();
        const page = await q;
        const r = await cp.runs.listRuns(page);
        if (r.items.length === 0) throw new Error('an empty first page');
        ms.push(performance.now() - s);
      }
      return ms;
    };
    const first = await measure({ limit: 50 }, 300);
    check(`run list first page at ${n} runs: p99`, percentile(first, 99), 'ms', { max: 30 });
    report('  p50', percentile(first, 50), 'ms', 'reference');
    const byDag = await measure({ limit: 50, dag: 'dag7' }, 300);
    check(`run list first page of one DAG at ${n} runs: p99`, percentile(byDag, 99), 'ms', { max: 30 });
    const failed = await measure({ limit: 50, status: 'failed' }, 300);
    check(`run list first page of failed runs at ${n} runs: p99`, percentile(failed, 99), 'ms', {
      max: 30,
    });
    // A deep page: the cursor of page 100 (keyset, so as fast as the first).
    let cursor: string | undefined;
    for (let p = 0; p < 100; p++)
      cursor = (await cp.runs.listRuns({ limit: 50, cursor })).next_cursor ?? undefined;
    const deep = await measure({ limit: 50, cursor }, 300);
    check(`run list page 101 at ${n} runs: p99`, percentile(deep, 99), 'ms', { max: 30 });
  } finally {
    await cp.close();
  }
}

// ---- failover between two schedulers that share only the database ----

interface Sched {
  child: ChildProcess;
  out: string;
  exited: Promise<void>;
}

function spawnScheduler(env: NodeJS.ProcessEnv): Sched {
  const child = spawn(process.execPath, [DAGU, 'scheduler'], {
    env: { ...env, DAGU_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const s: Sched = {
    child,
    out: '',
    exited: new Promise((r) => child.once('exit', () => r())),
  };
  child.stdout?.on('data', (b: Buffer) => (s.out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (s.out += b.toString()));
  return s;
}

/** The time stamp of the first log record of `s` after `sinceMs` whose message matches. */
async function logTime(s: Sched, msg: RegExp, sinceMs: number, timeoutMs = 30_000): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    for (const line of s.out.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const rec = JSON.parse(line) as { msg?: string; time?: string };
        const t = rec.time ? Date.parse(rec.time) : NaN;
        if (rec.msg && msg.test(rec.msg) && t >= sinceMs) return t;
      } catch {
        // not a log record
      }
    }
    if (Date.now() > until) throw new Error(`no log ${msg} within ${timeoutMs} ms:\n${s.out.slice(-2000)}`);
    await sleep(5);
  }
}

async function failover() {
  const tMs = 3000;
  const rMs = 500;
  const homes = [0, 1].map(() =>
    tempHome({
      ...pgEnv(`bench_ha_${process.pid}`),
      DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: `${tMs}ms`,
      DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: `${rMs}ms`,
    }),
  );
  for (const h of homes) cleanups.push(h.cleanup);
  let n = 0;
  const next = () => spawnScheduler(homes[n++ % 2].env);
  let active = next();
  await logTime(active, /^Acquired the free scheduler lock$/, 0);
  let standby = next();
  await logTime(standby, /^Waiting as standby for the scheduler lock$/, 0);
  const takeover: number[] = [];
  const handover: number[] = [];
  try {
    for (let i = 0; i < 2 * TRIALS; i++) {
      // Let the standby see a few renewals, then a random part of I so trials sample every phase.
      await sleep(3 * rMs + Math.random() * (tMs / 4));
      const kill = i % 2 === 0;
      const at = Date.now();
      active.child.kill(kill ? 'SIGKILL' : 'SIGTERM');
      const took = await logTime(
        standby,
        kill
          ? /^Took over the scheduler lock from a failed instance$/
          : /^Acquired the released scheduler lock$/,
        at,
      );
      (kill ? takeover : handover).push(took - at);
      await active.exited;
      live.delete(active.child);
      active = standby;
      standby = next();
      await logTime(standby, /^Waiting as standby for the scheduler lock$/, 0);
    }
  } finally {
    for (const s of [active, standby]) s.child.kill('SIGKILL');
  }
  check(`takeover after kill -9, T=3s R=0.5s (${takeover.length}): p99`, percentile(takeover, 99), 'ms', {
    max: tMs + rMs + 500,
    why: 'T + R + 0.5s',
  });
  report('  p50', percentile(takeover, 50), 'ms', 'reference');
  check(`clean handover after SIGTERM (${handover.length}): p99`, percentile(handover, 99), 'ms', {
    max: rMs + 300,
    why: 'R + 0.3s',
  });
  report('  p50', percentile(handover, 50), 'ms', 'reference');
}

async function main() {
  cluster = await startPostgresCluster();
  try {
    const all: Record<string, () => Promise<void>> = { drain, list, failover };
    for (const [name, fn] of Object.entries(all)) if (!which || which === name) await fn();
  } finally {
    for (const c of live) c.kill('SIGKILL');
    for (const c of cleanups) c();
    await cluster.stop();
  }
  finish();
}

await main();
