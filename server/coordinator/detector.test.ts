import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECOND } from '../core/units';
import {
  coordinatorHarness,
  INTERVAL_MS,
  STALE_MS,
  STORE_KITS,
  TTL_MS,
  WAIT_MS,
  type CoordinatorHarness,
  type StoreKit,
} from './testing/coordinatorHarness';
import { CoordinatorDetector, silenceReason } from './detector';
import { fullDiskHoldTakes } from '../testing/fullDiskHoldTakes';

describe.each(STORE_KITS)('CoordinatorDetector on $name', ({ make }) => {
  let kit: StoreKit;
  let h: CoordinatorHarness;

  beforeEach(async () => {
    kit = await make();
    h = await coordinatorHarness(kit);
  });
  afterEach(async () => {
    await h.detector.stop();
    await kit.dispose();
  });

  it('fails a held run at its deadline, naming the selector, and drops its task', async () => {
    await h.dispatch('run-1', { zone: 'b' });

    await h.time.advance(WAIT_MS - 1);
    expect((await h.detector.sweep()).holdsFailed).toEqual([]);
    expect((await h.status('run-1')).status).toBe('queued');

    await h.time.advance(1);
    const swept = await h.detector.sweep();

    expect(swept.holdsFailed).toEqual(['run-1']);
    const s = await h.status('run-1');
    expect(s).toMatchObject({
      status: 'failed',
      error: 'no worker matched the selector {zone: b} within 2m0s',
      conditions: [],
      finished_at: '2026-11-30T01:17:30Z',
    });
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    expect(h.logger.find('Failed a held run: its wait for a worker ran out')[0].fields).toMatchObject({
      run_id: 'run-1',
      selector: '{zone: b}',
    });
  });

  it('lists a held task past its deadline without letting a worker claim it', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    await h.heartbeat('worker-b', { zone: 'b' });

    expect(await h.claim('worker-b', { zone: 'b' })).toBeNull();
    expect(await h.tasks.listPending()).toHaveLength(1);
  });

  it('keeps a held task past the reservation TTL while an ordinary unclaimed one fails its run', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('held', { zone: 'x' });
    await h.dispatch('ordinary', { zone: 'b' });

    await h.time.advance(TTL_MS + 1);
    const swept = await h.detector.sweep();

    expect(swept.unclaimedFailed).toEqual(['ordinary']);
    expect(await h.status('ordinary')).toMatchObject({
      status: 'failed',
      error: 'no healthy worker matching the selector {zone: b} took the run within 30s',
    });
    expect((await h.status('held')).status).toBe('queued');
    expect((await h.tasks.listPending()).map((t) => t.run_id)).toEqual(['held']);
  });

  it('leaves a held run a worker claimed in time alone after its deadline', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS / 2);
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');

    await h.time.advance(WAIT_MS);
    await h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt: 1 }]);
    const swept = await h.detector.sweep();

    expect(swept.holdsFailed).toEqual([]);
    expect(swept.workerRunsFailed).toEqual([]);
    expect(await h.status('run-1')).toMatchObject({ status: 'running', worker_id: 'worker-b', error: null });
  });

  it('finishes after the reservation TTL when the coordinator died between failing the run and removing the task', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    h.tasks.failAck = 1;

    await h.detector.sweep();
    expect((await h.status('run-1')).status).toBe('failed');
    // Taken but not removed: neither pending nor claimable, and no worker can acknowledge it.
    expect(await h.tasks.listPending()).toEqual([]);
    expect((await h.tasks.listClaims()).map((t) => t.claim!.worker_id)).toEqual(['hold-expiry:coordinator']);

    await h.time.advance(TTL_MS + 1);
    const swept = await h.detector.sweep();

    expect(swept.claimsReturned).toEqual(['run-1']);
    expect(swept.tasksDropped).toEqual(['run-1']);
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.tasks.listClaims()).toEqual([]);
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: 'no worker matched the selector {zone: b} within 2m0s',
    });
    expect(h.logger.find('A worker claimed a run but did not acknowledge it')).toEqual([]);
    expect(h.logger.find('Failed a held run')).toHaveLength(1);
  });

  it('logs an expired hold it cannot take (a full disk) once, and fails it at the first pass that can write', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    const disk = fullDiskHoldTakes(h.tasks);

    for (let i = 0; i < 3; i++) {
      expect((await h.detector.sweep()).holdsFailed).toEqual([]);
      await h.time.advance(INTERVAL_MS);
    }
    expect(h.logger.find('could not handle an item').map((l) => l.fields)).toEqual([
      { item: 'hold', run_id: 'run-1', error: 'ENOSPC: no space left on device, write' },
    ]);

    disk.free();
    expect((await h.detector.sweep()).holdsFailed).toEqual(['run-1']);
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: 'no worker matched the selector {zone: b} within 2m0s',
    });
    // Handled at last: nothing more was logged.
    expect(h.logger.find('could not handle an item')).toHaveLength(1);
  });

  it('of two coordinators sweeping the same expired hold at once, exactly one fails the run', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    const other = await coordinatorHarness(kit);
    const writes: string[] = [];
    const write = kit.runs.writeStatus.bind(kit.runs);
    kit.runs.writeStatus = async (st) => {
      writes.push(`${st.run_id}:${st.status}`);
      return write(st);
    };

    const [a, b] = await Promise.all([h.detector.sweep(), other.detector.sweep()]);

    expect([...a.holdsFailed, ...b.holdsFailed]).toEqual(['run-1']);
    expect(writes).toEqual(['run-1:failed']);
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.tasks.listClaims()).toEqual([]);
  });

  it('drops the expired task of a run that was aborted meanwhile without touching the run', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    const s = await h.status('run-1');
    await h.runs.writeStatus({ ...s, status: 'aborted', error: 'stopped elsewhere' });
    await h.time.advance(WAIT_MS);

    const swept = await h.detector.sweep();

    expect(swept.tasksDropped).toEqual(['run-1']);
    expect(await h.status('run-1')).toMatchObject({ status: 'aborted', error: 'stopped elsewhere' });
    expect(await h.tasks.listPending()).toEqual([]);
  });

  it('fails the run of a worker that stopped heartbeating, naming the worker', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');

    await h.time.advance(STALE_MS);
    expect((await h.detector.sweep()).workerRunsFailed).toEqual([]);
    await h.time.advance(1 * SECOND);
    const swept = await h.detector.sweep();

    expect(swept.workerRunsFailed).toEqual(['run-1']);
    const s = await h.status('run-1');
    expect(s.status).toBe('failed');
    expect(s.error).toBe('worker worker-b stopped heartbeating 11s ago; marked failed');
    expect(s.steps[0]).toMatchObject({ status: 'failed', error: 'the worker stopped heartbeating' });
    expect(s.steps[1].status).toBe('not_started');
    expect(await h.activeIds()).toEqual([]);
    expect(h.logger.find('Failed the runs of a worker that stopped heartbeating')[0].fields).toMatchObject({
      worker_id: 'worker-b',
      run_ids: ['run-1'],
    });
    const late = await h.reportRunning('worker-b', 'run-1');
    expect(late).toMatchObject({ accepted: false, cancel: true });
  });

  it('gives workers a whole stale threshold to heartbeat after the coordinator (re)starts', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');
    // The coordinator is down for three stale thresholds; a new one starts on the same stores.
    await h.time.advance(3 * STALE_MS);
    const restarted = new CoordinatorDetector({ ...h.detectorDeps, clock: h.time, timers: h.time });

    expect((await restarted.sweep()).workerRunsFailed).toEqual([]);
    await h.time.advance(STALE_MS / 2);
    const { attempt } = await h.status('run-1');
    await h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt }]);
    await h.time.advance(STALE_MS / 2 + 1 * SECOND);
    expect((await restarted.sweep()).workerRunsFailed).toEqual([]);
    expect((await h.status('run-1')).status).toBe('running');

    // A worker that never comes back is judged once the threshold has passed under the new coordinator.
    await h.time.advance(STALE_MS + 1 * SECOND);
    expect((await restarted.sweep()).workerRunsFailed).toEqual(['run-1']);
    await restarted.stop();
  });

  it('keeps the run of a worker that heartbeats while its record cannot be written (a full disk)', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');
    const put = h.workers.put.bind(h.workers);
    h.workers.put = () =>
      Promise.reject(Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }));
    for (let i = 0; i < 3; i++) {
      await h.time.advance(STALE_MS / 2);
      await expect(h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt: 1 }])).rejects.toThrow(
        /ENOSPC/,
      );
    }
    // The stored record is 15 s old, past the stale threshold; the coordinator heard the worker 0 s ago.
    expect((await h.detector.sweep()).workerRunsFailed).toEqual([]);
    expect((await h.status('run-1')).status).toBe('running');
    // Once its heartbeats stop, it is silent as usual.
    h.workers.put = put;
    await h.time.advance(STALE_MS + SECOND);
    expect((await h.detector.sweep()).workerRunsFailed).toEqual(['run-1']);
  });

  it('keeps the run of a worker whose heartbeat the registry held up past the stale threshold (a stalled database)', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.reportRunning('worker-b', 'run-1');
    // The registry stops answering: the worker's next heartbeat waits on it, and the worker waits for its answer.
    const put = h.workers.put.bind(h.workers);
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    h.workers.put = async (record) => {
      h.workers.put = put; // only the heartbeat's write waits
      await stalled;
      return put(record);
    };
    const held = h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt: 1 }]);
    await h.time.advance(STALE_MS + 2 * SECOND);
    // Still being heard from: its heartbeat is in this coordinator's hands.
    expect((await h.detector.sweep()).workerRunsFailed).toEqual([]);
    release();
    await held;
    // Written late, the stored record is older than the threshold; the worker was answered just now.
    expect((await h.workers.get('worker-b'))!.last_heartbeat_ms).toBeLessThan(h.time.nowMs() - STALE_MS);
    expect((await h.detector.sweep()).workerRunsFailed).toEqual([]);
    expect((await h.status('run-1')).status).toBe('running');
    // Once its heartbeats stop, it is silent as usual.
    await h.time.advance(STALE_MS + SECOND);
    expect((await h.detector.sweep()).workerRunsFailed).toEqual(['run-1']);
  });

  it('keeps an unclaimed run waiting past the reservation TTL while a matching worker is healthy but busy', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    for (let i = 0; i < 8; i++) {
      await h.time.advance(5 * SECOND);
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.detector.sweep();
    }
    expect((await h.status('run-1')).status).toBe('queued');
    expect(await h.tasks.findByRun('run-1')).not.toBeNull();
    // Once no matching worker is left, the TTL applies and the run fails rather than wait for ever.
    await h.time.advance(31 * SECOND);
    await h.detector.sweep();
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: 'no healthy worker matching the selector {zone: b} took the run within 30s',
    });
  });

  it('fails a run that its healthy worker stopped reporting (restarted under the same ID)', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.heartbeat('worker-b', { zone: 'b' }, [{ run_id: 'run-1', attempt: 1 }]);
    await h.detector.sweep();
    for (let i = 0; i < 3; i++) {
      await h.time.advance(4 * SECOND);
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.detector.sweep();
    }
    expect((await h.status('run-1')).status).not.toBe('failed');
    await h.time.advance(4 * SECOND);
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.detector.sweep();
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: 'worker worker-b no longer reports run run-1; marked failed',
    });
  });

  it('fails a run whose worker is not registered', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.workers.remove('worker-b');

    await h.detector.sweep();

    expect((await h.status('run-1')).error).toBe('worker worker-b is not registered; marked failed');
  });

  it('clears the cancel request of a run that ended', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });
    await h.dispatcher.cancel('run-1');
    await h.runs.writeStatus({ ...(await h.status('run-1')), status: 'aborted' });

    expect((await h.detector.sweep()).cancelsCleared).toEqual(['run-1']);
    expect(await h.cancels.list()).toEqual([]);
  });
});

