import { describe, expect, it } from 'vitest';
import type { DagSpec, RunStatus } from '../core/types';
import { MemoryRunStore } from '../store/memoryRunStore';
import { dagFromYaml } from '../testing/dagFromYaml';
import { FakeTime } from '../testing/fakeTime';
import { RecordingLogger } from '../testing/recordingLogger';
import { testRunStatus } from '../testing/testRunStatus';
import { DagRetries, RETRY_START_GRACE_MS } from './dagRetries';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const flaky = dagFromYaml(
  'flaky',
  'retry_policy:\n  limit: 2\n  interval_sec: 10\n  backoff: 2\nsteps:\n  - name: s\n    run: "false"\n',
);
const plain = dagFromYaml('plain', 'steps:\n  - name: s\n    run: "false"\n');

function setup(opts: { windowMs?: number; dags?: DagSpec[]; suspended?: string[] } = {}) {
  const time = new FakeTime(T0);
  const runs = new MemoryRunStore();
  const logger = new RecordingLogger();
  const retried: Array<{ dag: string; run: string; after: number }> = [];
  let allowed = true;
  let failNext: Error | null = null;
  const retries = new DagRetries({
    runs,
    dags: async () => opts.dags ?? [flaky, plain],
    suspended: async () => new Set(opts.suspended ?? []),
    clock: time,
    logger,
    windowMs: opts.windowMs ?? 24 * 3_600_000,
    canDispatch: () => allowed,
    retry: async (dag, previous) => {
      if (failNext) {
        const err = failNext;
        failNext = null;
        throw err;
      }
      retried.push({ dag: dag.name, run: previous.run_id, after: previous.attempt });
    },
  });
  /** A run whose latest attempt `attempt` ended `status` at `finishedMs`. */
  const ended = async (runId: string, over: Partial<RunStatus> & { finishedMs?: number } = {}) => {
    const { finishedMs = T0, ...rest } = over;
    const first = testRunStatus({
      run_id: runId,
      dag_name: 'flaky',
      status: 'failed',
      created_at: iso(T0 - 1000),
      finished_at: iso(finishedMs),
      ...rest,
      attempt: 1,
    });
    await runs.createRun(first);
    for (let a = 2; a <= (rest.attempt ?? 1); a++) await runs.createAttempt({ ...first, attempt: a });
  };
  return {
    time,
    runs,
    logger,
    retried,
    retries,
    ended,
    deny: () => (allowed = false),
    failNextWith: (err: Error) => (failNext = err),
  };
}

describe('DAG-level retries', () => {
  it('starts the next attempt once the interval has passed since the failed attempt ended', async () => {
    const t = setup();
    await t.ended('r1');
    expect(await t.retries.scan()).toBe(10_000);
    expect(t.retried).toEqual([]);
    await t.time.advance(9_999);
    expect(await t.retries.scan()).toBe(1);
    await t.time.advance(1);
    await t.retries.scan();
    expect(t.retried).toEqual([{ dag: 'flaky', run: 'r1', after: 1 }]);
    expect(t.logger.find('Retrying the failed run (retry_policy)')[0].fields).toMatchObject({
      dag: 'flaky',
      run_id: 'r1',
      next_attempt: 2,
      limit: 2,
      waited: '10s',
    });
  });

  it('waits interval × backoff^n after the n-th retry and stops at the limit', async () => {
    const t = setup();
    // One retry made already: the second waits 10 s × 2.
    await t.ended('r2', { attempt: 2, auto_retry_count: 1 });
    expect(await t.retries.scan()).toBe(20_000);
    await t.time.advance(20_000);
    await t.retries.scan();
    expect(t.retried).toEqual([{ dag: 'flaky', run: 'r2', after: 2 }]);
    expect(t.logger.find('Retrying the failed run')[0].fields).toMatchObject({ retry: 2, waited: '20s' });
    // Two made: the limit.
    await t.ended('r3', { attempt: 3, auto_retry_count: 2 });
    await t.time.advance(3_600_000);
    await t.retries.scan();
    expect(t.retried.filter((r) => r.run === 'r3')).toEqual([]);
  });

  it('does not count retries made by hand, as Dagu counts only its own', async () => {
    const t = setup();
    // Attempts 2 and 3 were `dagu retry` by hand: no retry of the policy used yet.
    await t.ended('byhand', { attempt: 3 });
    expect(await t.retries.scan()).toBe(10_000);
    await t.time.advance(10_000);
    await t.retries.scan();
    expect(t.retried).toEqual([{ dag: 'flaky', run: 'byhand', after: 3 }]);
  });

  it('starts a retry once, and again only if its attempt has not appeared within the grace', async () => {
    const t = setup();
    await t.ended('r1');
    await t.time.advance(10_000);
    await t.retries.scan();
    await t.time.advance(5_000);
    await t.retries.scan();
    expect(t.retried).toHaveLength(1);
    await t.time.advance(RETRY_START_GRACE_MS);
    await t.retries.scan();
    expect(t.retried).toHaveLength(2);
  });

  it('retries only failed root runs of DAGs with a retry_policy, created within the window', async () => {
    const t = setup({ windowMs: 3_600_000 });
    await t.ended('ok', { status: 'succeeded' });
    await t.ended('aborted', { status: 'aborted' });
    await t.ended('child', { parent: { dag_name: 'p', run_id: 'p1', step: 's' } });
    await t.ended('other', { dag_name: 'plain' });
    await t.ended('old', { created_at: iso(T0 - 2 * 3_600_000) });
    await t.ended('due');
    await t.time.advance(10_000);
    await t.retries.scan();
    expect(t.retried.map((r) => r.run)).toEqual(['due']);
  });

  it('does nothing while this instance may not dispatch, with the window at 0, or for a suspended DAG', async () => {
    const off = setup({ windowMs: 0 });
    await off.ended('r1');
    await off.time.advance(10_000);
    expect(await off.retries.scan()).toBeNull();
    expect(off.retried).toEqual([]);

    const suspended = setup({ suspended: ['flaky'] });
    await suspended.ended('r1');
    await suspended.time.advance(10_000);
    await suspended.retries.scan();
    expect(suspended.retried).toEqual([]);

    const standby = setup();
    await standby.ended('r1');
    await standby.time.advance(10_000);
    standby.deny();
    expect(await standby.retries.scan()).toBeNull();
    expect(standby.retried).toEqual([]);
  });

  it('reads a run whose retries are spent once, until its latest attempt or the limit changes', async () => {
    const t = setup();
    await t.ended('spent', { attempt: 3, auto_retry_count: 2 });
    let reads = 0;
    const read = t.runs.readStatus.bind(t.runs);
    t.runs.readStatus = async (id: string) => {
      reads++;
      return read(id);
    };
    await t.retries.scan();
    await t.retries.scan();
    await t.retries.scan();
    expect(reads).toBe(1);
    expect(t.retried).toEqual([]);
  });

  it('logs a retry that could not be started and tries it again at the next pass', async () => {
    const t = setup();
    await t.ended('r1');
    await t.time.advance(10_000);
    t.failNextWith(new Error('no coordinator'));
    await t.retries.scan();
    expect(t.retried).toEqual([]);
    expect(t.logger.find('Could not start the retry of a failed run')[0].fields).toMatchObject({
      run_id: 'r1',
      error: 'no coordinator',
    });
    await t.retries.scan();
    expect(t.retried).toEqual([{ dag: 'flaky', run: 'r1', after: 1 }]);
  });
});
