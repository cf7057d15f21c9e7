import { describe, expect, it } from 'vitest';
import type { RunState } from '../core/types';
import { runEventData, runEventType } from '../store/runEvents';
import type { EventRecord } from '../store/types';
import { testRunStatus } from '../testing/testRunStatus';
import {
  applyEvent,
  emptyAggregate,
  parseAggregate,
  SEEN_WINDOW_MS,
  type RunAggregateState,
} from './runAggregate';

const T0 = Date.parse('2026-11-30T01:00:00Z');
let seq = 0;

/** The event a run ending in `status` after `seconds` emits, finishing `atMs`. */
function ended(
  dag: string,
  runId: string,
  status: RunState,
  seconds: number | null,
  atMs = T0,
  attempt = 1,
): EventRecord {
  const finished = new Date(atMs).toISOString();
  const s = testRunStatus({
    run_id: runId,
    dag_name: dag,
    attempt,
    status,
    started_at: seconds === null ? null : new Date(atMs - seconds * 1000).toISOString(),
    finished_at: finished,
  });
  return {
    id: `${String(atMs).padStart(13, '0')}-${(seq++).toString(16).padStart(10, '0')}`,
    type: runEventType(status)!,
    time: finished,
    data: runEventData(s) as unknown as Record<string, unknown>,
  };
}

function fold(events: EventRecord[]): RunAggregateState {
  const state = emptyAggregate();
  for (const e of events) applyEvent(state, e);
  return state;
}

describe('the run totals fold', () => {
  it('counts finished runs by end status, partially succeeded apart from succeeded', () => {
    const s = fold([
      ended('etl', 'r1', 'succeeded', 3),
      ended('etl', 'r2', 'failed', 3),
      ended('etl', 'r3', 'partially_succeeded', 3),
      ended('etl', 'r4', 'aborted', null),
      ended('report', 'r5', 'failed', 3),
      ended('etl', 'r6', 'rejected', 3),
    ]);
    expect(s.dags.etl.finished).toEqual({
      succeeded: 1,
      partially_succeeded: 1,
      failed: 1,
      aborted: 1,
      rejected: 1,
    });
    expect(s.dags.report.finished).toEqual({
      succeeded: 0,
      partially_succeeded: 0,
      failed: 1,
      aborted: 0,
      rejected: 0,
    });
  });

  it("puts each duration in Dagu's buckets (upper bounds inclusive) and counts a run that never started without one", () => {
    const s = fold([
      ended('etl', 'a', 'succeeded', 1),
      ended('etl', 'b', 'succeeded', 1.5),
      ended('etl', 'c', 'succeeded', 3600),
      ended('etl', 'd', 'succeeded', 7200),
      ended('etl', 'e', 'aborted', null),
    ]);
    expect(s.dags.etl.buckets).toEqual([1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
    expect(s.dags.etl.duration_sum_seconds).toBe(1 + 1.5 + 3600 + 7200);
    expect(s.dags.etl.duration_count).toBe(4);
    expect(s.dags.etl.finished.aborted).toBe(1);
  });

  it('keeps the latest success, whatever order the events come in, and a partial success is not one', () => {
    const events = [
      ended('etl', 'old', 'succeeded', 1, T0),
      ended('etl', 'new', 'succeeded', 1, T0 + 60_000),
      ended('etl', 'partial', 'partially_succeeded', 1, T0 + 120_000),
    ];
    expect(fold(events).dags.etl.last_success_ms).toBe(T0 + 60_000);
    expect(fold([...events].reverse()).dags).toEqual(fold(events).dags);
  });

  it('counts an attempt once when its end is written twice, and a retry (a new attempt) again', () => {
    const end = ended('etl', 'r1', 'failed', 2);
    const s = fold([
      end,
      { ...end, id: end.id.replace(/.$/, 'f') },
      ended('etl', 'r1', 'succeeded', 2, T0 + 1000, 2),
    ]);
    expect(s.dags.etl.finished).toMatchObject({ failed: 1, succeeded: 1 });
  });

  it('forgets counted attempts a day older than the newest, keeping the checkpoint bounded', () => {
    const s = fold([
      ended('etl', 'r1', 'succeeded', 1, T0),
      ended('etl', 'r2', 'succeeded', 1, T0 + SEEN_WINDOW_MS + 1),
    ]);
    expect(Object.keys(s.seen)).toEqual(['r2#1']);
  });

  it('records the last resume of a schedule and ignores other events', () => {
    const s = fold([
      { id: '1', type: 'dag.resumed', time: '2026-11-30T02:00:00Z', data: { dag: 'etl', by: 'cli' } },
      { id: '2', type: 'dag.resumed', time: '2026-11-30T01:00:00Z', data: { dag: 'etl', by: 'cli' } },
      { id: '3', type: 'dag.run.running', time: '2026-11-30T01:00:00Z', data: {} },
      { id: '4', type: 'dag.run.failed', time: '2026-11-30T01:00:00Z', data: { garbage: true } },
    ]);
    expect(s.dags.etl.last_resume_ms).toBe(Date.parse('2026-11-30T02:00:00Z'));
    expect(s.dags.etl.finished.failed).toBe(0);
  });

  it('reads back its own JSON and refuses anything else', () => {
    const s = fold([ended('etl', 'r1', 'succeeded', 1)]);
    expect(parseAggregate(JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(parseAggregate({ version: 2 })).toBeNull();
    // A checkpoint from before rejected runs were counted reads with a zero count.
    const old = JSON.parse(JSON.stringify(s)) as RunAggregateState;
    for (const t of Object.values(old.dags)) delete (t.finished as Partial<typeof t.finished>).rejected;
    expect(parseAggregate(old)).toEqual(s);
    expect(parseAggregate({ ...s, dags: { etl: { ...s.dags.etl, buckets: [1] } } })).toBeNull();
  });
});
