import { describe, expect, it } from 'vitest';
import {
  beaconIntervalMs,
  conditionsNow,
  coordinatorAvailability,
  isCoordinatorAlive,
  waitsForWorker,
  type CoordinatorBeat,
} from './coordinatorPresence';
import { waitingConditions } from './distributed';
import { SECOND } from './units';

const NOW = Date.parse('2026-11-30T01:00:00Z');
const beat = (over: Partial<CoordinatorBeat> = {}): CoordinatorBeat => ({
  coordinator_id: 'host-a-50055',
  last_seen_ms: NOW,
  fresh_for_ms: 10 * SECOND,
  stopped_at_ms: null,
  ...over,
});

describe('coordinator liveness', () => {
  it('is alive while refreshed within its own promise, and dead one millisecond later', () => {
    expect(isCoordinatorAlive(beat({ last_seen_ms: NOW - 10 * SECOND }), NOW)).toBe(true);
    expect(isCoordinatorAlive(beat({ last_seen_ms: NOW - 10 * SECOND - 1 }), NOW)).toBe(false);
  });

  it('is gone at once after a clean stop', () => {
    expect(isCoordinatorAlive(beat({ stopped_at_ms: NOW }), NOW)).toBe(false);
  });

  it('counts a record from a host whose clock runs ahead as alive', () => {
    expect(isCoordinatorAlive(beat({ last_seen_ms: NOW + 5 * SECOND }), NOW)).toBe(true);
  });

  it('is available when any coordinator is alive, and remembers when one was last seen', () => {
    const dead = beat({ coordinator_id: 'old', last_seen_ms: NOW - 60 * SECOND });
    const stopped = beat({
      coordinator_id: 'stopped',
      last_seen_ms: NOW - 9 * SECOND,
      stopped_at_ms: NOW - 8 * SECOND,
    });
    expect(coordinatorAvailability([dead, stopped], NOW)).toEqual({
      available: false,
      alive: [],
      last_seen_ms: NOW - 8 * SECOND,
    });
    expect(coordinatorAvailability([dead, beat()], NOW)).toMatchObject({
      available: true,
      alive: ['host-a-50055'],
    });
    expect(coordinatorAvailability([], NOW)).toEqual({ available: false, alive: [], last_seen_ms: null });
  });

  it('refreshes three times within its promise', () => {
    expect(beaconIntervalMs(10 * SECOND)).toBe(3333);
    expect(beaconIntervalMs(1)).toBe(1);
  });
});

describe('what a waiting run shows', () => {
  const held = {
    status: 'queued' as const,
    worker_id: null,
    conditions: waitingConditions('NoMatchingWorker', { zone: 'b' }, '2026-11-30T00:59:00Z'),
  };
  const none = { available: false, alive: [], last_seen_ms: NOW - 30 * SECOND };

  it('a held run reads NoAvailableCoordinator since the coordinator was last seen, while none is alive', () => {
    const c = conditionsNow(held, true, none, NOW);
    expect(c.map((x) => `${x.type}=${x.status}/${x.reason}: ${x.message}`)).toEqual([
      'Runnable=False/NoAvailableCoordinator: no coordinators available',
      'WorkerReady=False/NoAvailableCoordinator: no coordinators available',
    ]);
    expect(c[0].checked_at).toBe('2026-11-30T00:59:30Z');
  });

  it('keeps what the dispatcher recorded while a coordinator is alive', () => {
    expect(conditionsNow(held, true, { available: true, alive: ['c'], last_seen_ms: NOW }, NOW)).toBe(
      held.conditions,
    );
  });

  it('leaves runs that do not wait for a worker alone', () => {
    const running = { ...held, status: 'running' as const };
    const taken = { ...held, worker_id: 'worker-b' };
    const local = { status: 'queued' as const, worker_id: null, conditions: [] };
    expect(conditionsNow(running, false, none, NOW)).toBe(running.conditions);
    expect(conditionsNow(taken, true, none, NOW)).toBe(taken.conditions);
    expect(conditionsNow(local, false, none, NOW)).toEqual([]);
    expect(waitsForWorker(local, true)).toBe(true);
    expect(waitsForWorker(held, false)).toBe(true);
  });

  it('reads since now when no coordinator was ever seen', () => {
    const c = conditionsNow(held, true, { available: false, alive: [], last_seen_ms: null }, NOW);
    expect(c[1].checked_at).toBe('2026-11-30T01:00:00Z');
  });
});
