// Issue-5 figures for the console's server on real `bin/dagu` processes: memory idle and after 1,000 API
// requests; latency of the overview and queue endpoints with 10,000 runs in history and 1,000 queued; and the
// time from a scheduler takeover to the console (a real Chromium on the overview page) showing it. Issue 17:
// the CPU and memory of `dagu start-all` with 20 browser tabs open on the overview for 60 s. Each figure
// is printed next to its target; the script exits 1 when one is missed.
// Run: npm run bench -- console [--quick]
//  or: node --import tsx bench/console.bench.ts [memory|latency|takeover|tabs] [--quick] [--compare]
//  (--compare: tabs also measured with the event stream blocked, the console polling as before, for reference)

import type { ChildProcess } from 'node:child_process';
import { chromium } from '@playwright/test';
import type { Overview, QueueListing } from '../components/apiTypes';
import { createServices } from '../server/api/services';
import { systemClock } from '../server/core/clock';
import { enqueueDag } from '../server/api/queue';
import { loadConfig } from '../server/config/loadConfig';
import { newRunStatus, isoUtc } from '../server/core/runStatus';
import type { DagSpec, RunState } from '../server/core/types';
import { randomHex } from '../server/store/randomHex';
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
  waitHttp,
  type TrackedProcess,
} from './lib';

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const which = args.find((a) => !a.startsWith('--'));
const live = new Set<ChildProcess>();

const CHROMIUM = process.env.DAGU_E2E_CHROMIUM ?? '/usr/bin/chromium';
const STATES: RunState[] = ['succeeded', 'failed', 'succeeded', 'aborted', 'succeeded'];
const ONE_STEP = 'steps:\n  - name: t\n    command: "true"\n';

async function startServer(env: NodeJS.ProcessEnv): Promise<{ proc: TrackedProcess; base: string }> {
  const port = await freePort();
  const proc = startTracked(['server', '--host', '127.0.0.1', '--port', String(port)], env, live);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitHttp(`${base}/api/v1/health`, 60_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${proc.tail()}`, { cause: err });
  }
  return { proc, base };
}

async function stop(p: TrackedProcess, signal: NodeJS.Signals = 'SIGTERM') {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** RSS of `dagu server` right after start (idle) and after 1,000 requests over the console's endpoints. */
async function memory() {
  const h = tempHome();
  h.writeDag('hello', ONE_STEP);
  h.writeDag('nightly', `schedule: "0 2 * * *"\n${ONE_STEP}`);
  const { proc, base } = await startServer(h.env);
  await fetch(`${base}/`);
  await sleep(3000);
  check('dagu server idle RSS, whole process tree', treeRssMb(proc.child.pid!).mb, 'MB', { max: 160 });
  const paths = [
    '/api/v1/overview',
    '/api/v1/queue',
    '/api/v1/workers',
    '/api/v1/dags',
    '/api/v1/runs?limit=50',
    '/api/v1/dags/hello',
    '/api/v1/session',
    '/metrics',
  ];
  for (let i = 0; i < 1000; i++) {
    const res = await fetch(`${base}${paths[i % paths.length]}`);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${paths[i % paths.length]}: HTTP ${res.status}`);
  }
  await sleep(1000);
  check('dagu server RSS after 1,000 API requests, tree', treeRssMb(proc.child.pid!).mb, 'MB', {
    max: 160,
  });
  await stop(proc);
  h.cleanup();
}

/**
 * Fills a home with 10,000 finished runs (written through the services, so the event log holds their
 * `dag.run.*` events as it would in production) and 1,000 queued runs, then times the two endpoints.
 */
