import { describe, expect, it } from 'vitest';
import {
  decideDispatch,
  formatSelector,
  holdExpiredError,
  isClaimable,
  refusalError,
  selectorMatches,
  unclaimedError,
  waitingConditions,
  type WorkerPresence,
} from './distributed';

const NOW = Date.parse('2026-11-30T01:00:00Z');
const worker = (labels: Record<string, string>, ageMs = 0): WorkerPresence => ({
  worker_id: `w-${JSON.stringify(labels)}`,
  labels,
  last_heartbeat_ms: NOW - ageMs,
});
const base = {
  nowMs: NOW,
  staleMs: 10_000,
  waitMs: 120_000,
  fromQueue: false,
  durableStore: true,
  coordinatorAvailable: true,
};

describe('selectors', () => {
  it('match by exact value on every key, allow extra labels, and an empty selector matches anyone', () => {
    expect(selectorMatches({ zone: 'b' }, { zone: 'b', gpu: 'true' })).toBe(true);
    expect(selectorMatches({ zone: 'b', gpu: 'true' }, { zone: 'b' })).toBe(false);
    expect(selectorMatches({ zone: 'b' }, { zone: 'B' })).toBe(false);
    expect(selectorMatches({}, {})).toBe(true);
    expect(selectorMatches(null, { zone: 'a' })).toBe(true);
    expect(selectorMatches({ toString: 'x' }, {})).toBe(false);
  });

  it('print with sorted keys, the way the error texts show them', () => {
    expect(formatSelector({ zone: 'b' })).toBe('{zone: b}');
    expect(formatSelector({ zone: 'b', gpu: 'true' })).toBe('{gpu: true, zone: b}');
    expect(formatSelector({})).toBe('{}');
    expect(holdExpiredError({ zone: 'b' }, 120_000)).toBe(
      'no worker matched the selector {zone: b} within 2m0s',
    );
    expect(unclaimedError({ zone: 'b' }, 30_000)).toBe(
      'no healthy worker matching the selector {zone: b} took the run within 30s',
    );
  });
});

describe('decideDispatch', () => {
  it('dispatches when a healthy worker matches', () => {
    expect(decideDispatch({ ...base, selector: { zone: 'b' }, workers: [worker({ zone: 'b' })] })).toEqual({
      kind: 'dispatch',
    });
  });

  it('holds with NoMatchingWorker when healthy workers exist but none matches', () => {
    expect(decideDispatch({ ...base, selector: { zone: 'b' }, workers: [worker({ zone: 'a' })] })).toEqual({
      kind: 'hold',
      reason: 'NoMatchingWorker',
      holdUntilMs: NOW + 120_000,
    });
  });

  it('holds with NoAvailableWorker when the only matching worker went silent', () => {
    const d = decideDispatch({ ...base, selector: { zone: 'b' }, workers: [worker({ zone: 'b' }, 10_001)] });
    expect(d).toMatchObject({ kind: 'hold', reason: 'NoAvailableWorker' });
  });

  it('refuses at once for the queue path, a zero wait, or a store that cannot hold', () => {
    const input = { ...base, selector: { zone: 'b' }, workers: [] };
    expect(decideDispatch({ ...input, fromQueue: true })).toEqual({
      kind: 'refuse',
      reason: 'NoAvailableWorker',
    });
    expect(decideDispatch({ ...input, waitMs: 0 })).toEqual({ kind: 'refuse', reason: 'NoAvailableWorker' });
    expect(decideDispatch({ ...input, durableStore: false })).toMatchObject({ kind: 'refuse' });
  });

  it('refuses a direct dispatch with no coordinator alive, even with a matching worker on record', () => {
    const input = { ...base, selector: { zone: 'b' }, workers: [worker({ zone: 'b' })] };
    expect(decideDispatch({ ...input, coordinatorAvailable: false })).toEqual({
      kind: 'refuse',
      reason: 'NoAvailableCoordinator',
    });
    expect(refusalError('NoAvailableCoordinator', { zone: 'b' })).toBe('no coordinators available');
  });

  it("holds the queue's run with no coordinator alive, so that it ends at its wait; refuses where holding is off", () => {
    const input = {
      ...base,
      selector: { zone: 'b' },
      workers: [],
      fromQueue: true,
      coordinatorAvailable: false,
    };
    expect(decideDispatch(input)).toEqual({
      kind: 'hold',
      reason: 'NoAvailableCoordinator',
      holdUntilMs: NOW + 120_000,
    });
    expect(decideDispatch({ ...input, waitMs: 0 })).toMatchObject({ kind: 'refuse' });
    expect(decideDispatch({ ...input, durableStore: false })).toMatchObject({ kind: 'refuse' });
  });
});

describe('held tasks and conditions', () => {
  it('a held task is claimable until its hold passes; an ordinary one always', () => {
    expect(isClaimable({ hold_until_ms: NOW + 1 }, NOW)).toBe(true);
    expect(isClaimable({ hold_until_ms: NOW }, NOW)).toBe(false);
    expect(isClaimable({ hold_until_ms: null }, NOW)).toBe(true);
  });

  it('a waiting run carries Runnable=False and WorkerReady=False with the reason and when it was seen', () => {
    const c = waitingConditions('NoMatchingWorker', { zone: 'b' }, '2026-11-30T01:00:00Z');
    expect(c.map((x) => `${x.type}=${x.status}/${x.reason}`)).toEqual([
      'Runnable=False/NoMatchingWorker',
      'WorkerReady=False/NoMatchingWorker',
    ]);
    expect(c[0].message).toBe('no healthy worker matches the selector {zone: b}');
    expect(c[1].checked_at).toBe('2026-11-30T01:00:00Z');
  });
});
