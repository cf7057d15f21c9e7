// Issue-2 figures on this machine: `dagu start` latency, queue drain rate, run-list API latency with
// 10,000 runs in history, idle memory of the scheduler (with and without a pre-started run process) and
// start-all, and what the pre-started run process gains a scheduled slot. Each figure is printed next to its
// target; the script exits 1 when one is missed.
// Run: npm run bench -- foundation   (or: node --import tsx bench/foundation.bench.ts [figure])

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { newRunStatus, isoUtc } from '../server/core/runStatus';
import type { DagSpec, RunState } from '../server/core/types';
import { findRelayTools } from '../server/runner/launchRelay';
import { FileRunStore } from '../server/store/fileRunStore';
import {
  check,
  descendants,
  finish,
  freePort,
  median,
  missed,
  percentile,
  report,
  rssMb,
  runSync,
  sleep,
  startProcess,
  stopProcess,
  tempHome,
  treeRssMb,
  waitHttp,
} from './lib';

const ONE_STEP = 'steps:\n  - name: t\n    command: "true"\n';

/**
 * `dagu start` of a one-step DAG against a bare `node -e ''`, run alternately so both see the same load on
 * this shared machine. Both start without NODE_EXTRA_CA_CERTS (Node reads that bundle before any script
 * runs, about 80 ms in this sandbox): the target is a guard against regressions in our own start-up.
 */
async function startLatency() {
  const h = tempHome();
  h.writeDag('one', ONE_STEP);
  // What the scheduler starts: the same run of a DAG with a schedule, whose cron field is checked too.
  h.writeDag('cron', `schedule: "*/5 * * * *"\n${ONE_STEP}`);
  const { NODE_EXTRA_CA_CERTS: _ca, ...env } = h.env;
  runSync(['start', '-q', 'one'], env); // warm the page cache and the DAG cache
  const times: number[] = [];
  const scheduled: number[] = [];
  const bare: number[] = [];
  let failed = 0;
  const timed = (dag: string, into: number[]) => {
    const t0 = performance.now();
    const r = runSync(['start', '-q', dag], env);
    into.push(performance.now() - t0);
    if (r.status !== 0) failed++;
  };
  for (let i = 0; i < 10; i++) {
    timed('one', times);
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', ''], { env });
    bare.push(performance.now() - t0);
    timed('cron', scheduled);
  }
  const bareMs = median(bare);
  check('dagu start, one-step DAG, median of 10', median(times), 'ms', {
    max: 2.5 * bareMs,
    why: "2.5 x bare node -e '' in this run",
  });
  report("  bare node -e '', median of 10", bareMs, 'ms', 'reference');
  report('  dagu start / bare node', median(times) / bareMs, 'x', 'reference');
  report('  the same DAG with a schedule, median of 10', median(scheduled), 'ms', 'reference');
  check('  dagu start runs that failed', failed, 'runs', { exactly: 0 });
  h.cleanup();
}

async function queueDrain() {
  const h = tempHome({ DAGU_QUEUES_ENABLED: 'true' });
  writeFileSync(
    path.join(h.home, 'config.yaml'),
    'queues:\n  config:\n    - name: drain\n      max_concurrency: 4\n',
  );
  h.writeDag('d', 'queue: drain\nsteps:\n  - name: t\n    command: "true"\n');
  for (let i = 0; i < 100; i++) {
    const r = runSync(['enqueue', 'd'], h.env);
    if (r.status !== 0) throw new Error(`enqueue failed: ${r.stderr}`);
  }
  const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
  const t0 = performance.now();
  const sched = startProcess(['scheduler'], h.env);
  // Watch for the end by listing two directories (queue items, active markers), not by reading 100 status
  // files every 100 ms: the measurement must not take CPU from the runs it measures.
  const dataDir = path.join(h.home, 'data');
  const entries = (dir: string) => {
    try {
      return readdirSync(path.join(dataDir, dir)).filter((n) => !n.startsWith('.')).length;
    } catch {
      return 0;
    }
  };
  while (entries('queue/drain') > 0 || entries('active') > 0) {
    await sleep(50);
    if (performance.now() - t0 > 120_000) break;
  }
  const secs = (performance.now() - t0) / 1000;
  await stopProcess(sched);
  const page = await store.listRuns({ dag: 'd', limit: 500 });
  const done = page.items.filter((r) => r.status === 'succeeded').length;
  // Throughput counts the runs that succeeded: a run that failed fast is no work done.
  check('queue drain, 100 one-step runs, max_concurrency 4', done / secs, 'runs/s', { min: 13 });
  check('  runs of the 100 that did not succeed', 100 - done, 'runs', { exactly: 0 });
  h.cleanup();
}

