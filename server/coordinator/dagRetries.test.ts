import { describe, expect, it } from 'vitest';
import { SECOND } from '../core/units';
import type { RunStatus } from '../core/types';
import { FakeTime } from '../testing/fakeTime';
import { dagFromYaml } from '../testing/dagFromYaml';
import { RecordingLogger } from '../testing/recordingLogger';
import { testRunStatus } from '../testing/testRunStatus';
import { DagRetries } from './dagRetries';
import type { DispatchParams, DispatcherApi } from '../core/dispatcherApi';

function setup(
  yaml = 'retry_policy:\n  limit: 2\n  interval_sec: 5\n  backoff: 2\nworker_selector: {zone: b}',
) {
  const time = new FakeTime(Date.parse('2026-11-30T01:00:00Z'));
  const calls: DispatchParams[] = [];
  const dispatcher: DispatcherApi = {
    async dispatch(p) {
      calls.push(p);
      return { outcome: 'dispatched', status: p.previous! };
    },
    async cancel() {
      return { kind: 'not_found' };
    },
  };
  const dag = dagFromYaml('etl', yaml);
  const retries = new DagRetries({
    dispatcher,
    loadDag: async () => ({ ok: true, dag, warnings: [] }),
    timers: time,
    logger: new RecordingLogger(),
  });
  return { time, calls, retries };
}

const failed = (attempt: number, extra: Partial<RunStatus> = {}) =>
  testRunStatus({ run_id: 'r1', dag_name: 'etl', attempt, status: 'failed', params: ['A=1'], ...extra });

describe('DagRetries', () => {
  it('dispatches the next attempt of a failed run after the policy interval, to the DAG selector', async () => {
    const { time, calls, retries } = setup();
    await retries.onRunEnded(failed(1));
    await time.advance(5 * SECOND - 1);
    expect(calls).toHaveLength(0);
    await time.advance(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      runId: 'r1',
      operation: 'retry',
      triggerType: 'retry',
      params: ['A=1'],
      selector: { zone: 'b' },
      fromQueue: false,
    });
    expect(calls[0].previous!.attempt).toBe(1);
  });

  it('waits longer with backoff and stops once the limit is spent', async () => {
    const { time, calls, retries } = setup();
    await retries.onRunEnded(failed(2));
    await time.advance(10 * SECOND);
    expect(calls).toHaveLength(1);
    await retries.onRunEnded(failed(3));
    await time.advance(60 * SECOND);
    expect(calls).toHaveLength(1);
  });

  it('retries nothing that succeeded, was aborted, or has no policy; and nothing after stop', async () => {
    const a = setup();
    await a.retries.onRunEnded(failed(1, { status: 'succeeded' }));
    await a.retries.onRunEnded(failed(1, { status: 'aborted' }));
    await a.time.advance(60 * SECOND);
    expect(a.calls).toHaveLength(0);

    const b = setup('worker_selector: {zone: b}');
    await b.retries.onRunEnded(failed(1));
    await b.time.advance(60 * SECOND);
    expect(b.calls).toHaveLength(0);

    const c = setup();
    await c.retries.onRunEnded(failed(1));
    c.retries.stop();
    await c.time.advance(60 * SECOND);
    expect(c.calls).toHaveLength(0);
  });
});
