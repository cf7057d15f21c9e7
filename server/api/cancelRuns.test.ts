import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testTask } from '../store/dispatchStore.contract';
import { testRunStatus } from '../testing/testRunStatus';
import { cancelQueuedRuns } from './cancelRuns';
import { enqueueDag } from './queue';
import { getRun } from './runs';
import { T0, testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hello\n');
});
afterEach(() => svc.cleanup());

describe('cancelQueuedRuns', () => {
  it('cancels queued and held runs, and reports each failure without stopping at it', async () => {
    const a = await enqueueDag(svc, 'hello', []);
    await svc.runs.createRun(
      testRunStatus({ run_id: 'held-1', status: 'queued', worker_selector: { zone: 'b' } }),
    );
    await svc.runs.markActive({ run_id: 'held-1', dag_name: 'etl', queue: 'etl' });
    await svc.tasks.enqueue(
      testTask({
        run_id: 'held-1',
        enqueued_at_ms: T0,
        worker_selector: { zone: 'b' },
        hold_until_ms: T0 + 60_000,
      }),
    );
    await svc.runs.createRun(testRunStatus({ run_id: 'done-1', status: 'succeeded' }));
    const b = await enqueueDag(svc, 'hello', []);

    const { results } = await cancelQueuedRuns(svc, [
      a.run_id,
      'held-1',
      'done-1',
      'nope',
      'bad/id',
      b.run_id,
    ]);

    expect(results).toEqual([
      { run_id: a.run_id, ok: true, status: 'aborted', error: null },
      { run_id: 'held-1', ok: true, status: 'aborted', error: null },
      {
        run_id: 'done-1',
        ok: false,
        status: 'succeeded',
        error: 'run done-1 is not queued (status: succeeded)',
      },
      { run_id: 'nope', ok: false, status: null, error: expect.stringMatching(/nope/) },
      { run_id: 'bad/id', ok: false, status: null, error: expect.stringMatching(/bad\/id/) },
      { run_id: b.run_id, ok: true, status: 'aborted', error: null },
    ]);
    expect((await getRun(svc, a.run_id)).error).toBe('dequeued by user');
    expect((await getRun(svc, 'held-1')).error).toBe('cancelled before a worker took it');
    expect(await svc.tasks.findByRun('held-1')).toBeNull();
    expect(await svc.queue.list('hello')).toEqual([]);
  });

  it('answers a repeated run ID once', async () => {
    const a = await enqueueDag(svc, 'hello', []);
    const { results } = await cancelQueuedRuns(svc, [a.run_id, a.run_id]);
    expect(results).toEqual([{ run_id: a.run_id, ok: true, status: 'aborted', error: null }]);
  });
});