async function latency() {
  const h = tempHome();
  h.writeDag('hist', ONE_STEP);
  h.writeDag('waiting', `queue: waiting\n${ONE_STEP}`);
  const svc = createServices(loadConfig({ env: h.env }), undefined, { clock: systemClock, env: h.env });
  const dag = {
    name: 'hist',
    queue: 'hist',
    steps: [{ name: 't' }],
    worker_selector: null,
  } as unknown as DagSpec;
  const history = QUICK ? 2000 : 10_000;
  const base = Date.now() - history * 60_000;
  for (let i = 0; i < history; i++) {
    const status = newRunStatus({
      dag,
      runId: `hist-${i.toString().padStart(5, '0')}-${randomHex(2)}`,
      status: STATES[i % STATES.length],
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: isoUtc(base + i * 60_000),
    });
    await svc.runs.createRun(status);
    await svc.runs.writeStatus(status);
  }
  const queued = QUICK ? 200 : 1000;
  for (let i = 0; i < queued; i++) await enqueueDag(svc, 'waiting', [`N=${i}`]);
  // A failover history the overview reads back.
  for (let i = 0; i < 20; i++) {
    await svc.events.append('scheduler.lock.acquired', {
      instance: `host-${i % 2}-1`,
      host: `host-${i % 2}`,
      pid: 100 + i,
      how: i === 0 ? 'fresh' : 'stale',
      epoch: i + 1,
      previous_instance: i === 0 ? null : `host-${(i + 1) % 2}-1`,
      previous_host: i === 0 ? null : `host-${(i + 1) % 2}`,
      gap_ms: i === 0 ? null : 3400,
      observed_gap_ms: i === 0 ? null : 3300,
    });
  }

  const { proc, base: url } = await startServer(h.env);
  const endpoints: Array<[string, string, (body: unknown) => boolean]> = [
    ['overview', '/api/v1/overview', (b) => (b as Overview).counts.queued === queued],
    ['queue', '/api/v1/queue', (b) => (b as QueueListing).total === queued],
  ];
  for (const [name, path, answers] of endpoints) {
    for (let i = 0; i < 20; i++) await getJson(`${url}${path}`); // warm-up
    const times: number[] = [];
    for (let i = 0; i < (QUICK ? 50 : 200); i++) {
      const t0 = performance.now();
      const body = await getJson(`${url}${path}`);
      times.push(performance.now() - t0);
      if (!answers(body)) throw new Error(`${path}: unexpected answer ${JSON.stringify(body).slice(0, 300)}`);
    }
    const label = `${name} API, ${history / 1000}k runs, ${queued} queued`;
    report(`${label}: p50`, percentile(times, 50), 'ms', 'reference');
    check(`${label}: p99`, percentile(times, 99), 'ms', { max: 50 });
  }
  await stop(proc);
  h.cleanup();
}

/**
 * Two schedulers and a server; a Chromium page on the overview. Each trial kills the active scheduler with
 * SIGKILL and measures from the moment the standby's /health?role=active first answers 200 (the takeover,
 * polled every 20 ms) to the moment the page's active-instance cell shows the new instance.
 */
async function takeover() {
  const h = tempHome({
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
    DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
  });
  const { proc: server, base } = await startServer(h.env);
  const ports = [await freePort(), await freePort()];
  const start = (i: number) => startTracked(['scheduler', '--scheduler-port', String(ports[i])], h.env, live);
  const scheds: TrackedProcess[] = [start(0), start(1)];
  const roleOf = async (i: number) => {
    try {
      const res = await fetch(`http://127.0.0.1:${ports[i]}/health`);
      return ((await res.json()) as { role?: string }).role ?? null;
    } catch {
      return null;
    }
  };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
  const page = await browser.newPage();
  await page.goto(`${base}/`);
  const samples: number[] = [];
  try {
    for (let trial = 0; trial < (QUICK ? 3 : 8); trial++) {
      // Wait for a settled pair: one active, one standby, and the page showing the active one.
      let active = -1;
      const settleBy = Date.now() + 30_000;
      while (active < 0) {
        if (Date.now() > settleBy)
          throw new Error(`no active/standby pair\n${scheds.map((s) => s.tail()).join('\n')}`);
        const roles = await Promise.all([roleOf(0), roleOf(1)]);
        if (roles.includes('active') && roles.includes('standby')) active = roles.indexOf('active');
        else await sleep(100);
      }
      const activeId = (await getJson(`${base}/api/v1/overview`)) as { active_instance: string | null };
      await page.waitForFunction(
        (id) => document.querySelector('[data-testid="active-instance"]')?.textContent?.trim() === id,
        activeId.active_instance,
        { timeout: 15_000 },
      );
      const standby = 1 - active;
      scheds[active].child.kill('SIGKILL');
      await scheds[active].exited;
      while ((await roleOf(standby)) !== 'active') await sleep(20);
      const tookOver = performance.now();
      await page.waitForFunction(
        (id) => {
          const t = document.querySelector('[data-testid="active-instance"]')?.textContent?.trim();
          return t !== undefined && t !== id && t !== 'none';
        },
        activeId.active_instance,
        { timeout: 15_000, polling: 10 },
      );
      samples.push(performance.now() - tookOver);
      scheds[active] = start(active);
    }
  } finally {
    await browser.close();
    for (const s of scheds) await stop(s, 'SIGKILL');
    await stop(server);
  }
  report('takeover → console shows it: p50', median(samples), 'ms', 'reference');
  check('takeover → console shows it: max', Math.max(...samples), 'ms', { max: 2000 });
  h.cleanup();
}

