// Issue-17 figure for a DAG's page: with 10,000 runs of a 20-step DAG in history, the p99 latency of the two
// API calls the page makes (GET /api/v1/dags/:name and GET /api/v1/dags/:name/history?limit=30) on a real
// `dagu server`. The runs are written straight into the run store's file layout (status files and index
// markers, as FileRunStore writes them), which takes seconds rather than the minutes of 10,000 createRuns.
// Run: npm run bench -- history [--quick]

import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { DagDetail, DagHistory } from '../components/apiTypes';
import { DAG, STEPS, dagYaml, seedRun } from './seedHistory';
import {
  check,
  finish,
  freePort,
  missed,
  percentile,
  report,
  startTracked,
  tempHome,
  waitHttp,
  type TrackedProcess,
} from './lib';

const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 2000 : 10_000;
const SAMPLES = QUICK ? 100 : 300;
const live = new Set<ChildProcess>();

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

async function timeCalls(url: string, answers: (body: unknown) => boolean): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    const body = await getJson(url);
    times.push(performance.now() - t0);
    if (!answers(body)) throw new Error(`${url}: unexpected answer ${JSON.stringify(body).slice(0, 300)}`);
  }
  return times;
}

async function dagPage() {
  const h = tempHome();
  h.writeDag(DAG, dagYaml());
  const dataDir = path.join(h.home, 'data');
  const t0 = performance.now();
  // Five minutes apart, ending now: a schedule's history over a month.
  const start = Date.now() - RUNS * 5 * 60_000;
  for (let i = 0; i < RUNS; i++) seedRun(dataDir, i, start + i * 5 * 60_000);
  report(`seeding ${RUNS} runs of a ${STEPS}-step DAG`, performance.now() - t0, 'ms', 'reference');

  const port = await freePort();
  const proc: TrackedProcess = startTracked(
    ['server', '--host', '127.0.0.1', '--port', String(port)],
    h.env,
    live,
  );
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${base}/api/v1/health`, 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${proc.tail()}`, { cause: err });
  }
  const newest = `seed-${String(RUNS - 1).padStart(6, '0')}`;
  const detailUrl = `${base}/api/v1/dags/${DAG}`;
  const historyUrl = `${base}/api/v1/dags/${DAG}/history?limit=30`;
  const isDetail = (b: unknown) => (b as DagDetail).recent_runs[0]?.run_id === newest;
  const isHistory = (b: unknown) => {
    const hist = b as DagHistory;
    return hist.runs.length === 30 && hist.steps.length === STEPS && hist.runs[0].run_id === newest;
  };
  // The first call after start reads every status file it shows (nothing is cached yet).
  let c0 = performance.now();
  await getJson(historyUrl);
  report('history API, first call after start', performance.now() - c0, 'ms', 'reference');
  c0 = performance.now();
  await getJson(detailUrl);
  report('DAG API, first call after start', performance.now() - c0, 'ms', 'reference');
  for (let i = 0; i < 20; i++) {
    await getJson(detailUrl);
    await getJson(historyUrl);
  }
  const label = `${RUNS / 1000}k runs, ${STEPS}-step DAG`;
  const detail = await timeCalls(detailUrl, isDetail);
  report(`GET /dags/:name, ${label}: p50`, percentile(detail, 50), 'ms', 'reference');
  check(`GET /dags/:name, ${label}: p99`, percentile(detail, 99), 'ms', { max: 50 });
  const history = await timeCalls(historyUrl, isHistory);
  report(`GET /dags/:name/history?limit=30, ${label}: p50`, percentile(history, 50), 'ms', 'reference');
  check(`GET /dags/:name/history?limit=30, ${label}: p99`, percentile(history, 99), 'ms', { max: 50 });
  // What the page costs when both calls go out together, as the browser sends them.
  const both: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t = performance.now();
    await Promise.all([getJson(detailUrl), getJson(historyUrl)]);
    both.push(performance.now() - t);
  }
  check(`DAG page, both calls at once, ${label}: p99`, percentile(both, 99), 'ms', { max: 50 });
  proc.child.kill('SIGTERM');
  await proc.exited;
  h.cleanup();
}

try {
  await dagPage();
} catch (err) {
  missed('dag page', (err as Error).message);
} finally {
  for (const c of live) c.kill('SIGKILL');
}
finish();
