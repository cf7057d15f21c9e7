import { describe, expect, it } from 'vitest';
import { dueSlots, nextSlot, parseAtSchedule, parseSchedule, slotGranularityMs } from './schedule';
import type { ScheduleSpec } from './types';
import { DAY, HOUR, MINUTE, SECOND } from './units';

function schedule(expression: string): ScheduleSpec {
  const parsed = parseSchedule(expression);
  if (!parsed.ok) throw new Error(`test schedule ${expression} did not parse: ${parsed.error}`);
  return parsed.schedule;
}

function errorOf(expression: string): string {
  const parsed = parseSchedule(expression);
  if (parsed.ok) throw new Error(`expected ${expression} to be rejected`);
  return parsed.error;
}

const at = (iso: string) => Date.parse(iso);
const isoList = (slots: number[]) => slots.map((t) => new Date(t).toISOString());

describe('parseSchedule', () => {
  it('understands a 5-field expression as minute precision in UTC', () => {
    expect(parseSchedule('*/5 * * * *')).toEqual({
      ok: true,
      schedule: { expression: '*/5 * * * *', cron: '*/5 * * * *', timezone: null, has_seconds: false },
    });
  });

  it('understands a leading seconds field when there are 6 fields', () => {
    const s = schedule('*/10 * * * * *');
    expect(s.has_seconds).toBe(true);
    expect(s.cron).toBe('*/10 * * * * *');
  });

  it('keeps the expression as written and reads the CRON_TZ prefix into the time zone', () => {
    const s = schedule('CRON_TZ=Asia/Tokyo  30 9 * * 1-5');
    expect(s).toEqual({
      expression: 'CRON_TZ=Asia/Tokyo  30 9 * * 1-5',
      cron: '30 9 * * 1-5',
      timezone: 'Asia/Tokyo',
      has_seconds: false,
    });
  });

  it('accepts names, lists, ranges, steps, "?" and the L and # forms', () => {
    for (const expr of [
      '0 0 * JAN-MAR mon-fri',
      '0 0 1,15 * *',
      '5/15 * * * *',
      '0 0 ? * MON',
      '0 0 L * *',
    ]) {
      expect(parseSchedule(expr).ok, expr).toBe(true);
    }
    expect(parseSchedule('0 0 * * 5L').ok).toBe(true);
    expect(parseSchedule('0 0 * * 1#2').ok).toBe(true);
  });

  it('maps the @daily-style descriptors to their five fields', () => {
    expect(schedule('@hourly').cron).toBe('0 * * * *');
    expect(schedule('@daily').cron).toBe('0 0 * * *');
    expect(errorOf('@every 5m')).toBe('unknown descriptor "@every 5m"');
  });

  it('names the field and its allowed range when a value is out of range', () => {
    expect(errorOf('61 * * * *')).toBe('minute field: 61 is out of range 0-59');
    expect(errorOf('0 24 * * *')).toBe('hour field: 24 is out of range 0-23');
    expect(errorOf('0 0 0 * *')).toBe('day-of-month field: 0 is out of range 1-31');
    expect(errorOf('0 0 * 13 *')).toBe('month field: 13 is out of range 1-12');
    expect(errorOf('0 0 * * 8')).toBe('day-of-week field: 8 is out of range 0-7');
    expect(errorOf('60 0 0 * * *')).toBe('second field: 60 is out of range 0-59');
  });

  it('names the field when a value is not a number, a step is zero or a range goes backwards', () => {
    expect(errorOf('a * * * *')).toBe('minute field: "a" is not a number');
    expect(errorOf('0 0 * foo *')).toBe('month field: "foo" is not a number or a month name');
    expect(errorOf('*/0 * * * *')).toBe('minute field: step "0" in "*/0" must be a positive integer');
    expect(errorOf('5-1 * * * *')).toBe('minute field: range 5-1 goes backwards');
    expect(errorOf('1,,2 * * * *')).toBe('minute field: empty entry in a list');
    expect(errorOf('0 ? * * *')).toBe(
      'hour field: "?" is only allowed in the day-of-month and day-of-week fields',
    );
  });

  it('rejects a wrong number of fields, saying how many it found', () => {
    expect(errorOf('* * * *')).toMatch(/^expected 5 fields .* or 6 with a leading seconds field, got 4$/);
    expect(errorOf('* * * * * * *')).toMatch(/got 7$/);
    expect(errorOf('')).toMatch(/got 0$/);
  });

  it('rejects an unknown time zone and a prefix without fields', () => {
    expect(errorOf('CRON_TZ=Mars/Olympus 0 0 * * *')).toBe('unknown time zone "Mars/Olympus"');
    expect(errorOf('CRON_TZ=Europe/Paris')).toMatch(/must be followed by a space and the cron fields/);
  });

  it('rejects a schedule that can never fire', () => {
    expect(errorOf('0 0 30 2 *')).toMatch(/never fires/);
    expect(errorOf('0 0 31 4 *')).toMatch(/never fires/);
  });

  it('accepts a schedule that fires only in leap years', () => {
    expect(nextSlot(schedule('0 0 29 2 *'), at('2026-03-01T00:00:00Z'))).toBe(at('2028-02-29T00:00:00Z'));
  });
});

