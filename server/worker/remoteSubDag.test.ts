import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { RunState } from '../core/types';
import { SubDagStartError, type SubDagRequest } from '../runner/subDag';
import { dagOf, stepOf } from '../runner/testSupport';
import { FakeTime, settle } from '../testing/fakeTime';
import { remoteSubDagRunner } from './remoteSubDag';
import { FakeCoordinator } from './testSupport';

function setup() {
  const time = new FakeTime(1_700_000_000_000);
  const coordinator = new FakeCoordinator();
  const runner = remoteSubDagRunner({
    client: coordinator,
    clock: time,
    timers: time,
    logger: silentLogger,
    stopWaitMs: 5_000,
  });
  return { time, coordinator, runner };
}

function request(signal = new AbortController().signal): SubDagRequest {
  return {
    parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call-child' },
    dagName: 'child',
    runId: 'parent-1-abc123',
    params: ['X=1'],
    workerSelector: { zone: 'b' },
    signal,
    logFiles: { stdout: '/dev/null', stderr: '/dev/null' },
  };
}

function childIn(state: RunState, error: string | null = null) {
  const s = newRunStatus({
    dag: dagOf([stepOf('a', 'true')], { name: 'child' }),
    runId: 'parent-1-abc123',
    status: state,
    triggerType: 'subdag',
    scheduleTime: null,
    params: [],
    nowIso: '2026-01-01T00:00:00Z',
  });
  return { ...s, error };
}

describe('remoteSubDagRunner', () => {
  it('dispatches the child through the coordinator and follows it until it ends', async () => {
    const { time, coordinator, runner } = setup();
    const result = runner(request());
    await settle();
    expect(coordinator.dispatches).toEqual([
      {
        dag_name: 'child',
        run_id: 'parent-1-abc123',
        params: ['X=1'],
        worker_selector: { zone: 'b' },
        parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call-child' },
      },
    ]);
    coordinator.runs.set('parent-1-abc123', childIn('running'));
    await time.advance(500);
    const ended = childIn('failed', 'step "a" failed: exit code 1');
    // What its steps left for the caller: an output variable and a published value.
    ended.steps[0].output = { OUT: 'from-a' };
    ended.steps[0].published_outputs = { verdict: 'clean' };
    coordinator.runs.set('parent-1-abc123', ended);
    await time.advance(500);
    expect(await result).toEqual({
      run_id: 'parent-1-abc123',
      dag_name: 'child',
      status: 'failed',
      error: 'step "a" failed: exit code 1',
      params: [],
      outputs: { OUT: 'from-a' },
      output_values: { verdict: 'clean' },
    });
  });

  it('fails the call step with the refusal when the coordinator refuses the dispatch', async () => {
    const { coordinator, runner } = setup();
    coordinator.dispatchReply = (req) => ({
      outcome: 'refused',
      run_id: req.run_id,
      error: 'no worker matches the selector {zone: b}',
    });
    const err = await runner(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SubDagStartError);
    expect((err as Error).message).toBe('no worker matches the selector {zone: b}');
  });

  it('cancels the child when the parent stops and returns once the child ended', async () => {
    const { time, coordinator, runner } = setup();
    coordinator.runs.set('parent-1-abc123', childIn('running'));
    const stop = new AbortController();
    const result = runner(request(stop.signal));
    await time.advance(500);
    stop.abort('SIGTERM');
    await settle();
    expect(coordinator.cancels).toEqual(['parent-1-abc123']);
    coordinator.runs.set('parent-1-abc123', childIn('aborted', 'run aborted (SIGTERM)'));
    await time.advance(500);
    expect(await result).toMatchObject({ status: 'aborted' });
  });

  it('keeps an ended child of the attempt before as it was, and retries the one on the path in a new attempt', async () => {
    const { time, coordinator, runner } = setup();
    const failed = childIn('failed', 'step "a" failed');
    coordinator.runs.set('parent-1-abc123', failed);
    const kept = await runner({ ...request(), existing: { retry: null } });
    expect(kept).toMatchObject({ run_id: 'parent-1-abc123', status: 'failed' });
    expect(coordinator.dispatches).toEqual([]);

    const path = { hops: [{ step: 'deep', run_id: 'leaf-1' }], step: 'build', downstream: true };
    const retried = runner({ ...request(), existing: { retry: { step: 'a', downstream: false, path } } });
    await settle();
    expect(coordinator.dispatches).toEqual([
      {
        dag_name: 'child',
        run_id: 'parent-1-abc123',
        params: [],
        worker_selector: { zone: 'b' },
        parent: { run_id: 'parent-1', dag_name: 'parent', step: 'call-child' },
        retry: { attempt: 1, step: 'a', downstream: false, path },
      },
    ]);
    // The old attempt's end is not the retry's: the runner follows the new attempt until it ends.
    coordinator.runs.set('parent-1-abc123', { ...childIn('running'), attempt: 2 });
    await time.advance(500);
    coordinator.runs.set('parent-1-abc123', { ...childIn('succeeded'), attempt: 2 });
    await time.advance(500);
    expect(await retried).toMatchObject({ status: 'succeeded' });
  });

  it('fails the call step when the child to keep is still running, or the coordinator refuses its retry', async () => {
    const { coordinator, runner } = setup();
    coordinator.runs.set('parent-1-abc123', childIn('running'));
    await expect(runner({ ...request(), existing: { retry: null } })).rejects.toThrow(
      'child DAG run parent-1-abc123 is running; it cannot be kept',
    );
    coordinator.runs.set('parent-1-abc123', childIn('failed'));
    coordinator.dispatchReply = () => ({ outcome: 'refused', run_id: 'parent-1-abc123', error: 'no' });
    const retry = { step: 'a', downstream: false, path: null };
    await expect(runner({ ...request(), existing: { retry } })).rejects.toThrow(
      'retry of child DAG run parent-1-abc123 did not start: no',
    );
  });
});
