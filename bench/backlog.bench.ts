// How a queue's backlog weighs on its drain (file backend): the same 200 one-step runs drained with 300 and
// with 3,000 runs waiting in the queue (max_concurrency 4). Work the scheduler does in proportion to the
// backlog (listing the queue and the active runs at each pass, the dead-run check reading each queued run)
// shows as the gap between the two. Reference figures: no target is set for them yet.
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
import { check, finish, report, sleep, startProcess, stopProcess, tempHome, treeCpuMs } from './lib';

const QUICK = process.argv.includes('--quick');
const DRAINED = 200;
const live = new Set<ChildProcess>();
const homes: Array<() => void> = [];
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const h of homes.splice(0)) h();
});
process.on('SIGINT', () => process.exit(130));

const DAG = 'queue: drain\nsteps:\n  - name: t\n    command: "true"\n';

/** `queued` runs put in the queue (as `dagu enqueue` records them), then DRAINED of them run by a scheduler. */
async function drainOf(queued: number): Promise<{ rate: number; cpu: number; failed: number }> {
  const h = tempHome({ DAGU_QUEUES_ENABLED: 'true', DAGU_SKIP_EXAMPLES: 'true' });
  homes.push(h.cleanup);
  writeFileSync(
    path.join(h.home, 'config.yaml'),
    'queues:\n  config:\n    - name: drain\n      max_concurrency: 4\n',
  );
  h.writeDag('d', DAG);
  const parsed = parseDag(DAG, { file: path.join(h.home, 'dags', 'd.yaml'), defaultName: 'd' });
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
    await cp.queue.enqueue({
      queue: 'drain',
      run_id: status.run_id,
      dag_name: 'd',
      enqueued_at: status.created_at,
    });
  }
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

let failed = 0;
for (const queued of QUICK ? [300, 1000] : [300, 3000]) {
  const d = await drainOf(queued);
  failed += d.failed;
  report(`drain of ${DRAINED} one-step runs, ${queued} queued (files)`, d.rate, 'runs/s', 'reference');
  report(`  CPU per run, scheduler and its runs`, d.cpu, 'ms', 'reference');
}
check(`runs among the first ${DRAINED - 8} that did not succeed`, failed, 'runs', { exactly: 0 });
finish();
process.exit(process.exitCode ?? 0);
