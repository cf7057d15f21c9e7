import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { testRunStatus } from '../testing/testRunStatus';
import { BadRequestError } from './errors';
import { getRunTimings, parseTimingIds } from './runTimings';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

describe('getRunTimings', () => {
  it('answers each run in the order asked, with its duration, and null state for one not found', async () => {
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'c1',
        status: 'succeeded',
        started_at: '2026-03-01T10:00:00.000Z',
        finished_at: '2026-03-01T10:00:02.500Z',
      }),
    );
    await svc.runs.createRun(
      testRunStatus({ run_id: 'c2', status: 'running', started_at: '2026-03-01T10:00:00Z' }),
    );

    const { runs } = await getRunTimings(svc, ['c2', 'gone', 'c1']);

    expect(runs.map((r) => [r.run_id, r.status, r.duration_ms])).toEqual([
      ['c2', 'running', null],
      ['gone', null, null],
      ['c1', 'succeeded', 2500],
    ]);
  });
});

describe('parseTimingIds', () => {
  it('takes 1 to 100 distinct valid IDs and names the field otherwise', () => {
    expect(parseTimingIds('a,b,a')).toEqual(['a', 'b']);
    expect(() => parseTimingIds('')).toThrow(BadRequestError);
    expect(() => parseTimingIds(Array.from({ length: 101 }, (_, i) => `r${i}`).join(','))).toThrow(/^ids:/);
    expect(() => parseTimingIds('../x')).toThrow(InvalidNameError);
  });
});
