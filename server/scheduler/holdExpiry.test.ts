import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  coordinatorHarness,
  INTERVAL_MS,
  STALE_MS,
  START,
  STORE_KITS,
  TTL_MS,
  WAIT_MS,
  type CoordinatorHarness,
  type StoreKit,
} from '../coordinator/testing/coordinatorHarness';
import { SECOND } from '../core/units';
import { testCoordinatorRecord } from '../store/coordinatorRegistry.contract';
import { MemoryCoordinatorRegistry } from '../store/memoryCoordinatorRegistry';
import { COORDINATOR_GRACE_INTERVALS, HoldExpiry } from './holdExpiry';
import { fullDiskHoldTakes } from '../testing/fullDiskHoldTakes';

const SEED_ERROR = 'no worker matched the selector {zone: b} within 2m0s';

describe.each(STORE_KITS)('HoldExpiry on $name', ({ make }) => {
  let kit: StoreKit;
  let h: CoordinatorHarness;
  let coordinators: MemoryCoordinatorRegistry;
  let active: boolean;
  let expiry: HoldExpiry;

  beforeEach(async () => {
    kit = await make();
    // The harness's dispatcher holds as a live coordinator's would; the scheduler judges the records below.
    h = await coordinatorHarness(kit);
    coordinators = new MemoryCoordinatorRegistry();
    active = true;
    expiry = new HoldExpiry({
      runs: h.runs,
      tasks: h.tasks,
      cancels: h.cancels,
      workers: h.workers,
      coordinators,
      clock: h.time,
      logger: h.logger,
      canDispatch: () => active,
      detectionIntervalMs: INTERVAL_MS,
      reservationTtlMs: TTL_MS,
      staleMs: STALE_MS,
    });
  });
  afterEach(async () => {
    await h.detector.stop();
    await kit.dispose();
  });

  /** The coordinator refreshed its record just now. */
  const coordinatorSeen = () =>
    coordinators.put(
      testCoordinatorRecord({
        coordinator_id: 'host-a-50055',
        last_seen_ms: h.time.nowMs(),
        fresh_for_ms: STALE_MS,
      }),
    );

  it('fails a hold at its deadline with the seed text when no coordinator was ever seen, and drops its task', async () => {
    await h.dispatch('run-1', { zone: 'b' });

    await h.time.advance(WAIT_MS - 1);
    expect((await expiry.sweep()).holdsFailed).toEqual([]);
    expect((await h.status('run-1')).status).toBe('queued');

    await h.time.advance(1);
    const swept = await expiry.sweep();

    expect(swept).toMatchObject({ coordinatorAlive: false, holdsFailed: ['run-1'] });
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: SEED_ERROR,
      conditions: [],
      finished_at: '2026-11-30T01:17:30Z',
    });
    expect(await h.tasks.findByRun('run-1')).toBeNull();
    expect(await h.activeIds()).toEqual([]);
    expect(h.logger.find('Failed a held run: its wait for a worker ran out')[0].fields).toMatchObject({
      run_id: 'run-1',
      selector: '{zone: b}',
      error: SEED_ERROR,
      coordinator: 'none alive',
    });
  });

  it('logs a hold it cannot take (a full disk) once, and fails it at the first pass that can write', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    const disk = fullDiskHoldTakes(h.tasks);

    for (let i = 0; i < 3; i++) {
      expect((await expiry.sweep()).holdsFailed).toEqual([]);
      await h.time.advance(INTERVAL_MS);
    }
    expect(h.logger.find('Hold expiry could not handle a run').map((l) => l.fields)).toEqual([
      { run_id: 'run-1', error: 'ENOSPC: no space left on device, write' },
    ]);

    disk.free();
    expect((await expiry.sweep()).holdsFailed).toEqual(['run-1']);
    expect(await h.status('run-1')).toMatchObject({ status: 'failed', error: SEED_ERROR });
  });

  it('gives a hold back at once when its run cannot be failed (a full disk), not a reservation TTL later', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    const write = h.runs.writeStatus.bind(h.runs);
    let full = true;
    h.runs.writeStatus = (s) =>
      full
        ? Promise.reject(
            Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
          )
        : write(s);

    expect((await expiry.sweep()).holdsFailed).toEqual([]);
    expect(h.logger.find('Hold expiry could not handle a run').map((l) => l.fields)).toEqual([
      { run_id: 'run-1', error: 'ENOSPC: no space left on device, write' },
    ]);
    // Not left claimed by the taker until the TTL: pending again, unclaimed, with its hold.
    expect(await h.tasks.listClaims()).toEqual([]);
    expect((await h.tasks.listPending()).map((t) => [t.run_id, t.claim, t.hold_until_ms])).toEqual([
      ['run-1', null, START + WAIT_MS],
    ]);

    // Space is back: the next pass, well within the TTL, fails the run.
    full = false;
    await h.time.advance(INTERVAL_MS);
    expect(INTERVAL_MS).toBeLessThan(TTL_MS);
    expect((await expiry.sweep()).holdsFailed).toEqual(['run-1']);
    expect(await h.status('run-1')).toMatchObject({ status: 'failed', error: SEED_ERROR });
    expect(await h.tasks.findByRun('run-1')).toBeNull();
  });

  it('fails the holds of a coordinator that died while they were held', async () => {
    await coordinatorSeen();
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(STALE_MS);
    await coordinatorSeen();
    // kill -9: the record is refreshed no more.

    await h.time.advance(WAIT_MS - STALE_MS);
    const swept = await expiry.sweep();

    expect(swept).toMatchObject({ coordinatorAlive: false, holdsFailed: ['run-1'] });
    expect(await h.status('run-1')).toMatchObject({ status: 'failed', error: SEED_ERROR });
  });

  it('leaves an expired hold to a live coordinator, and fails it itself once overdue by its grace', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    const graceMs = COORDINATOR_GRACE_INTERVALS * INTERVAL_MS;

    await h.time.advance(WAIT_MS + graceMs);
    await coordinatorSeen();
    expect(await expiry.sweep()).toMatchObject({ coordinatorAlive: true, holdsFailed: [] });
    expect((await h.status('run-1')).status).toBe('queued');

    await h.time.advance(1);
    await coordinatorSeen();
    expect(await expiry.sweep()).toMatchObject({ coordinatorAlive: true, holdsFailed: ['run-1'] });
    expect(h.logger.find('Failed a held run')[0].fields).toMatchObject({ coordinator: 'overdue' });
  });

  it('with a coordinator sweeping the same expired hold at the same moment, exactly one writes the run', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.dispatch('run-2', { zone: 'c' });
    await h.time.advance(WAIT_MS + COORDINATOR_GRACE_INTERVALS * INTERVAL_MS + 1);
    const writes: string[] = [];
    const write = kit.runs.writeStatus.bind(kit.runs);
    kit.runs.writeStatus = async (s) => {
      writes.push(`${s.run_id}:${s.status}:${s.error}`);
      return write(s);
    };

    const [scheduler, coordinator] = await Promise.all([expiry.sweep(), h.detector.sweep()]);

    expect([...scheduler.holdsFailed, ...coordinator.holdsFailed].sort()).toEqual(['run-1', 'run-2']);
    expect(writes.sort()).toEqual([
      `run-1:failed:${SEED_ERROR}`,
      'run-2:failed:no worker matched the selector {zone: c} within 2m0s',
    ]);
    expect(await h.tasks.listPending()).toEqual([]);
    expect(await h.tasks.listClaims()).toEqual([]);
  });

  it('does nothing while this scheduler is not the active one', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    active = false;

    expect(await expiry.sweep()).toMatchObject({ holdsFailed: [] });
    expect((await h.status('run-1')).status).toBe('queued');
    expect(await h.tasks.findByRun('run-1')).not.toBeNull();
  });

  it('leaves a held run a worker took before its deadline alone', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    await h.dispatch('run-1', { zone: 'x' });
    await h.dispatch('run-2', { zone: 'b' });
    await h.take('worker-b', { zone: 'b' });

    await h.time.advance(WAIT_MS);
    const swept = await expiry.sweep();

    expect(swept.holdsFailed).toEqual(['run-1']);
    expect((await h.status('run-2')).worker_id).toBe('worker-b');
    expect((await h.status('run-2')).status).toBe('queued');
  });

  it('drops the expired task of a run cancelled meanwhile without touching the run', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    const s = await h.status('run-1');
    await h.runs.writeStatus({ ...s, status: 'aborted', error: 'stopped elsewhere' });
    await h.time.advance(WAIT_MS);

    expect(await expiry.sweep()).toMatchObject({ holdsFailed: [], tasksDropped: ['run-1'] });
    expect(await h.status('run-1')).toMatchObject({ status: 'aborted', error: 'stopped elsewhere' });
    expect(await h.tasks.findByRun('run-1')).toBeNull();
  });

  it('finishes an expiry whose scheduler died half-way once its claim comes back, with no coordinator', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS);
    h.tasks.failAck = 1;

    await expiry.sweep();
    expect(await h.status('run-1')).toMatchObject({ status: 'failed', error: SEED_ERROR });
    expect(await h.tasks.listClaims()).toHaveLength(1);
    expect(h.logger.find('Could not remove the task of a held run that ended')).toHaveLength(1);

    await h.time.advance(TTL_MS + 1);
    const swept = await expiry.sweep();

    expect(swept).toMatchObject({ claimsReturned: ['run-1'], tasksDropped: ['run-1'], holdsFailed: [] });
    expect(await h.tasks.findByRun('run-1')).toBeNull();
    expect(h.logger.find('A worker claimed a run but did not acknowledge it')).toEqual([]);
    expect(h.logger.find('Failed a held run')).toHaveLength(1);
  });

  it('fails an ordinary task nobody claimed within the reservation TTL while no coordinator is alive', async () => {
    await h.heartbeat('worker-b', { zone: 'b' });
    expect((await h.dispatch('run-1', { zone: 'b' })).outcome).toBe('dispatched');

    // worker-b looks healthy for the stale threshold after the coordinator that recorded it died.
    await h.time.advance(TTL_MS + 1);
    const swept = await expiry.sweep();

    expect(swept.unclaimedFailed).toEqual(['run-1']);
    expect(await h.status('run-1')).toMatchObject({
      status: 'failed',
      error: 'no healthy worker matching the selector {zone: b} took the run within 30s',
    });
  });

  it('never expires a hold early when the wall clock is stepped backwards', async () => {
    await h.dispatch('run-1', { zone: 'b' });
    await h.time.advance(WAIT_MS - SECOND);
    h.time.shiftWall(-10 * SECOND);
    await h.time.advance(5 * SECOND);

    expect((await expiry.sweep()).holdsFailed).toEqual([]);
    await h.time.advance(6 * SECOND);
    expect((await expiry.sweep()).holdsFailed).toEqual(['run-1']);
  });

  it('says once that it covers for a missing coordinator, and when one is back', async () => {
    await expiry.sweep();
    expect(h.logger.find('No coordinator is alive')).toEqual([]); // nothing waits: nothing to say

    await h.dispatch('run-1', { zone: 'b' });
    await expiry.sweep();
    await expiry.sweep();
    expect(h.logger.find('No coordinator is alive')).toHaveLength(1);

    await coordinatorSeen();
    await expiry.sweep();
    expect(h.logger.find('A coordinator is alive again')).toHaveLength(1);
  });
});
