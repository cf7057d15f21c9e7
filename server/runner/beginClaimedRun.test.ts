import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { SECOND } from '../core/units';
import { FakeTime } from '../testing/fakeTime';
import { testRunStatus } from '../testing/testRunStatus';
import { beginClaimedRun } from './beginClaimedRun';
import { RunConflictError, StartUnrecordedError } from './errors';

const status = testRunStatus({ run_id: 'r1', status: 'running' });

/** A store that fails `failures` begins with a connection error, then answers `answer`. */
function store(failures: number, answer: boolean) {
  const calls: number[] = [];
  return {
    calls,
    async beginClaimedAttempt() {
      calls.push(calls.length);
      if (calls.length <= failures) throw new Error('Connection terminated unexpectedly');
      return answer;
    },
  };
}

async function settle<T>(time: FakeTime, p: Promise<T>, stepMs = 100): Promise<T> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) await time.advance(stepMs);
  return p;
}

describe('beginClaimedRun', () => {
  it('retries while the store fails and returns once the start is recorded', async () => {
    const time = new FakeTime(0);
    const s = store(3, true);
    await settle(
      time,
      beginClaimedRun(
        { runStore: s, clock: time, timers: time, logger: silentLogger, budgetMs: 5 * SECOND },
        status,
        'h:1',
      ),
    );
    expect(s.calls).toHaveLength(4);
  });

  it('refuses to run a claim given back meanwhile', async () => {
    const time = new FakeTime(0);
    const p = beginClaimedRun(
      { runStore: store(1, false), clock: time, timers: time, logger: silentLogger, budgetMs: 5 * SECOND },
      status,
      'h:1',
    );
    await expect(settle(time, p)).rejects.toBeInstanceOf(RunConflictError);
    await expect(p).rejects.toMatchObject({ state: 'released' });
  });

  it('gives up when the store stays unreachable for its budget, naming the last error', async () => {
    const time = new FakeTime(0);
    const s = store(Infinity, true);
    const p = beginClaimedRun(
      { runStore: s, clock: time, timers: time, logger: silentLogger, budgetMs: 3 * SECOND },
      status,
      'h:1',
    );
    await expect(settle(time, p)).rejects.toBeInstanceOf(StartUnrecordedError);
    await expect(p).rejects.toThrow(/Connection terminated unexpectedly/);
    // Backing off from 100 ms: 100, 200, 400, 800, then what is left of the 3 s.
    expect(s.calls.length).toBeLessThanOrEqual(7);
    expect(time.monoMs()).toBeGreaterThanOrEqual(3 * SECOND);
    expect(time.monoMs()).toBeLessThan(4 * SECOND);
  });
});
