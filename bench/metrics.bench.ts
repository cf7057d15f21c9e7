// Issue-17 point 8: what /metrics costs once the per-DAG run metrics fold the event log. 10,000 finished runs
// of 20 DAGs (three events each, as runs emit them: queued, running, the end) are written into the event log's
// day files, then a real `dagu server` is scraped: the first scrape reads the whole log (no checkpoint yet),
// later ones only what was appended; a restarted server reads on from the checkpoint.
// Run: npm run bench -- metrics [--quick]

import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { EventIdGenerator, makeEventRecord } from '../server/store/eventRecord';
import { runEventData } from '../server/store/runEvents';
import { testRunStatus } from '../server/testing/testRunStatus';
import { check, finish, freePort, missed, percentile, report, startTracked, tempHome, waitHttp } from './lib';

const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 2000 : 10_000;
const DAGS = 20;
const SAMPLES = QUICK ? 50 : 200;
const live = new Set<ChildProcess>();

function seedEvents(dataDir: string) {
  const dir = path.join(dataDir, 'events');
  mkdirSync(dir, { recursive: true });
  let now = Date.now() - RUNS * 60_000;
  const ids = new EventIdGenerator({ nowMs: () => now, monoMs: () => now });
  const byDay = new Map<string, string[]>();
  for (let i = 0; i < RUNS; i++) {
    const dag = `dag-${i % DAGS}`;
    const started = new Date(now).toISOString();
    const finished = new Date(now + 5000 + (i % 7) * 1000).toISOString();
    const end = i % 10 === 0 ? 'failed' : 'succeeded';
    for (const [type, status] of [
      ['dag.run.queued', 'queued'],
      ['dag.run.running', 'running'],
      [`dag.run.${end}`, end],
    ] as const) {
      const s = testRunStatus({
        run_id: `run-${i}`,
        dag_name: dag,
        status,
        started_at: status === 'queued' ? null : started,
        finished_at: status === end ? finished : null,
      });
      const { record, line } = makeEventRecord(
        ids,
        type,
        runEventData(s) as unknown as Record<string, unknown>,
      );
      const day = record.time.slice(0, 10).replaceAll('-', '');
      byDay.set(day, [...(byDay.get(day) ?? []), line]);
      now += 20_000;
    }
  }
  for (const [day, lines] of byDay) appendFileSync(path.join(dir, `${day}.jsonl`), lines.join(''));
}

async function scrape(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  if (!res.ok) throw new Error(`/metrics: HTTP ${res.status}`);
  return res.text();
}

async function server(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const proc = startTracked(['server', '--host', '127.0.0.1', '--port', String(port)], env, live);
  const base = `http://127.0.0.1:${port}`;
  await waitHttp(`${base}/api/v1/health`, 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${proc.tail()}`, { cause: err });
  });
  return { proc, base };
}

async function metrics() {
  const h = tempHome();
  for (let d = 0; d < DAGS; d++)
    h.writeDag(`dag-${d}`, `schedule: "${d} * * * *"\nsteps:\n  - command: "true"\n`);
  const t0 = performance.now();
  seedEvents(path.join(h.home, 'data'));
  report(`seeding ${RUNS} runs (${RUNS * 3} events)`, performance.now() - t0, 'ms', 'reference');

  const a = await server(h.env);
  let c0 = performance.now();
  const first = await scrape(a.base);
  check(`first scrape, whole log of ${RUNS / 1000}k runs`, performance.now() - c0, 'ms', {
    max: 3000,
    why: "under Prometheus' 10 s scrape timeout with room",
  });
  // Every tenth run fails: dag-0's runs (i % 20 == 0) all failed, dag-1's all succeeded.
  const count = (dag: string, status: string) =>
    Number(
      new RegExp(`^dagu_dag_runs_finished_total\\{dag="${dag}",status="${status}"\\} (\\d+)$`, 'm').exec(
        first,
      )?.[1],
    );
  if (count('dag-0', 'failed') !== RUNS / DAGS || count('dag-1', 'succeeded') !== RUNS / DAGS)
    throw new Error(
      `unexpected counts: dag-0 failed ${count('dag-0', 'failed')}, dag-1 succeeded ${count('dag-1', 'succeeded')}`,
    );
  // The DAGs' intervals are worked out within a budget per scrape: the next scrapes fill in the rest.
  let warm = 0;
  for (
    let text = first;
    (text.match(/^dagu_dag_schedule_interval_seconds\{/gm) ?? []).length < DAGS;
    warm++
  ) {
    if (warm > 50) throw new Error('the intervals of the DAGs were still not all known after 50 scrapes');
    text = await scrape(a.base);
  }
  report(`scrapes until all ${DAGS} intervals are known`, warm + 1, '', 'reference');
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    c0 = performance.now();
    await scrape(a.base);
    times.push(performance.now() - c0);
  }
  report(`scrape, nothing new: p50`, percentile(times, 50), 'ms', 'reference');
  check(`scrape, nothing new: p99`, percentile(times, 99), 'ms', { max: 50, why: 'as the API pages' });
  a.proc.child.kill('SIGTERM');
  await a.proc.exited;

  const b = await server(h.env);
  c0 = performance.now();
  await scrape(b.base);
  // Loading the YAML and cron parsers, then at most WORK_BUDGET_MS (250 ms) working out the DAGs' intervals.
  check('first scrape after a restart (checkpoint)', performance.now() - c0, 'ms', { max: 1000 });
  b.proc.child.kill('SIGTERM');
  await b.proc.exited;
  h.cleanup();
}

try {
  await metrics();
} catch (err) {
  missed('metrics', (err as Error).message);
} finally {
  for (const c of live) c.kill('SIGKILL');
}
finish();
