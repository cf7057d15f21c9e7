// One-off (`at`) slots in the scheduler's loop, on the fake clock: fired once at their time, never when first
// seen after it, still fired after a restart or takeover when they were pending, and held while the DAG is busy.

import { describe, expect, it } from 'vitest';
import { slotRunId } from '../core/slotRunId';
import type { DagSpec } from '../core/types';
import { DAY, HOUR, MINUTE, SECOND } from '../core/units';
import { testRunStatus } from '../testing/testRunStatus';
import { CRON_DATA_DIR, cronWorld } from './testing/cronWorld';
import { type SchedulerState } from './schedulerState';
import { dagFromYaml } from '../testing/dagFromYaml';

const DATA_DIR = CRON_DATA_DIR;
const at = (hhmmss: string) => Date.parse(`2026-11-30T${hhmmss}Z`);
const slotId = (dag: string, hhmmss: string) => slotRunId(DATA_DIR, dag, at(hhmmss));

/** A DAG with a one-off entry at `hh:mm` UTC on 2026-11-30, written with a +01:00 offset, plus `extra`. */
const oneOff = (name: string, hhmm: string, extra = '') => {
  const local = new Date(at(`${hhmm}:00`) + HOUR).toISOString().slice(0, 16);
  return dagFromYaml(name, `schedule: [{at: "${local}:00+01:00"}]\n${extra}`);
};

function world(o: { now: string; dags: DagSpec[]; state?: Partial<SchedulerState> }) {
  return cronWorld({ nowMs: at(o.now), dags: o.dags, state: o.state });
}

async function started(w: ReturnType<typeof world>, instanceId?: string) {
  const loop = w.loop(instanceId);
  await loop.start();
  await w.time.advance(0);
  return loop;
}

