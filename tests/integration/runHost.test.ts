// Run hosts through the real binary: a burst of slots due together runs in shared `dagu __run-host`
// processes (run.host_max_runs per host), and each run keeps what a process of its own gives it: its status,
// logs and process log, a stop of its own, and a failed end found by the dead-run check if its host dies.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunStatus } from '../../server/core/types';
import { alive, dagu, eventually, homeWithServices, startService } from './harness';

// Four runs per host: a burst of six slots takes two hosts.
const ctx = homeWithServices({ DAGU_RUN_HOST_MAX_RUNS: '4' });

/** A 6-field cron expression (seconds first) for one slot a few seconds from now, once a day after that. */
function slotSoon(): { cron: string; slotMs: number } {
  const slotMs = Math.ceil((Date.now() + 6000) / 1000) * 1000;
  const d = new Date(slotMs);
  return { cron: `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`, slotMs };
}

/** Writes `n` DAGs `<prefix>0..` due at the same slot, each with `step` as its one step. */
function burst(prefix: string, n: number, step: (i: number) => string): string[] {
  const { cron } = slotSoon();
  const names = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  names.forEach((name, i) =>
    ctx.h.writeDag(name, `schedule: "${cron}"\nsteps:\n  - name: s\n    command: ${step(i)}\n`),
  );
  return names;
}

function scheduler() {
  // The scheduler is this file's timing reference: TZ UTC so the cron above is read as written.
  const s = startService(['scheduler'], { ...ctx.h.env, TZ: 'UTC', DAGU_RUN_PRESTART: 'false' });
  ctx.services.push(s);
  return s;
}

async function statusOf(dag: string): Promise<RunStatus | null> {
  const { FileRunStore } = await import('../../server/store/fileRunStore');
  const store = new FileRunStore({
    dataDir: path.join(ctx.h.home, 'data'),
    logDir: path.join(ctx.h.home, 'logs'),
  });
  const item = (await store.listRuns({ dag, limit: 1 })).items[0];
  if (!item) return null;
  const r = await store.readStatus(item.run_id);
  return r.kind === 'ok' ? r.status : null;
}

/** The latest run of each DAG; null until every one of them has a run. */
async function statuses(dags: string[]): Promise<RunStatus[] | null> {
  const out: RunStatus[] = [];
  for (const d of dags) {
    const s = await statusOf(d);
    if (s === null) return null;
    out.push(s);
  }
  return out;
}

/** The command line of a live process (Linux). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

const groupSizes = (runs: RunStatus[]) => {
  const byPid = new Map<number, number>();
  for (const r of runs) byPid.set(r.pid!, (byPid.get(r.pid!) ?? 0) + 1);
  return [...byPid.values()].sort((a, b) => b - a);
};

describe('run hosts', () => {
  it('runs a burst of slots in shared hosts, each run with its own status, step log and process log', async () => {
    const dags = burst('b', 6, (i) => `echo out-of-${i}`);
    scheduler();
    const done = await eventually(async () => {
      const s = await statuses(dags);
      return s?.every((r) => r.status === 'succeeded') ? s : null;
    }, 40_000);
    // Two hosts, of at most run.host_max_runs runs each; every run records its host's pid.
    expect(groupSizes(done)).toEqual([4, 2]);
    for (const [i, r] of done.entries()) {
      expect(r.run_id).toMatch(/^sched-/);
      expect(r.trigger_type).toBe('scheduler');
      expect(r.error ?? null).toBeNull();
      // Its step's output, in its own log.
      const logDir = path.join(ctx.h.home, 'logs', r.log_dir!);
      expect(readFileSync(path.join(logDir, 's.out'), 'utf8').trim()).toBe(`out-of-${i}`);
      // Its own process log, naming the host it ran in and nothing else (a quiet run that succeeded).
      const others = done.filter((x) => x.pid === r.pid).length - 1;
      expect(readFileSync(path.join(logDir, 'process.log'), 'utf8')).toMatch(
        new RegExp(`^dagu: run host ${r.pid} runs this run with ${others} others; its own output: \\S+\\n$`),
      );
    }
    // The hosts printed nothing of their own, so their output files are gone; so are their stop records.
    await eventually(() => readdirSync(path.join(ctx.h.home, 'logs', '.run-host')).length === 0);
    await eventually(() => readdirSync(path.join(ctx.h.home, 'data', 'run-host')).length === 0);
  });

  it('stops one run of a host and leaves the others running; SIGTERM to the host stops them all', async () => {
    const dags = burst('s', 4, () => 'sleep 30');
    scheduler();
    const running = await eventually(async () => {
      const s = await statuses(dags);
      return s?.every((r) => r.status === 'running') ? s : null;
    }, 40_000);
    const host = running[0].pid!;
    expect(groupSizes(running)).toEqual([4]);
    expect(commandLine(host)).toContain('__run-host');

    const stopped = await dagu(['stop', '--run-id', running[1].run_id, dags[1]], ctx.h.env);
    expect(stopped.code).toBe(0);
    const aborted = await eventually(async () => {
      const s = await statusOf(dags[1]);
      return s?.status === 'aborted' ? s : null;
    }, 20_000);
    expect(aborted.run_id).toBe(running[1].run_id);
    // The host and its other runs go on.
    expect(alive(host)).toBe(true);
    for (const d of [dags[0], dags[2], dags[3]]) expect((await statusOf(d))?.status).toBe('running');

    // Another one the same way; then SIGTERM to the host itself stops the two left, as it would their
    // processes, and the host ends.
    expect((await dagu(['stop', '--run-id', running[3].run_id, dags[3]], ctx.h.env)).code).toBe(0);
    await eventually(async () => (await statusOf(dags[3]))?.status === 'aborted', 20_000);
    expect((await statusOf(dags[0]))?.status).toBe('running');
    process.kill(host, 'SIGTERM');
    await eventually(async () => (await statuses(dags))?.every((r) => r.status === 'aborted'), 20_000);
    await eventually(() => !alive(host), 20_000);
  });

  it('has every run of a killed host marked failed by the dead-run check, its records swept by the next host', async () => {
    const dags = burst('k', 4, () => 'sleep 30');
    scheduler();
    const running = await eventually(async () => {
      const s = await statuses(dags);
      return s?.every((r) => r.status === 'running') ? s : null;
    }, 40_000);
    const host = running[0].pid!;
    expect(groupSizes(running)).toEqual([4]);
    process.kill(host, 'SIGKILL');
    const failed = await eventually(async () => {
      const s = await statuses(dags);
      return s?.every((r) => r.status === 'failed') ? s : null;
    }, 30_000);
    for (const r of failed) {
      expect(r.error).toMatch(new RegExp(`run process ${host} on .* (is gone|stopped heartbeating)`));
    }
    // The dead host could not remove its runs' records; the next host sweeps them, and leaves none of its own.
    const records = () => readdirSync(path.join(ctx.h.home, 'data', 'run-host')).sort();
    expect(records()).toEqual(running.map((r) => `${r.run_id}.host`).sort());
    const next = burst('n', 4, () => 'true');
    await eventually(async () => (await statuses(next))?.every((r) => r.status === 'succeeded'), 40_000);
    await eventually(() => records().length === 0);
  });
});