const STATES: RunState[] = ['succeeded', 'failed', 'succeeded', 'aborted', 'succeeded'];

async function runListApi() {
  const h = tempHome();
  h.writeDag('hist', 'steps:\n  - name: t\n    command: "true"\n');
  const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
  const dag = {
    name: 'hist',
    queue: 'hist',
    steps: [{ name: 't' }],
    worker_selector: null,
  } as unknown as DagSpec;
  const base = Date.now() - 10_000 * 60_000;
  for (let i = 0; i < 10_000; i++) {
    const s = newRunStatus({
      dag,
      runId: `hist-${i.toString().padStart(5, '0')}-${randomBytes(2).toString('hex')}`,
      status: STATES[i % STATES.length],
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: isoUtc(base + i * 60_000),
    });
    await store.createRun(s);
  }
  const port = await freePort();
  const server = startProcess(['server', '--port', String(port)], h.env);
  await waitHttp(`http://127.0.0.1:${port}/api/v1/health`);
  const url = `http://127.0.0.1:${port}/api/v1/runs?limit=50`;
  for (let i = 0; i < 20; i++) await (await fetch(url)).json(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const t0 = performance.now();
    const body = (await (await fetch(url)).json()) as { items: unknown[] };
    times.push(performance.now() - t0);
    if (body.items.length !== 50) throw new Error(`expected 50 runs, got ${body.items.length}`);
  }
  check('run list API, first page of 50, 10k runs: p50', percentile(times, 50), 'ms', { max: 10 });
  check('run list API, first page of 50, 10k runs: p99', percentile(times, 99), 'ms', { max: 30 });
  await stopProcess(server);
  h.cleanup();
}

/** RSS of a service and every process it started (a waiting pre-started run process included). */
function reportTree(label: string, pid: number, maxMb: number, expectProcesses: number) {
  const tree = treeRssMb(pid);
  check(`${label}`, tree.mb, 'MB', { max: maxMb });
  report(`  the scheduler process alone`, rssMb(pid), 'MB', 'reference');
  for (const child of descendants(pid)) {
    if (readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').includes('dagu-launch-relay')) {
      report(`  the launch relay (shell)`, rssMb(child), 'MB', 'reference');
    }
  }
  if (tree.processes !== expectProcesses) {
    missed(label, `${tree.processes} processes in the tree, expected ${expectProcesses}`);
  }
}

async function idleMemory() {
  const h = tempHome();
  h.writeDag('every', `schedule: "* * * * *"\n${ONE_STEP}`);
  for (const prestart of [false, true]) {
    const sched = startProcess(['scheduler'], { ...h.env, DAGU_RUN_PRESTART: String(prestart) });
    await sleep(5000);
    reportTree(
      `dagu scheduler idle RSS, process tree, ${prestart ? 'with' : 'no'} spare`,
      sched.pid!,
      prestart ? 100 : 64,
      // The scheduler, its launch relay (where a shell and setsid are installed) and, with prestart, the spare.
      1 + (findRelayTools() ? 1 : 0) + (prestart ? 1 : 0),
    );
    await stopProcess(sched);
  }
  const port = await freePort();
  // With the default settings: a pre-started run process only if run.prestart is on by default.
  const all = startProcess(['start-all', '--port', String(port)], h.env);
  await waitHttp(`http://127.0.0.1:${port}/api/v1/health`);
  await fetch(`http://127.0.0.1:${port}/`);
  await sleep(5000);
  const tree = treeRssMb(all.pid!);
  check('dagu start-all idle RSS, whole process tree', tree.mb, 'MB', { max: 160 });
  report(`  processes in the tree (default settings)`, tree.processes, '', 'reference');
  await stopProcess(all);
  h.cleanup();
}

