import { describe, expect, it } from 'vitest';
import { NextSlotMemo } from './nextSlotMemo';
import { dueSlots, nextSlot, parseSchedule } from './schedule';
import { nextWake, planTick } from './tickPlan';
import type { DagSpec, ScheduleSpec } from './types';
import { HOUR, MINUTE, SECOND } from './units';

function schedule(expression: string): ScheduleSpec {
  const parsed = parseSchedule(expression);
  if (!parsed.ok) throw new Error(`test schedule ${expression} did not parse: ${parsed.error}`);
  return parsed.schedule;
}

const dag = (name: string, ...expressions: string[]) =>
  ({ name, schedule: expressions.map(schedule) }) as unknown as DagSpec;

const at = (iso: string) => Date.parse(iso);

/** A deterministic pseudo-random sequence (mulberry32), so that a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mostly ticks a few seconds apart, now and then a long gap or the wall clock stepping back. */
function nextTime(rnd: () => number, t: number): number {
  const r = rnd();
  if (r < 0.8) return t + Math.floor(rnd() * 5 * SECOND);
  if (r < 0.95) return t + Math.floor(rnd() * 3 * HOUR);
  return t - Math.floor(rnd() * 2 * MINUTE);
}

/** A memo that counts what it works out. */
function countingMemo() {
  const counter = { computed: 0 };
  const memo = new NextSlotMemo((s, afterMs) => {
    counter.computed++;
    return nextSlot(s, afterMs);
  });
  return { memo, counter };
}

describe('NextSlotMemo', () => {
  it('answers as nextSlot does while time moves forwards, jumps, and goes backwards', () => {
    const schedules = [
      '* * * * *',
      '*/10 * * * * *',
      '30 1 * * *',
      'CRON_TZ=Europe/Paris 30 2 * * *',
      '0 0 29 2 *',
    ].map(schedule);
    const memo = new NextSlotMemo();
    const rnd = random(13);
    let t = at('2026-03-28T23:58:00Z'); // the night Paris skips 02:00-03:00
    for (let i = 0; i < 150; i++) {
      t = nextTime(rnd, t);
      for (const s of schedules) {
        const expected = nextSlot(s, t);
        expect(rnd() < 0.5 ? memo.next(s, t) : memo.nextAhead(s, t)).toBe(expected);
      }
    }
  });

  it('works each slot out once while ticks come every few seconds', () => {
    const { memo, counter } = countingMemo();
    const everyMinute = schedule('* * * * *');
    const start = at('2026-11-30T01:15:30Z');
    for (let t = start; t < start + 10 * MINUTE; t += 5 * SECOND) memo.nextAhead(everyMinute, t);
    expect(counter.computed).toBe(12); // 01:16 … 01:26, and 01:27 ahead
  });

  it('works it out again for a changed schedule (a new object from an edited DAG file)', () => {
    const memo = new NextSlotMemo();
    const t = at('2026-11-30T01:15:30Z');
    expect(memo.next(schedule('20 1 * * *'), t)).toBe(at('2026-11-30T01:20:00Z'));
    expect(memo.next(schedule('40 1 * * *'), t)).toBe(at('2026-11-30T01:40:00Z'));
  });
});

describe('planTick and nextWake with a NextSlotMemo', () => {
  it('plans the slots dueSlots gives, for short ticks, long gaps and a clock going back', () => {
    const dags = [
      dag('minutely', '* * * * *'),
      dag('fast', '*/10 * * * * *'),
      dag('two', '15 * * * *', '45 * * * *'),
      dag('daily', '30 1 * * *'),
    ];
    const memo = new NextSlotMemo();
    const rnd = random(7);
    let from = at('2026-11-30T01:14:59Z');
    for (let i = 0; i < 150; i++) {
      const to = nextTime(rnd, from);
      const expected = dags
        .flatMap((d) =>
          [...new Set(d.schedule.flatMap((s) => dueSlots(s, from, to)))].map((t) => [t, d.name]),
        )
        .sort((a, b) => (a[0] as number) - (b[0] as number) || String(a[1]).localeCompare(String(b[1])))
        .map(([slotMs, name]) => ({ dag: name, slotMs }));
      expect(planTick(dags, from, to, memo)).toEqual(expected);
      nextWake(dags, Math.max(from, to), memo);
      from = Math.max(from, to);
    }
  });

  it('computes no slot in the tick nextWake woke it for', () => {
    const dags = Array.from({ length: 50 }, (_, i) => dag(`d${i}`, '30 15 1 * * *'));
    const { memo, counter } = countingMemo();
    const before = at('2026-11-30T01:15:25Z');
    const wake = nextWake(dags, before, memo);
    expect(wake).toBe(at('2026-11-30T01:15:30Z'));
    const computedBefore = counter.computed;
    expect(planTick(dags, before, wake!, memo)).toHaveLength(50);
    expect(counter.computed).toBe(computedBefore);
  });
});
