// Suspended schedules in the scheduler's loop, on the fake clock: no slot of a suspended DAG is created, the
// very next slot after a suspend is skipped, a resumed DAG runs again from its next slot with nothing of the
// suspended period replayed (catchup_window or not), and a flag that cannot be read holds the slot back.

import { describe, expect, it } from 'vitest';
import { slotRunId } from '../core/slotRunId';
import type { DagSpec } from '../core/types';
import { HOUR, MINUTE, SECOND } from '../core/units';
import { dagFromYaml } from '../testing/dagFromYaml';
import { CRON_DATA_DIR, cronWorld } from './testing/cronWorld';
import { type SchedulerState } from './schedulerState';

const DATA_DIR = CRON_DATA_DIR;
const at = (hhmmss: string) => Date.parse(`2026-11-30T${hhmmss}Z`);
const slotId = (dag: string, hhmmss: string) => slotRunId(DATA_DIR, dag, at(hhmmss));
const AT = '2026-11-30T01:00:00.000Z';

function world(o: { now: string; dags: DagSpec[]; state?: Partial<SchedulerState> }) {
  const w = cronWorld({ nowMs: at(o.now), dags: o.dags, state: o.state });
  w.launcher.script = { startAfterMs: 20, runForMs: 300, outcome: 'succeeded' };
  return Object.assign(w, {
    suspend: (dag: string) => w.suspended.suspend({ dag, suspended_at: AT, by: 'test' }),
  });
}

const everyMinute = (name: string, extra = '') => dagFromYaml(name, `schedule: "* * * * *"\n${extra}`);

describe('CronLoop: suspended schedules', () => {
  it('creates no slot of a suspended DAG while the others run', async () => {
    const w = world({ now: '01:15:30', dags: [everyMinute('etl'), everyMinute('report')] });
    await w.suspend('etl');
    const loop = w.loop();
    await loop.start();
    await w.time.advanceToWall(at('01:18:10'));
    expect(w.launcher.runIds()).toEqual(
      ['01:15:00', '01:16:00', '01:17:00', '01:18:00'].map((t) => slotId('report', t)),
    );
    for (const t of ['01:15:00', '01:16:00', '01:17:00', '01:18:00'])
      expect(w.runs.createsOf(slotId('etl', t))).toBe(0);
    // Logged once at info, then at debug until it is resumed.
    expect(w.logger.lines.filter((l) => l.msg === 'Skipped a slot: the DAG is suspended')).toHaveLength(1);
    expect(w.logger.find('Skipped a slot of a suspended DAG')).toHaveLength(3);
    await loop.stop();
  });

  it('skips the very next seconds slot after a suspend, and runs the next one after a resume', async () => {
    const w = world({ now: '01:15:00', dags: [dagFromYaml('tick', 'schedule: "*/2 * * * * *"')] });
    const loop = w.loop();
    await loop.start();
    await w.time.advanceToWall(at('01:15:04') + 500);
    expect(w.launcher.runIds()).toEqual(['01:15:00', '01:15:02', '01:15:04'].map((t) => slotId('tick', t)));

    await w.suspend('tick'); // between slots 01:15:04 and 01:15:06
    await w.time.advanceToWall(at('01:15:10') + 500);
    expect(w.launcher.runIds()).toHaveLength(3);

    await w.suspended.resume('tick'); // between slots 01:15:10 and 01:15:12
    await w.time.advanceToWall(at('01:15:14') + 500);
    expect(w.launcher.runIds()).toEqual(
      ['01:15:00', '01:15:02', '01:15:04', '01:15:12', '01:15:14'].map((t) => slotId('tick', t)),
    );
    // Nothing of 01:15:06 to 01:15:10 was created, queued or replayed.
    expect(await w.allRunIds()).toEqual([...w.launcher.runIds()].sort());
    expect(await w.queue.queues()).toEqual([]);
    await loop.stop();
  });

  it('counts a suspended slot as handled: a successor replays none of the suspended period', async () => {
    const dag = everyMinute('etl', 'catchup_window: 1h');
    const w = world({ now: '01:15:30', dags: [dag] });
    await w.suspend('etl');
    const first = w.loop('sched-a');
    await first.start();
    await w.time.advanceToWall(at('01:20:10'));
    await first.stop();
    expect(w.stateFile.state.last_tick_ms).toBeGreaterThanOrEqual(at('01:20:00'));
    expect(w.stateFile.state.dags.etl.last_slot_ms).toBe(at('01:20:00'));

    await w.suspended.resume('etl');
    await w.time.advanceToWall(at('01:20:30'));
    const successor = w.loop('sched-b');
    await successor.start({ recoveryWindowMs: HOUR });
    await w.time.advance(0);
    // Stopped at 01:20:10, restarted within the same minute: only the next live slot runs, nothing replayed.
    await w.time.advanceToWall(at('01:21:10'));
    expect(await w.allRunIds()).toEqual([slotId('etl', '01:21:00')]);
    await successor.stop();
  });

  it('does not replay the missed slots of a DAG that is suspended when the scheduler starts', async () => {
    const w = world({
      now: '01:15:30',
      dags: [everyMinute('etl', 'catchup_window: 10m'), everyMinute('report', 'catchup_window: 10m')],
      state: { last_tick_ms: at('01:12:10') },
    });
    await w.suspend('etl');
    const loop = w.loop();
    await loop.start();
    await w.time.advance(0);
    expect((await w.queue.list('report')).map((i) => i.run_id)).toEqual(
      ['01:13:00', '01:14:00', '01:15:00'].map((t) => slotId('report', t)),
    );
    expect(await w.queue.list('etl')).toEqual([]);
    expect(w.logger.find('Missed slots of a suspended DAG are not replayed')).toHaveLength(1);
    expect((await w.allRunIds()).filter((id) => id.includes(slotId('etl', '01:15:00').slice(0, 18)))).toEqual(
      [],
    );
    await loop.stop();
  });

  it('holds a slot back while the flags cannot be read, and creates it once they can', async () => {
    const w = world({ now: '01:15:30', dags: [everyMinute('etl')] });
    w.suspended.failWith = new Error("EIO: i/o error, scandir '/data/suspend'");
    const loop = w.loop();
    await loop.start();
    await w.time.advance(0);
    expect(w.launcher.runIds()).toEqual([]);
    expect(w.logger.find('Scheduler tick failed; retrying')[0].fields.error).toMatch(/EIO/);
    w.suspended.failWith = null;
    await w.time.advance(SECOND);
    expect(w.launcher.runIds()).toEqual([slotId('etl', '01:15:00')]);
    await loop.stop();
  });

  it('starts no restart slot of a suspended DAG either (dispatchSlot reads the flags itself)', async () => {
    const dag = everyMinute('etl');
    const w = world({ now: '01:15:30', dags: [dag] });
    await w.suspend('etl');
    expect(await w.loop().dispatchSlot(dag, at('01:15:00'), new Map())).toBe('suspended');
    expect(w.runs.createCalls).toEqual([]);
    await w.time.advance(MINUTE);
  });
});