describe.each(STORE_KITS)('CoordinatorDetector with cancel requests on $name', ({ make }) => {
  it('aborts a cancelled run whose claim came back unacknowledged, and drops its task', async () => {
    const kit = await make();
    const h = await coordinatorHarness(kit);
    try {
      await h.heartbeat('worker-b', { zone: 'b' });
      await h.dispatch('run-1', { zone: 'x' });
      await h.heartbeat('worker-x', { zone: 'x' });
      await h.claim('worker-x', { zone: 'x' });
      expect((await h.dispatcher.cancel('run-1')).kind).toBe('requested');

      await h.time.advance(TTL_MS + 1);
      const swept = await h.detector.sweep();

      expect(swept.claimsReturned).toEqual(['run-1']);
      expect(swept.cancelsCleared).toEqual(['run-1']);
      expect(await h.status('run-1')).toMatchObject({
        status: 'aborted',
        error: 'cancelled before a worker took it',
      });
      expect(await h.tasks.listPending()).toEqual([]);
      expect(await h.cancels.list()).toEqual([]);
    } finally {
      await kit.dispose();
    }
  });
});

describe('CoordinatorDetector on timers', () => {
  it('fails a held run at most one detection interval after its deadline', async () => {
    const kit = await STORE_KITS[0].make();
    const h = await coordinatorHarness(kit);
    h.detector.start();
    await h.time.advance(1 * SECOND);
    await h.dispatch('run-1', { zone: 'b' });

    await h.time.advance(WAIT_MS);
    expect((await h.status('run-1')).status).toBe('queued');
    await h.time.advance(INTERVAL_MS);

    expect((await h.status('run-1')).status).toBe('failed');
    await h.detector.stop();
    await h.time.advance(10 * INTERVAL_MS);
    expect(h.logger.find('Failed a held run')).toHaveLength(1);
  });
});

describe('silenceReason', () => {
  const record = {
    worker_id: 'w',
    labels: {},
    max_active_runs: 1,
    running: [],
    host: 'h',
    pid: 1,
    registered_at_ms: 0,
  };

  it('is null while the worker heartbeat is within the stale threshold', () => {
    expect(silenceReason('w', { ...record, last_heartbeat_ms: 1000 }, 11_000, 10_000)).toBeNull();
  });

  it('prints the silence the Go way, rounded to seconds', () => {
    expect(silenceReason('w', { ...record, last_heartbeat_ms: 0 }, 75_400, 10_000)).toBe(
      'worker w stopped heartbeating 1m15s ago; marked failed',
    );
  });
});