/**
 * Slot → first step of an every-second DAG, with and without a pre-started run process: the scheduler runs
 * for `seconds` in each mode, the modes alternating over a few rounds so that both see the same load. Only
 * slots whose run succeeded count.
 */
async function spareLatency() {
  const rounds = 3;
  const seconds = 12;
  const toStep: Record<'with' | 'without', number[]> = { with: [], without: [] };
  let failed = 0;
  let missing = 0;
  for (let round = 0; round < rounds; round++) {
    const order: Array<'with' | 'without'> = round % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
    for (const mode of order) {
      const r = await slotLatencies(mode === 'with', seconds);
      toStep[mode].push(...r.toStepMs);
      failed += r.failed;
      missing += r.missing;
    }
  }
  for (const mode of ['with', 'without'] as const) {
    const label = `slot -> first step, ${mode} a spare (${toStep[mode].length} slots)`;
    report(`${label}: p50`, percentile(toStep[mode], 50), 'ms', 'reference');
    report(`${label}: p99`, percentile(toStep[mode], 99), 'ms', 'reference');
  }
  report(
    '  gain of the spare, p50',
    percentile(toStep.without, 50) - percentile(toStep.with, 50),
    'ms',
    'reference',
  );
  report(
    '  gain of the spare, p99',
    percentile(toStep.without, 99) - percentile(toStep.with, 99),
    'ms',
    'reference',
  );
  check('  slots whose run did not succeed', failed, 'runs', { exactly: 0 });
  // A slot whose DAG still runs the previous one is skipped (overlap_policy skip): a sign of load here.
  report('  slots skipped or missed', missing, 'slots', 'reference');
}

async function slotLatencies(prestart: boolean, seconds: number) {
  const h = tempHome({ DAGU_RUN_PRESTART: String(prestart) });
  h.writeDag('every', `schedule: "* * * * * *"\n${ONE_STEP}`);
  const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
  const sched = startProcess(['scheduler'], h.env);
  // Past the start-up: the scheduler active and, with prestart, its first spare loaded.
  const fromMs = Date.now() + 3000;
  await sleep(3000 + seconds * 1000);
  const toMs = Date.now() - 1000; // the last second's run may still be starting
  const spares = descendants(sched.pid!).filter(isSpare).length;
  await stopProcess(sched);
  const deadline = Date.now() + 10_000;
  while ((await store.listActive()).length > 0 && Date.now() < deadline) await sleep(100);
  const toStepMs: number[] = [];
  let failed = 0;
  let runs = 0;
  const page = await store.listRuns({ dag: 'every', limit: 500 });
  for (const item of page.items) {
    const r = await store.readStatus(item.run_id);
    if (r.kind !== 'ok' || r.status.trigger_type !== 'scheduler') continue;
    const slot = Date.parse(r.status.schedule_time!);
    if (slot < fromMs || slot > toMs) continue;
    runs++;
    const step = r.status.steps[0]?.started_at;
    if (r.status.status !== 'succeeded' || !step) failed++;
    else toStepMs.push(Date.parse(step) - slot);
  }
  const expected = Math.floor(toMs / 1000) - Math.ceil(fromMs / 1000) + 1;
  if (prestart !== spares > 0) {
    missed(`slot latency ${prestart ? 'with' : 'without'} a spare`, `${spares} pre-started run processes`);
  }
  h.cleanup();
  return { toStepMs, failed, missing: Math.max(0, expected - runs) };
}

function isSpare(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('__spare-run');
  } catch {
    return false;
  }
}

const which = process.argv[2];
const all: Record<string, () => Promise<void>> = {
  startLatency,
  queueDrain,
  runListApi,
  idleMemory,
  spareLatency,
};
for (const [name, fn] of Object.entries(all)) {
  if (which && which !== name) continue;
  try {
    await fn();
  } catch (err) {
    missed(name, (err as Error).message);
  }
}
finish();
