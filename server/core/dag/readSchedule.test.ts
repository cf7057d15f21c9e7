import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const FILE = '/srv/dags/etl.yaml';
const yaml = (...rows: string[]) => [...rows, 'steps:', '  - run: echo x'].join('\n') + '\n';

function parse(text: string): DagSpec {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

/** Each error as `line:column: field: message`, with ` [unsupported]` for the unsupported kind. */
function errors(text: string): string[] {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) => formatDagError({ ...e, file: null }).replace('<input>:', '') + (e.kind ? ' [unsupported]' : ''),
  );
}

describe('schedule: one-off at entries', () => {
  it('reads {at} and {kind: at, at} as single-slot start schedules, quoted or not', () => {
    const dag = parse(
      yaml('schedule:', '  - at: "2026-12-24T09:00:00+01:00"', '  - {kind: at, at: 2026-12-25T00:00:00Z}'),
    );
    expect(dag.schedule).toEqual([
      {
        expression: '2026-12-24T09:00:00+01:00',
        cron: '',
        timezone: null,
        has_seconds: false,
        at_ms: Date.parse('2026-12-24T08:00:00Z'),
      },
      {
        expression: '2026-12-25T00:00:00Z',
        cron: '',
        timezone: null,
        has_seconds: false,
        at_ms: Date.parse('2026-12-25T00:00:00Z'),
      },
    ]);
  });

  it('mixes cron strings, cron entries and at entries, under start too', () => {
    const dag = parse(
      yaml(
        'schedule:',
        '  start:',
        '    - "0 1 * * *"',
        '    - {kind: cron, expression: "30 2 * * *"}',
        '    - at: "2027-01-01T00:00:00-05:00"',
        '  stop: "0 3 * * *"',
      ),
    );
    expect(dag.schedule.map((s) => [s.cron, s.at_ms ?? null])).toEqual([
      ['0 1 * * *', null],
      ['30 2 * * *', null],
      ['', Date.parse('2027-01-01T05:00:00Z')],
    ]);
    expect(dag.stop_schedule?.map((s) => s.cron)).toEqual(['0 3 * * *']);
  });

  it('accepts a time in the past: it only never fires', () => {
    expect(parse(yaml('schedule: [{at: "2001-01-01T00:00:00Z"}]')).schedule[0].at_ms).toBe(
      Date.parse('2001-01-01T00:00:00Z'),
    );
  });

  it('refuses a time without an offset, with seconds, without seconds, or that is not a date', () => {
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00:00"}]'))).toEqual([
      '1:17: schedule[0].at: invalid one-off time "2026-12-24T09:00:00": needs an explicit offset (Z or +hh:mm), like 2026-12-24T09:00:00+01:00',
    ]);
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00:30Z"}]'))[0]).toMatch(
      /schedule\[0\]\.at: invalid one-off time "2026-12-24T09:00:30Z": must be on a whole minute/,
    );
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00:00.5Z"}]'))[0]).toMatch(
      /must be on a whole minute/,
    );
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00Z"}]'))[0]).toMatch(
      /needs the seconds, written :00/,
    );
    expect(errors(yaml('schedule: [{at: tomorrow}]'))[0]).toMatch(
      /invalid one-off time "tomorrow": must be an RFC 3339 time with an offset/,
    );
    expect(errors(yaml('schedule: [{at: "2026-02-30T09:00:00Z"}]'))[0]).toMatch(
      /day 30 does not exist in 2026-02/,
    );
    expect(errors(yaml('schedule: [{at: "2026-12-24T24:00:00Z"}]'))[0]).toMatch(/hour 24 is out of range/);
    expect(errors(yaml('schedule: [{at: "2026-12-24 09:00:00Z"}]'))[0]).toMatch(/must be an RFC 3339 time/);
    expect(errors(yaml('schedule: [{at: 1766563200}]'))[0]).toMatch(
      /schedule\[0\]\.at: must be an RFC 3339 time as text, got/,
    );
  });

  it('refuses at under stop and restart, and at entries that also say cron', () => {
    expect(errors(yaml('schedule:', '  stop: [{at: "2026-12-24T09:00:00Z"}]'))[0]).toMatch(
      /schedule\.stop\[0\]\.at: a one-off at time is allowed only for start schedules/,
    );
    expect(errors(yaml('schedule:', '  restart: [{kind: at, at: "2026-12-24T09:00:00Z"}]'))[0]).toMatch(
      /schedule\.restart\[0\]\.at: a one-off at time is allowed only for start schedules/,
    );
    expect(errors(yaml('schedule: [{kind: cron, at: "2026-12-24T09:00:00Z"}]'))[0]).toMatch(
      /schedule\[0\]: a cron entry has expression, not at/,
    );
    expect(errors(yaml('schedule: [{kind: at, expression: "0 1 * * *"}]'))[0]).toMatch(
      /schedule\[0\]: a one-off entry \(kind: at\) needs at/,
    );
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00:00Z", expression: "0 1 * * *"}]'))[0]).toMatch(
      /schedule\[0\]: a schedule entry has either expression or at, not both/,
    );
    expect(errors(yaml('schedule: [{kind: once, at: "2026-12-24T09:00:00Z"}]'))[0]).toMatch(
      /schedule\[0\]\.kind: must be cron or at, got "once"/,
    );
  });

  it('still refuses runtime profiles, on at entries too', () => {
    expect(errors(yaml('schedule: [{at: "2026-12-24T09:00:00Z", profile: prod}]'))).toEqual([
      expect.stringMatching(/schedule\[0\]\.profile: .*runtime profiles are not supported.*\[unsupported\]$/),
    ]);
  });
});

describe('schedule: warnings for step values that do not divide the field', () => {
  const warnings = (...rows: string[]) => {
    const r = parseDag(yaml(...rows), { file: FILE, defaultName: 'etl' });
    if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
    return r.warnings;
  };

  it('warns for */7 minutes and */7 hours, listing when they fire and the divisors that work', () => {
    expect(warnings('schedule: "*/7  */7 * * *"')).toEqual([
      'schedule "*/7 */7 * * *": */7 in minute field fires at 0, 7, 14, 21, 28, 35, 42, 49, 56 minutes, ' +
        'not every 7 minutes. Divisors of 60 that work as expected: 2, 3, 4, 5, 6, 10, 12, 15, 20, 30',
      'schedule "*/7 */7 * * *": */7 in hour field fires at 0, 7, 14, 21 hours, not every 7 hours. ' +
        'Divisors of 24 that work as expected: 2, 3, 4, 6, 8, 12',
    ]);
  });

  it('checks start, stop and restart entries too', () => {
    expect(warnings('schedule:', '  start: "*/45 * * * *"', '  stop: "0 */9 * * *"')).toHaveLength(2);
  });

  it('stays quiet for divisors, */5 hours, ranges with steps, and CRON_TZ-prefixed expressions', () => {
    expect(
      warnings(
        'schedule:',
        '  - "*/15 */6 * * *"',
        '  - "0 */5 * * *"',
        '  - "0-59/7 * * * *"',
        '  - "CRON_TZ=UTC */7 * * * *"',
        '  - "*/1 * * * *"',
      ),
    ).toEqual([]);
  });
});
