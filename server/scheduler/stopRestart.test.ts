import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { parseSchedule } from '../core/schedule';
import type { DagSpec, ScheduleSpec } from '../core/types';
import { SECOND } from '../core/units';
import { MemoryRunStore } from '../store/memoryRunStore';
import { testRunStatus } from '../testing/testRunStatus';
import { StopRestartSchedules } from './stopRestart';
import { FakeTime } from '../testing/fakeTime';
import { dagFromYaml } from '../testing/dagFromYaml';

const at = (hhmmss: string) => Date.parse(`2026-11-30T${hhmmss}Z`);
const cron = (expr: string): ScheduleSpec => {
  const r = parseSchedule(expr);
  if (!r.ok) throw new Error(r.error);
  return r.schedule;
};

async function world(dag: DagSpec, opts: { endsAfterMs: number }) {
  const time = new FakeTime(at('01:04:30'));
  const runs = new MemoryRunStore();
  await runs.createRun(testRunStatus({ run_id: 'long', dag_name: dag.name, status: 'running' }));
  const stops: Array<{ runId: string; atMs: number }> = [];
  const starts: Array<{ dag: string; slotMs: number; atMs: number }> = [];
  const loop = new StopRestartSchedules({
    catalog: { load: async () => [dag] },
    runs,
    clock: time,
    timers: time,
    logger: silentLogger,
    canDispatch: () => true,
    stopRun: async (runId) => {
      stops.push({ runId, atMs: time.nowMs() });
      time.setTimeout(() => {
        void (async () => {
          const r = await runs.readStatus(runId);
          if (r.kind === 'ok') await runs.writeStatus({ ...r.status, status: 'aborted' });
          await runs.unmarkActive(runId);
        })();
      }, opts.endsAfterMs);
    },
    startSlot: async (d, slotMs) => {
      starts.push({ dag: d.name, slotMs, atMs: time.nowMs() });
    },
  });
  return { time, runs, loop, stops, starts };
}

describe('stop and restart schedules', () => {
  it('stops the running run at a stop slot and starts nothing', async () => {
    const dag = { ...dagFromYaml('svc'), stop_schedule: [cron('5 1 * * *')] };
    const w = await world(dag, { endsAfterMs: 2 * SECOND });
    w.loop.start();
    await w.time.advanceToWall(at('01:06:00'));
    expect(w.stops).toEqual([{ runId: 'long', atMs: at('01:05:00') }]);
    expect(w.starts).toEqual([]);
    await w.loop.stop();
  });

  it('restarts: stops the run, waits for its end and restart_wait_sec, then starts the slot', async () => {
    const dag = { ...dagFromYaml('svc'), restart_schedule: [cron('5 1 * * *')], restart_wait_sec: 3 };
    const w = await world(dag, { endsAfterMs: 2 * SECOND });
    w.loop.start();
    await w.time.advanceToWall(at('01:05:30'));
    expect(w.stops.map((s) => s.runId)).toEqual(['long']);
    expect(w.starts).toHaveLength(1);
    expect(w.starts[0].slotMs).toBe(at('01:05:00'));
    // Not before the stopped run ended (2 s) and restart_wait_sec (3 s) passed since the stop.
    expect(w.starts[0].atMs).toBeGreaterThanOrEqual(at('01:05:03'));
    expect(w.starts[0].atMs).toBeLessThanOrEqual(at('01:05:05'));
    await w.loop.stop();
  });

  it('does nothing without the lock', async () => {
    const dag = { ...dagFromYaml('svc'), restart_schedule: [cron('5 1 * * *')] };
    const w = await world(dag, { endsAfterMs: SECOND });
    const fenced = new StopRestartSchedules({
      catalog: { load: async () => [dag] },
      runs: w.runs,
      clock: w.time,
      timers: w.time,
      logger: silentLogger,
      canDispatch: () => false,
      stopRun: async (runId) => void w.stops.push({ runId, atMs: 0 }),
      startSlot: async () => void w.starts.push({ dag: 'x', slotMs: 0, atMs: 0 }),
    });
    fenced.start();
    await w.time.advanceToWall(at('01:06:00'));
    expect(w.stops).toEqual([]);
    expect(w.starts).toEqual([]);
    await fenced.stop();
  });
});
