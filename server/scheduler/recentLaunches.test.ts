import { describe, expect, it } from 'vitest';
import { SECOND } from '../core/units';
import { RecentLaunches } from './recentLaunches';
import { FakeTime } from '../testing/fakeTime';

describe('RecentLaunches', () => {
  it('holds a run from the start of its launch until the grace after its end has passed', async () => {
    const time = new FakeTime(Date.parse('2026-11-30T01:15:00Z'));
    const launches = new RecentLaunches(time, 3 * SECOND);
    expect(launches.has('r1')).toBe(false);

    launches.begin('r1');
    await time.advance(10 * SECOND); // a launch stuck on a stalled disk stays in flight, however long
    expect(launches.has('r1')).toBe(true);

    launches.end('r1');
    await time.advance(3 * SECOND);
    expect(launches.has('r1')).toBe(true);
    await time.advance(1);
    expect(launches.has('r1')).toBe(false);
  });

  it('forgets launches past their grace when a new one begins', async () => {
    const time = new FakeTime(Date.parse('2026-11-30T01:15:00Z'));
    const launches = new RecentLaunches(time, SECOND);
    launches.begin('old');
    launches.end('old');
    await time.advance(2 * SECOND);
    launches.begin('new');
    expect(launches.size).toBe(1);
  });
});
