import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { RunState, RunStatus } from '../core/types';
import { dagOf, stepOf } from '../runner/testSupport';
import { FakeTime } from '../testing/fakeTime';
import { remoteReporter, type Rejection } from './remoteReporter';
import { FakeCoordinator } from './testSupport';

function statusIn(state: RunState): RunStatus {
  const s = newRunStatus({
    dag: dagOf([stepOf('a', 'true')]),
    runId: 'run-1',
    status: state,
    triggerType: 'manual',
    scheduleTime: null,
    params: [],
    nowIso: '2026-01-01T00:00:00Z',
  });
  return s;
}

function setup(settleMs?: number) {
  const time = new FakeTime(1_700_000_000_000);
  const coordinator = new FakeCoordinator();
  const rejections: Rejection[] = [];
  const reporter = remoteReporter({
    client: coordinator,
    workerId: 'w1',
    clock: time,
    logger: silentLogger,
    onRejected: (why) => rejections.push(why),
    beforeFinal: async () => {
      coordinator.calls.push('beforeFinal');
    },
    random: () => 1,
    settleMs,
    timers: time,
  });
  return { time, coordinator, rejections, reporter };
}

describe('remoteReporter', () => {
  it('sends each status with the worker ID, and only the latest of a burst while one is in flight', async () => {
    const { coordinator, reporter } = setup();
    const running = statusIn('running');
    const first = reporter.write(running);
    running.steps[0].status = 'running';
    const second = reporter.write(running);
    running.steps[0].status = 'succeeded';
    const third = reporter.write(running);
    await Promise.all([first, second, third]);

    expect(coordinator.statuses.map((s) => s.steps[0].status)).toEqual(['not_started', 'succeeded']);
  });

  it('with settleMs, sends the start once it passed, and a run that ends within it in one status', async () => {
    const { time, coordinator, reporter } = setup(100);
    const status = statusIn('running');
    const started = reporter.write(status);
    await time.advance(99);
    expect(coordinator.statuses).toHaveLength(0);
    await time.advance(1);
    await started;
    expect(coordinator.statuses.map((s) => s.status)).toEqual(['running']);

    const quick = setup(100);
    const run = statusIn('running');
    void quick.reporter.write(run);
    await quick.time.advance(30);
    run.steps[0].status = 'succeeded';
    run.status = 'succeeded';
    await quick.reporter.write(run);
    expect(quick.coordinator.statuses.map((s) => [s.status, s.steps[0].status])).toEqual([
      ['succeeded', 'succeeded'],
    ]);
    await quick.time.advance(200);
    expect(quick.coordinator.statuses).toHaveLength(1);
    expect(await quick.reporter.settle(1000, quick.time)).toBe('delivered');
  });

  it('with settleMs, sends a change of steps only once it passed, and a change of state at once with it', async () => {
    const { time, coordinator, reporter } = setup(100);
    const status = statusIn('running');
    const started = reporter.write(status);
    await time.advance(100);
    await started;
    status.steps[0].status = 'running';
    const stepStarted = reporter.write(status);
    await time.advance(50);
    expect(coordinator.statuses.map((s) => s.steps[0].status)).toEqual(['not_started']);
    await time.advance(50);
    await stepStarted;
    expect(coordinator.statuses.map((s) => s.steps[0].status)).toEqual(['not_started', 'running']);

    status.steps[0].status = 'succeeded';
    void reporter.write(status);
    status.status = 'succeeded';
    await reporter.write(status);

    expect(coordinator.statuses.map((s) => [s.status, s.steps[0].status])).toEqual([
      ['running', 'not_started'],
      ['running', 'running'],
      ['succeeded', 'succeeded'],
    ]);
    await time.advance(200);
    expect(coordinator.statuses).toHaveLength(3);
  });

  it('with settleMs, sends a change of steps made while a send is in flight after it passed', async () => {
    const { time, coordinator, reporter } = setup(100);
    const status = statusIn('running');
    const first = reporter.write(status);
    // The start waits out settleMs; once it is on its way, a change of steps waits behind it.
    await time.advance(100);
    status.steps[0].status = 'running';
    const second = reporter.write(status);
    await first;
    expect(coordinator.statuses).toHaveLength(1);
    await time.advance(100);
    await second;

    expect(coordinator.statuses.map((s) => s.steps[0].status)).toEqual(['not_started', 'running']);
    expect(await reporter.settle(1000, time)).toBe('delivered');
  });

  it('retries a failed status on a heartbeat after its backoff, and sends the terminal one after beforeFinal', async () => {
    const { time, coordinator, reporter } = setup();
    coordinator.unreachable = true;
    await reporter.write(statusIn('running'));
    coordinator.unreachable = false;
    await reporter.heartbeat(time.nowMs());
    expect(coordinator.statuses).toHaveLength(0); // still backing off (500 ms)

    await time.advance(500);
    await reporter.heartbeat(time.nowMs());
    expect(coordinator.statuses.map((s) => s.status)).toEqual(['running']);

    const done = statusIn('succeeded');
    await reporter.write(done);
    expect(coordinator.calls.slice(-2)).toEqual(['beforeFinal', 'status:succeeded']);
  });

  it('settles once the coordinator has the final status, retrying through an outage', async () => {
    const { time, coordinator, reporter } = setup();
    coordinator.unreachable = true;
    await reporter.write(statusIn('failed'));
    const settled = reporter.settle(60_000, time);
    await time.advance(400);
    coordinator.unreachable = false;
    await time.advance(2_000);
    expect(await settled).toBe('delivered');
    expect(coordinator.statuses.map((s) => s.status)).toEqual(['failed']);
  });

  it('gives up settling after the timeout when the coordinator stays away', async () => {
    const { time, coordinator, reporter } = setup();
    coordinator.unreachable = true;
    await reporter.write(statusIn('failed'));
    const settled = reporter.settle(5_000, time);
    await time.advance(6_000);
    expect(await settled).toBe('undelivered');
  });

  it('reports a refused status once and sends nothing after it', async () => {
    const { time, coordinator, reporter, rejections } = setup();
    coordinator.statusReply = () => ({ accepted: false, cancel: false, error: 'run is not yours' });
    await reporter.write(statusIn('running'));
    await reporter.write(statusIn('running'));
    expect(rejections).toEqual([{ cancel: false, error: 'run is not yours' }]);
    expect(coordinator.calls.filter((c) => c.startsWith('status'))).toHaveLength(1);
    expect(await reporter.settle(1_000, time)).toBe('rejected');
  });

  it('passes a cancel on and keeps reporting, so the aborted end reaches the coordinator', async () => {
    const { coordinator, reporter, rejections } = setup();
    coordinator.statusReply = () => ({ accepted: true, cancel: true });
    await reporter.write(statusIn('running'));
    await reporter.write(statusIn('aborted'));
    expect(rejections).toEqual([{ cancel: true, error: null }]);
    expect(coordinator.statuses.map((s) => s.status)).toEqual(['running', 'aborted']);
  });
});