describe('CronLoop: one-off at slots', () => {
  it('fires once at its time, with the slot run ID, and never again', async () => {
    const w = world({ now: '01:15:30', dags: [oneOff('xmas', '01:20')] });
    const loop = await started(w);
    expect(w.stateFile.state.pending_at).toEqual({ xmas: [at('01:20:00')] });
    await w.time.advanceToWall(at('01:19:59'));
    expect(w.launcher.launches).toHaveLength(0);
    await w.time.advanceToWall(at('01:20:01'));
    const id = slotId('xmas', '01:20:00');
    expect(w.launcher.runIds()).toEqual([id]);
    expect(await w.status(id)).toMatchObject({
      trigger_type: 'scheduler',
      schedule_time: '2026-11-30T01:20:00Z',
    });
    await w.launcher.finish(id);
    await w.time.advanceToWall(at('01:20:00') + 2 * DAY);
    expect(w.launcher.runIds()).toEqual([id]);
    expect(w.stateFile.state.pending_at).toEqual({});
    await loop.stop();
    // A restart (a new instance on the same state) does not fire it again either.
    await started(w, 'sched-c');
    await w.time.advance(HOUR);
    expect(await w.allRunIds()).toEqual([id]);
  });

  it('never fires a time first seen after it passed, even within catchup_window', async () => {
    const w = world({ now: '01:25:30', dags: [oneOff('late', '01:20', 'catchup_window: 1h')] });
    await started(w);
    await w.time.advance(2 * HOUR);
    expect(await w.allRunIds()).toEqual([]);
    expect(w.stateFile.state.pending_at ?? {}).toEqual({});
  });

  it('never fires a time added while the scheduler runs once that time has passed', async () => {
    const w = world({ now: '01:15:30', dags: [] });
    await started(w);
    await w.time.advanceToWall(at('01:21:00'));
    w.dags = [oneOff('edited', '01:20')];
    await w.time.advance(HOUR);
    expect(await w.allRunIds()).toEqual([]);
  });

  it('fires a pending slot missed while no scheduler ran, however late, without catchup_window', async () => {
    const w = world({
      now: '03:00:10',
      dags: [oneOff('xmas', '01:20')],
      state: { last_tick_ms: at('01:10:00'), pending_at: { xmas: [at('01:20:00')] } },
    });
    await started(w);
    const id = slotId('xmas', '01:20:00');
    expect(w.launcher.runIds()).toEqual([id]);
    expect(await w.status(id)).toMatchObject({
      trigger_type: 'scheduler',
      schedule_time: '2026-11-30T01:20:00Z',
    });
    expect(w.stateFile.state.pending_at).toEqual({});
  });

  it('is fired once across a takeover: the successor finds the pending slot the failed instance saw', async () => {
    const w = world({ now: '01:15:30', dags: [oneOff('xmas', '01:20')] });
    const a = await started(w, 'sched-a');
    await a.stop(); // the instance fails before the slot
    w.time.shiftWall(10 * MINUTE);
    const b = await started(w, 'sched-b');
    const id = slotId('xmas', '01:20:00');
    expect(w.launcher.runIds()).toEqual([id]);
    expect((await w.status(id)).dispatched_by).toBe('sched-b');
    // A third instance starting from a state file written before the dispatch still creates nothing new.
    await b.stop();
    w.stateFile.state.pending_at = { xmas: [at('01:20:00')] };
    await started(w, 'sched-c');
    await w.time.advance(MINUTE);
    expect(await w.allRunIds()).toEqual([id]);
    expect(w.launcher.runIds()).toEqual([id]);
  });

  it('waits while the DAG has an active run, then fires once that run ended', async () => {
    const w = world({ now: '01:15:30', dags: [oneOff('busy', '01:20')] });
    await w.runs.createRun(
      testRunStatus({
        run_id: 'by-hand',
        dag_name: 'busy',
        status: 'running',
        created_at: '2026-11-30T01:10:00.000Z',
      }),
    );
    await w.runs.markActive({ run_id: 'by-hand', dag_name: 'busy', queue: 'busy' });
    await started(w);
    await w.time.advanceToWall(at('01:30:00'));
    expect(w.launcher.launches).toHaveLength(0);
    expect(w.logger.find('A one-off slot waits until the active run of its DAG ends')).toHaveLength(1);
    expect(w.stateFile.state.pending_at).toEqual({ busy: [at('01:20:00')] });
    await w.runs.unmarkActive('by-hand');
    await w.time.advance(10 * SECOND);
    expect(w.launcher.runIds()).toEqual([slotId('busy', '01:20:00')]);
  });

  it('is not skipped by skip_if_successful', async () => {
    const w = world({ now: '01:15:30', dags: [oneOff('once', '01:20', 'skip_if_successful: true')] });
    await w.runs.createRun(
      testRunStatus({
        run_id: 'by-hand',
        dag_name: 'once',
        status: 'succeeded',
        created_at: '2026-11-30T01:16:00.000Z',
        started_at: '2026-11-30T01:16:00.000Z',
      }),
    );
    await started(w);
    await w.time.advanceToWall(at('01:20:30'));
    expect(w.launcher.runIds()).toEqual([slotId('once', '01:20:00')]);
  });

  it('runs a mixed list: the cron slots as usual and the one-off slot once', async () => {
    const dag = dagFromYaml('mixed', 'schedule: ["*/10 * * * *", {at: "2026-11-30T01:25:00Z"}]');
    const w = world({ now: '01:15:30', dags: [dag] });
    w.launcher.script = { startAfterMs: 20, runForMs: MINUTE, outcome: 'succeeded' };
    await started(w);
    await w.time.advanceToWall(at('01:40:30'));
    expect(w.launcher.runIds()).toEqual(
      ['01:20:00', '01:25:00', '01:30:00', '01:40:00'].map((t) => slotId('mixed', t)),
    );
  });

  it('runs one run when a one-off time equals a cron slot', async () => {
    const dag = dagFromYaml('same', 'schedule: ["*/10 * * * *", {at: "2026-11-30T01:20:00Z"}]');
    const w = world({ now: '01:15:30', dags: [dag] });
    w.launcher.script = { startAfterMs: 20, runForMs: MINUTE, outcome: 'succeeded' };
    await started(w);
    await w.time.advanceToWall(at('01:25:00'));
    expect(w.launcher.runIds()).toEqual([slotId('same', '01:20:00')]);
    expect(w.stateFile.state.pending_at).toEqual({});
  });
});
