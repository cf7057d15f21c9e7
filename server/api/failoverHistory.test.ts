import { describe, expect, it } from 'vitest';
import { ROLE_EVENTS } from '../scheduler/schedulerService';
import type { EventRecord } from '../store/types';
import { FailoverHistory, LOCK_ACQUIRED, LOCK_LOST } from './failoverHistory';

let seq = 0;
function ev(type: string, data: Record<string, unknown>, ms = 1_795_900_000_000 + ++seq * 1000): EventRecord {
  return {
    id: `${ms}-${seq.toString(16).padStart(10, '0')}`,
    type,
    time: new Date(ms).toISOString(),
    data,
  };
}

const acquired = (
  instance: string,
  how: string,
  previous: string | null,
  extra: Record<string, unknown> = {},
) =>
  ev(LOCK_ACQUIRED, {
    instance,
    host: `${instance}.host`,
    pid: 1,
    how,
    epoch: seq + 1,
    previous_instance: previous,
    previous_host: previous === null ? null : `${previous}.host`,
    gap_ms: previous === null ? null : 3400,
    observed_gap_ms: previous === null ? null : 3300,
    ...extra,
  });
const lost = (instance: string) => ev(LOCK_LOST, { instance, host: `${instance}.host`, pid: 1, reason: 'x' });

describe('FailoverHistory', () => {
  it('uses the event types the scheduler writes', () => {
    expect([LOCK_ACQUIRED, LOCK_LOST]).toEqual([ROLE_EVENTS.acquired, ROLE_EVENTS.lost]);
  });

  it('lists acquisitions newest first with from, to, gap and epoch', () => {
    const h = new FailoverHistory();
    const first = acquired('a', 'fresh', null);
    const second = acquired('b', 'stale', 'a');
    h.add(first);
    h.add(second);
    expect(h.list()).toEqual([
      {
        event_id: second.id,
        time: second.time,
        to_instance: 'b',
        to_host: 'b.host',
        from_instance: 'a',
        from_host: 'a.host',
        cause: 'stale',
        gap_ms: 3400,
        observed_gap_ms: 3300,
        epoch: second.data.epoch,
      },
      expect.objectContaining({ event_id: first.id, cause: 'initial', from_instance: null, gap_ms: null }),
    ]);
  });

  it('calls a handover after a release released', () => {
    const h = new FailoverHistory();
    h.add(acquired('a', 'fresh', null));
    h.add(acquired('b', 'released', 'a'));
    expect(h.list()[0].cause).toBe('released');
  });

  it('calls a takeover lock_lost when the holder recorded losing the lock since its own acquisition', () => {
    const h = new FailoverHistory();
    h.add(acquired('a', 'fresh', null));
    h.add(lost('a'));
    h.add(acquired('b', 'stale', 'a'));
    expect(h.list()[0].cause).toBe('lock_lost');
  });

  it('does not count a loss from before the holder last acquired the lock, nor one after the takeover', () => {
    const h = new FailoverHistory();
    h.add(acquired('a', 'fresh', null));
    h.add(lost('a')); // a's earlier term
    h.add(acquired('b', 'stale', 'a'));
    h.add(acquired('a', 'stale', 'b')); // a's new term: b said nothing
    h.add(acquired('b', 'stale', 'a')); // a died silently
    h.add(lost('a')); // written after b took over: not the cause
    expect(h.list().map((f) => f.cause)).toEqual(['stale', 'stale', 'lock_lost', 'initial']);
  });

  it('keeps events that arrive out of order in ID order, and each only once', () => {
    const h = new FailoverHistory();
    const a = acquired('a', 'fresh', null);
    const l = lost('a');
    const b = acquired('b', 'stale', 'a');
    h.add(b);
    h.add(l);
    h.add(a);
    h.add(b);
    h.add(ev('dag.run.queued', { run_id: 'r' }));
    expect(h.list().map((f) => [f.to_instance, f.cause])).toEqual([
      ['b', 'lock_lost'],
      ['a', 'initial'],
    ]);
  });

  it('returns at most the limit asked for', () => {
    const h = new FailoverHistory();
    h.add(acquired('i0', 'fresh', null));
    for (let i = 1; i < 60; i++) h.add(acquired(`i${i}`, 'stale', `i${i - 1}`));
    const list = h.list(50);
    expect(list).toHaveLength(50);
    expect(list[0].to_instance).toBe('i59');
    expect(list[49].to_instance).toBe('i10');
  });

  it('shows unknown or malformed fields as null rather than failing', () => {
    const h = new FailoverHistory();
    h.add(ev(LOCK_ACQUIRED, { instance: 'a', how: 'stale', previous_instance: 'z', gap_ms: 'soon' }));
    expect(h.list()[0]).toMatchObject({ to_host: null, gap_ms: null, epoch: null, cause: 'stale' });
  });
});
