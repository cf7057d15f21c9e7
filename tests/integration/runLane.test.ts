// Run lanes through the real binary: a queue with a backlog runs its runs in `dagu __run-lane` processes
// that take one queued run after another, and each run keeps what a process of its own gives it (its status,
// step log, process log, a stop of its own, a failed end if its lane dies); the queue goes on either way.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../server/core/types';
import { alive, dagu, eventually, homeWithServices, startService } from './harness';

const ctx = homeWithServices({ DAGU_RUN_PRESTART: 'false' });

function queueConfig(maxConcurrency: number) {
  writeFileSync(
    path.join(ctx.h.home, 'config.yaml'),
    `queues:\n  enabled: true\n  config:\n    - name: q\n      max_concurrency: ${maxConcurrency}\n`,
  );
}

async function enqueue(dag: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `${dag}-${i}`;
    const r = await dagu(['enqueue', '--run-id', id, dag], ctx.h.env);
    expect(r.code, r.stderr).toBe(0);
    ids.push(id);
  }
  return ids;
}

async function store() {
  const { FileRunStore } = await import('../../server/store/fileRunStore');
  return new FileRunStore({
    dataDir: path.join(ctx.h.home, 'data'),
    logDir: path.join(ctx.h.home, 'logs'),
  });
}

/** The runs of `dag`, oldest first; null until there are `n`. */
async function runs(dag: string, n: number): Promise<RunStatus[] | null> {
  const s = await store();
  const items = (await s.listRuns({ dag, limit: 500 })).items;
  if (items.length < n) return null;
  const out: RunStatus[] = [];
  for (const item of items.reverse()) {
    const r = await s.readStatus(item.run_id);
    if (r.kind !== 'ok') return null;
    out.push(r.status);
  }
  return out;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

function processLog(r: RunStatus): string {
  return readFileSync(path.join(ctx.h.home, 'logs', r.log_dir!, 'process.log'), 'utf8');
}

/**
 * Six short runs, then two `sleep 30` runs (`long-0`, `long-1`) and `after` runs behind them in queue `q` of
 * concurrency 2, and a scheduler: the lane, started for the backlog, is ready when the long ones start.
 * Answers the scheduler and the lane's pid once both long runs are running in it.
 */
async function longRunsInLane(after = 0) {
  queueConfig(2);
  ctx.h.writeDag('short', 'queue: q\nsteps:\n  - name: s\n    command: sleep 0.4\n');
  ctx.h.writeDag('long', 'queue: q\nsteps:\n  - name: s\n    command: sleep 30\n');
  ctx.h.writeDag('after', 'queue: q\nsteps:\n  - name: s\n    command: "true"\n');
  await enqueue('short', 6);
  await enqueue('long', 2);
  await enqueue('after', after);
  const sched = startService(['scheduler'], ctx.h.env);
  ctx.services.push(sched);
  const running = await eventually(async () => {
    const s = await runs('long', 2);
    return s?.every((r) => r.status === 'running') ? s : null;
  }, 60_000);
  const lane = running[0].pid!;
  expect(running[1].pid).toBe(lane);
  expect(commandLine(lane)).toContain('__run-lane');
  return { sched, lane };
}

const LANE_LINE = /^dagu: run lane (\d+) runs this run \(its run (\d+)\); its own output: \S+\n$/;

describe('run lanes', () => {
  it('drains a queue with a backlog in lanes, each run with its own status, step log and process log', async () => {
    queueConfig(2);
    ctx.h.writeDag('l', 'queue: q\nsteps:\n  - name: s\n    command: echo "out of $DAG_RUN_ID"\n');
    await enqueue('l', 12);
    const sched = startService(['scheduler'], ctx.h.env);
    ctx.services.push(sched);
    const done = await eventually(async () => {
      const s = await runs('l', 12);
      return s?.every((r) => r.status === 'succeeded') ? s : null;
    }, 60_000);
    for (const r of done) {
      expect(r.error ?? null).toBeNull();
      const logDir = path.join(ctx.h.home, 'logs', r.log_dir!);
      expect(readFileSync(path.join(logDir, 's.out'), 'utf8').trim()).toBe(`out of ${r.run_id}`);
    }
    // Most runs went to a lane (the first ones start while it loads): its pid recorded, its line first in
    // the run's process log and nothing else there (a quiet run that succeeded).
    const inLanes = done.filter((r) => LANE_LINE.test(processLog(r)));
    expect(inLanes.length).toBeGreaterThanOrEqual(6);
    const lanes = new Set(inLanes.map((r) => r.pid));
    expect(lanes.size).toBeLessThanOrEqual(2);
    for (const r of inLanes) expect(LANE_LINE.exec(processLog(r))![1]).toBe(String(r.pid));
    // An idle lane exits (2 s), and leaves no output file and no stop record behind.
    for (const pid of lanes) await eventually(() => !alive(pid!), 20_000);
    expect(readdirSync(path.join(ctx.h.home, 'logs', '.run-host'))).toEqual([]);
    expect(readdirSync(path.join(ctx.h.home, 'data', 'run-host'))).toEqual([]);
    expect(sched.output()).not.toMatch(/run lane exited unexpectedly/);
  });

  it('stops one run of a lane by request and leaves the others running; they outlive the scheduler', async () => {
    const { sched, lane } = await longRunsInLane();
    const [a, b] = ['long-0', 'long-1'];

    expect((await dagu(['stop', '--run-id', a, 'long'], ctx.h.env)).code).toBe(0);
    await eventually(async () => (await runs('long', 2))?.[0].status === 'aborted', 20_000);
    expect(alive(lane)).toBe(true);
    expect((await runs('long', 2))?.[1].status).toBe('running');

    // The scheduler goes; the lane takes no more runs but keeps the one it has.
    await sched.stop('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    expect(alive(lane)).toBe(true);
    expect((await runs('long', 2))?.[1].status).toBe('running');
    expect((await dagu(['stop', '--run-id', b, 'long'], ctx.h.env)).code).toBe(0);
    await eventually(async () => (await runs('long', 2))?.[1].status === 'aborted', 20_000);
    // Its last run over and no scheduler to take more from, it exits.
    await eventually(() => !alive(lane), 20_000);
  });

  it("has a killed lane's runs marked failed by the dead-run check, and starts the rest of the queue", async () => {
    const { sched, lane } = await longRunsInLane(3);
    process.kill(lane, 'SIGKILL');
    const failed = await eventually(async () => {
      const s = await runs('long', 2);
      return s?.every((r) => r.status === 'failed') ? s : null;
    }, 30_000);
    for (const r of failed) {
      expect(r.error).toMatch(new RegExp(`run process ${lane} on .* (is gone|stopped heartbeating)`));
    }
    // The scheduler says so, and the runs behind them start in processes of their own.
    await sched.waitFor(/A run lane exited unexpectedly/, 10_000);
    const after = await eventually(async () => {
      const s = await runs('after', 3);
      return s?.every((r) => r.status === 'succeeded') ? s : null;
    }, 30_000);
    for (const r of after) expect(processLog(r)).not.toMatch(/run lane/);
  });
});