/**
 * `dagu start-all` (server and scheduler in one process) and 20 pages of one headless Chromium on the
 * overview, each following the event stream (one tab holds it for all); the CPU time of the process tree
 * over 60 s, and its RSS at the end.
 */
async function tabs() {
  const TABS = 20;
  const windowMs = QUICK ? 20_000 : 60_000;
  const measure = async (streamBlocked: boolean) => {
    const h = tempHome();
    h.writeDag('hello', ONE_STEP);
    h.writeDag('nightly', `schedule: "0 2 * * *"\n${ONE_STEP}`);
    const port = await freePort();
    const proc = startTracked(['start-all', '--host', '127.0.0.1', '--port', String(port)], h.env, live);
    const base = `http://127.0.0.1:${port}`;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      await waitHttp(`${base}/api/v1/health`, 60_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${proc.tail()}`);
      });
      const context = await browser.newContext();
      if (streamBlocked) await context.route('**/api/v1/events/stream', (r) => r.abort());
      const pages = [];
      for (let i = 0; i < TABS; i++) {
        const page = await context.newPage();
        await page.goto(`${base}/`);
        await page.getByTestId('active-instance').waitFor({ timeout: 30_000 });
        pages.push(page);
      }
      const want = streamBlocked ? 'down' : 'live';
      for (const page of pages) {
        await page.waitForFunction(
          (state) => {
            const s = document.documentElement.dataset.eventStream;
            return state === 'down' ? s !== 'live' : s === state;
          },
          want,
          { timeout: 30_000 },
        );
      }
      // Let the start settle (page loads, first polls), then measure a quiet window.
      await sleep(5000);
      const pid = proc.child.pid!;
      const cpu0 = treeCpuMs(pid);
      const t0 = performance.now();
      await sleep(windowMs);
      const cpuMs = treeCpuMs(pid) - cpu0;
      const elapsed = performance.now() - t0;
      const rss = treeRssMb(pid).mb;
      await context.close();
      return { cpuPct: (100 * cpuMs) / elapsed, rss };
    } finally {
      await browser.close();
      await stop(proc);
      h.cleanup();
    }
  };
  const label = `${TABS} tabs on the overview, ${windowMs / 1000} s, dagu start-all`;
  const live_ = await measure(false);
  check(`${label}: CPU, % of one core`, live_.cpuPct, '%', { max: 10 });
  check(`${label}: RSS, whole process tree`, live_.rss, 'MB', { max: 200 });
  if (args.includes('--compare')) {
    const polling = await measure(true);
    report(`${label}, event stream blocked (polling): CPU`, polling.cpuPct, '%', 'reference');
    report(`${label}, event stream blocked (polling): RSS`, polling.rss, 'MB', 'reference');
  }
}

const all: Record<string, () => Promise<void>> = { memory, latency, takeover, tabs };
try {
  for (const [name, fn] of Object.entries(all)) {
    if (which && which !== name) continue;
    try {
      await fn();
    } catch (err) {
      missed(name, (err as Error).message);
    }
  }
} finally {
  for (const c of live) c.kill('SIGKILL');
}
finish();