describe('nextSlot', () => {
  const everyFive = schedule('*/5 * * * *');

  it('returns the first slot strictly after the given time', () => {
    expect(nextSlot(everyFive, at('2026-11-30T01:12:34Z'))).toBe(at('2026-11-30T01:15:00Z'));
    expect(nextSlot(everyFive, at('2026-11-30T01:15:00Z'))).toBe(at('2026-11-30T01:20:00Z'));
    expect(nextSlot(everyFive, at('2026-11-30T01:14:59.999Z'))).toBe(at('2026-11-30T01:15:00Z'));
    expect(nextSlot(everyFive, at('2026-11-30T01:15:00.001Z'))).toBe(at('2026-11-30T01:20:00Z'));
  });

  it('steps by seconds with a seconds field', () => {
    const everyTenSeconds = schedule('*/10 * * * * *');
    expect(nextSlot(everyTenSeconds, at('2026-11-30T01:15:00Z'))).toBe(at('2026-11-30T01:15:10Z'));
    expect(nextSlot(everyTenSeconds, at('2026-11-30T01:15:09.999Z'))).toBe(at('2026-11-30T01:15:10Z'));
    expect(nextSlot(schedule('30 * * * * *'), at('2026-11-30T01:15:30Z'))).toBe(at('2026-11-30T01:16:30Z'));
  });

  it('reads a 5-field schedule in UTC, whatever the host time zone', () => {
    expect(nextSlot(schedule('0 9 * * *'), at('2026-06-01T00:00:00Z'))).toBe(at('2026-06-01T09:00:00Z'));
  });

  it('reads the fields in the CRON_TZ zone', () => {
    const tokyoNine = schedule('CRON_TZ=Asia/Tokyo 0 9 * * *');
    expect(nextSlot(tokyoNine, at('2026-06-01T00:00:00Z'))).toBe(at('2026-06-02T00:00:00Z'));
    const kolkata = schedule('CRON_TZ=Asia/Kolkata 0 0 * * *');
    expect(nextSlot(kolkata, at('2026-06-01T00:00:00Z'))).toBe(at('2026-06-01T18:30:00Z'));
  });

  it('follows daylight saving time: 09:00 in New York is 13:00 UTC in summer and 14:00 UTC in winter', () => {
    const nineInNewYork = schedule('CRON_TZ=America/New_York 0 9 * * *');
    expect(nextSlot(nineInNewYork, at('2026-07-01T00:00:00Z'))).toBe(at('2026-07-01T13:00:00Z'));
    expect(nextSlot(nineInNewYork, at('2026-12-01T00:00:00Z'))).toBe(at('2026-12-01T14:00:00Z'));
  });

  it('fires once, an hour late, for a local time that the spring-forward gap skips', () => {
    // 2026-03-08 02:30 does not exist in New York; the slot lands at 03:30 EDT and fires exactly once that day.
    const twoThirty = schedule('CRON_TZ=America/New_York 30 2 * * *');
    const first = nextSlot(twoThirty, at('2026-03-07T12:00:00Z'))!;
    expect(new Date(first).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(nextSlot(twoThirty, first)).toBe(at('2026-03-09T06:30:00Z'));
  });

  it('fires once for a local time that the fall-back repeats', () => {
    const oneThirty = schedule('CRON_TZ=America/New_York 30 1 * * *');
    const first = nextSlot(oneThirty, at('2026-10-31T12:00:00Z'))!;
    expect(new Date(first).toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(nextSlot(oneThirty, first)).toBe(at('2026-11-02T06:30:00Z'));
  });
});

describe('dueSlots', () => {
  const everyMinute = schedule('* * * * *');

  it('excludes the start and includes the end of the window', () => {
    const slots = dueSlots(everyMinute, at('2026-11-30T01:00:00Z'), at('2026-11-30T01:03:00Z'));
    expect(isoList(slots)).toEqual([
      '2026-11-30T01:01:00.000Z',
      '2026-11-30T01:02:00.000Z',
      '2026-11-30T01:03:00.000Z',
    ]);
  });

  it('returns nothing for an empty window, a window without a slot, or a clock that moved backwards', () => {
    const t = at('2026-11-30T01:00:00Z');
    expect(dueSlots(everyMinute, t, t)).toEqual([]);
    expect(dueSlots(everyMinute, t + 1, t + 59 * SECOND)).toEqual([]);
    expect(dueSlots(everyMinute, t + 10 * MINUTE, t)).toEqual([]);
  });

  it('returns the one slot of a sub-minute window that contains it', () => {
    const t = at('2026-11-30T01:00:00Z');
    expect(dueSlots(everyMinute, t - 1, t)).toEqual([t]);
    expect(dueSlots(everyMinute, t - 1, t + 1)).toEqual([t]);
  });

  it('keeps the newest slots when there are more than the cap', () => {
    const from = at('2026-11-30T00:00:00Z');
    const slots = dueSlots(everyMinute, from, from + 10 * MINUTE, 3);
    expect(slots).toEqual([from + 8 * MINUTE, from + 9 * MINUTE, from + 10 * MINUTE]);
  });

  it('caps at 1000 slots by default, even over a window of a year of seconds', () => {
    const everySecond = schedule('* * * * * *');
    const to = at('2026-11-30T00:00:00Z');
    const slots = dueSlots(everySecond, to - 365 * DAY, to);
    expect(slots).toHaveLength(1000);
    expect(slots[0]).toBe(to - 999 * SECOND);
    expect(slots[999]).toBe(to);
  });

  it('returns nothing when the cap is below one', () => {
    const from = at('2026-11-30T00:00:00Z');
    expect(dueSlots(everyMinute, from, from + HOUR, 0)).toEqual([]);
  });

  it('yields seconds slots for a 6-field schedule', () => {
    const everyFifteenSeconds = schedule('*/15 * * * * *');
    const from = at('2026-11-30T00:00:00Z');
    expect(dueSlots(everyFifteenSeconds, from, from + MINUTE)).toEqual([
      from + 15 * SECOND,
      from + 30 * SECOND,
      from + 45 * SECOND,
      from + MINUTE,
    ]);
  });

  it('lists each distinct instant of a repeated fall-back hour, as UTC times', () => {
    const halfHourly = schedule('CRON_TZ=America/New_York */30 * * * *');
    const slots = dueSlots(halfHourly, at('2026-11-01T04:00:00Z'), at('2026-11-01T07:00:00Z'));
    expect(isoList(slots)).toEqual([
      '2026-11-01T04:30:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T06:00:00.000Z',
      '2026-11-01T06:30:00.000Z',
      '2026-11-01T07:00:00.000Z',
    ]);
  });

  it('agrees with stepping nextSlot forward, across daylight saving changes', () => {
    const cases: Array<[string, string, string]> = [
      ['CRON_TZ=America/New_York */30 * * * *', '2026-03-07T20:00:00Z', '2026-03-08T12:00:00Z'],
      ['CRON_TZ=America/New_York */30 * * * *', '2026-10-31T20:00:00Z', '2026-11-01T12:00:00Z'],
      ['CRON_TZ=America/New_York 30 2 * * *', '2026-03-01T00:00:00Z', '2026-03-15T00:00:00Z'],
      ['CRON_TZ=America/New_York 30 1 * * *', '2026-10-25T00:00:00Z', '2026-11-08T00:00:00Z'],
      ['CRON_TZ=Europe/Berlin 15 * * * *', '2026-03-28T20:00:00Z', '2026-03-29T06:00:00Z'],
      ['CRON_TZ=Europe/Berlin 15 * * * *', '2026-10-24T20:00:00Z', '2026-10-25T06:00:00Z'],
      ['*/7 * * * * *', '2026-11-30T00:00:00Z', '2026-11-30T00:10:00Z'],
    ];
    for (const [expr, fromIso, toIso] of cases) {
      const s = schedule(expr);
      const forward: number[] = [];
      for (let t = nextSlot(s, at(fromIso)); t !== null && t <= at(toIso); t = nextSlot(s, t))
        forward.push(t);
      expect(dueSlots(s, at(fromIso), at(toIso)), expr).toEqual(forward);
    }
  });
});

describe('slotGranularityMs', () => {
  it('is a second with a seconds field and a minute without', () => {
    expect(slotGranularityMs(schedule('* * * * * *'))).toBe(SECOND);
    expect(slotGranularityMs(schedule('* * * * *'))).toBe(MINUTE);
  });
});

describe('one-off at schedules', () => {
  function oneOff(text: string): ScheduleSpec {
    const parsed = parseAtSchedule(text);
    if (!parsed.ok) throw new Error(`test time ${text} did not parse: ${parsed.error}`);
    return parsed.schedule;
  }
  const atError = (text: string) => {
    const parsed = parseAtSchedule(text);
    if (parsed.ok) throw new Error(`expected ${text} to be rejected`);
    return parsed.error;
  };
  const s = oneOff('2026-12-24T09:00:00+01:00');
  const T = at('2026-12-24T08:00:00Z');

  it('reads an RFC 3339 time with an offset as its instant, keeping the text as written', () => {
    expect(s).toEqual({
      expression: '2026-12-24T09:00:00+01:00',
      cron: '',
      timezone: null,
      has_seconds: false,
      at_ms: T,
    });
    expect(oneOff('2026-12-24T08:00:00Z').at_ms).toBe(T);
    expect(oneOff('2026-12-24T03:00:00-05:00').at_ms).toBe(T);
    expect(oneOff('2028-02-29T00:00:00Z').at_ms).toBe(at('2028-02-29T00:00:00Z'));
  });

  it('names what is wrong with a bad time', () => {
    expect(atError('2026-12-24T09:00:00')).toMatch(/needs an explicit offset/);
    expect(atError('2026-12-24T09:00:01Z')).toMatch(/whole minute/);
    expect(atError('2026-12-24T09:00:00.000Z')).toMatch(/whole minute/);
    expect(atError('2026-12-24T09:00+01:00')).toMatch(/needs the seconds/);
    expect(atError('2026-12-24t09:00:00z')).toMatch(/must be an RFC 3339 time with an offset/);
    expect(atError('24/12/2026 09:00')).toMatch(/must be an RFC 3339 time with an offset/);
    expect(atError('')).toMatch(/must be an RFC 3339 time with an offset/);
    expect(atError('2026-13-01T00:00:00Z')).toMatch(/month 13 is out of range/);
    expect(atError('2027-02-29T00:00:00Z')).toMatch(/day 29 does not exist in 2027-02/);
    expect(atError('2026-12-24T09:60:00Z')).toMatch(/minute 60 is out of range/);
    expect(atError('2026-12-24T09:00:00+24:00')).toMatch(/offset \+24:00 is out of range/);
  });

  it('has exactly one slot: next before it, none after it', () => {
    expect(nextSlot(s, 0)).toBe(T);
    expect(nextSlot(s, T - 1)).toBe(T);
    expect(nextSlot(s, T)).toBeNull();
    expect(nextSlot(s, T + DAY)).toBeNull();
  });

  it('is due only in a window that contains it', () => {
    expect(dueSlots(s, T - MINUTE, T)).toEqual([T]);
    expect(dueSlots(s, T - 1, T + HOUR)).toEqual([T]);
    expect(dueSlots(s, T, T + HOUR)).toEqual([]);
    expect(dueSlots(s, T - HOUR, T - 1)).toEqual([]);
    expect(dueSlots(s, T + 1, T - 1)).toEqual([]);
    expect(dueSlots(s, T - 1, T, 0)).toEqual([]);
  });

  it('has minute granularity', () => {
    expect(slotGranularityMs(s)).toBe(MINUTE);
  });
});
