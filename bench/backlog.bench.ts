// How a queue's backlog weighs on its drain (file backend): the same 200 one-step runs drained with 300 and
// with 3,000 runs waiting in the queue (max_concurrency 4). Work the scheduler does in proportion to the
// backlog (listing the queue and the active runs at each pass, the dead-run check reading each queued run)
// shows as the gap between the two. Then what a backlog costs while it only waits: the scheduler's CPU
// while 3,000 runs wait behind a queue whose one slot is busy, with a dead-run check every 2 s, over 24 s. Reference
// figures: no target is set for them yet.
// Run: npm run bench -- backlog   (or: node --import tsx bench/backlog.bench.ts [--quick])

import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../server/core/clock';
import { parseDag } from '../server/core/dag/parseDag';
import { silentLogger } from '../server/core/ports';
import { isoUtc, newRunStatus } from '../server/core/runStatus';
import { loadConfig } from '../server/config/loadConfig';
import { fileControlPlane } from '../server/store/fileControlPlane';
import {
  check,
  descendants,
  finish,
  report,
  sleep,
  startProcess,
  stopProcess,
  tempHome,
  treeCpuMs,
} from './lib';

const QUICK = process.argv.includes('--quick');
const DRAINED = 200;
const live = new Set<ChildProcess>();
const homes: Array<() => void> = [];
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const h of homes.splice(0)) h();
});
process.on('SIGINT', () => process.exit(130));
// `timeout` and CI stop with SIGTERM: the same cleanup as after Ctrl-C.
process.on('SIGTERM', () => process.exit(143));

const DAG = 'queue: drain\nsteps:\n  - name: t\n    command: "true"\n';

/**
 * A home whose queue `queue` (at most `maxConcurrency` runs at once) holds `queued` runs of DAG `d` (`dag`),
 * recorded as `dagu enqueue` records them.
 */
async function homeWithBacklog(
  queue: string,
  maxConcurrency: number,
  dag: string,
  queued: number,
  env: Record<string, string> = {},
) {
  const h = tempHome({ DAGU_QUEUES_ENABLED: 'true', DAGU_SKIP_EXAMPLES: 'true', ...env });
  homes.push(h.cleanup);
  writeFileSync(
    path.join(h.home, 'config.yaml'),
    `queues:\n  config:\n    - name: ${queue}\n      max_concurrency: ${maxConcurrency}\n`,
  );
  h.writeDag('d', dag);
  const parsed = parseDag(dag, { file: path.join(h.home, 'dags', 'd.yaml'), defaultName: 'd' });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const cp = fileControlPlane(loadConfig({ env: h.env }), silentLogger, systemClock);
  for (let i = 0; i < queued; i++) {
    const status = newRunStatus({
      dag: parsed.dag,
      runId: `backlog-${String(i).padStart(6, '0')}`,
      status: 'queued',
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: isoUtc(Date.now()),
    });
    await cp.runs.createRun(status);
    await cp.queue.enqueue({ queue, run_id: status.run_id, dag_name: 'd', enqueued_at: status.created_at });
  }
  return { h, cp };
}

/** `queued` runs in the queue, then DRAINED of them run by a scheduler. */
async function drainOf(queued: number): Promise<{ rate: number; cpu: number; failed: number }> {
  const { h, cp } = await homeWithBacklog('drain', 4, DAG, queued);
  const t0 = performance.now();
  const sched = startProcess(['scheduler'], h.env);
  live.add(sched);
  while ((await cp.queue.list('drain')).length > queued - DRAINED) {
    await sleep(50);
    if (performance.now() - t0 > 300_000) break;
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu = treeCpuMs(sched.pid!) / DRAINED;
  await stopProcess(sched);
  live.delete(sched);
  // The first runs queued ran first (FIFO) and succeeded; the last few drained may still be under way.
  let failed = 0;
  for (let i = 0; i < DRAINED - 8; i++) {
    const r = await cp.runs.readStatus(`backlog-${String(i).padStart(6, '0')}`);
    if (r.kind !== 'ok' || r.status.status !== 'succeeded') failed++;
  }
  return { rate: DRAINED / secs, cpu, failed };
}

const WAITING_DAG = 'queue: wait\nsteps:\n  - name: t\n    command: sleep 600\n';

/**
 * The scheduler's CPU (with the one run it started, which sleeps) per second while `queued` runs wait
 * behind that run: only the queue passes and the dead-run checks (every 2 s here) look at them.
 */
async function waitingCost(queued: number, seconds: number): Promise<number> {
  const { h } = await homeWithBacklog('wait', 1, WAITING_DAG, queued, {
    DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL: '2s',
  });
  const sched = startProcess(['scheduler'], h.env);
  live.add(sched);
  // Past the start-up, which reads every item and marker once, and the first dead-run check.
  await sleep(6000);
  const cpu0 = treeCpuMs(sched.pid!);
  await sleep(seconds * 1000);
  const perSecond = (treeCpuMs(sched.pid!) - cpu0) / seconds;
  // A run outlives its scheduler by design: the sleeping one is stopped here, with its steps.
  const below = descendants(sched.pid!);
  await stopProcess(sched);
  live.delete(sched);
  for (const pid of below) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone already */
    }
  }
  return perSecond;
}

let failed = 0;
for (const queued of QUICK ? [300, 1000] : [300, 3000]) {
  const d = await drainOf(queued);
  failed += d.failed;
  report(`drain of ${DRAINED} one-step runs, ${queued} queued (files)`, d.rate, 'runs/s', 'reference');
  report(`  CPU per run, scheduler and its runs`, d.cpu, 'ms', 'reference');
}
{
  const queued = QUICK ? 1000 : 3000;
  // Whole periods of the dead-run check's re-reads of resting runs (one sweep in six, every 2 s here).
  const cost = await waitingCost(queued, QUICK ? 12 : 24);
  report(`scheduler CPU while ${queued} runs wait (files), per second`, cost, 'ms', 'reference');
}
check(`runs among the first ${DRAINED - 8} that did not succeed`, failed, 'runs', { exactly: 0 });
finish();
process.exit(process.exitCode ?? 0);
