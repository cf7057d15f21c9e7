import { describe, expect, it } from 'vitest';
import type { StepStatus } from '@/components/apiTypes';
import { percentScale, runTimeline, tickStep } from './timeline';

const T = (s: number) => new Date(Date.UTC(2026, 2, 1, 10, 0, s)).toISOString();
const step = (
  name: string,
  start: number | null,
  end: number | null,
  extra: Partial<StepStatus> = {},
): StepStatus => ({
  name,
  status: end === null ? (start === null ? 'not_started' : 'running') : 'succeeded',
  started_at: start === null ? null : T(start),
  finished_at: end === null ? null : T(end),
  exit_code: null,
  error: null,
  retry_count: 0,
  stdout: null,
  stderr: null,
  output: null,
  ...extra,
});
const run = { created_at: T(0), queued_at: T(0), started_at: T(10), finished_at: T(110) };

describe('percentScale', () => {
  it('maps the span to 0..100 and clamps outside it', () => {
    const s = percentScale(1000, 2000);
    expect([s(1000), s(1500), s(2000), s(0), s(5000)]).toEqual([0, 50, 100, 0, 100]);
  });
});

describe('tickStep', () => {
  it('picks 1, 2 or 5 times a power of ten', () => {
    expect(tickStep(100_000, 5)).toBe(20_000);
    expect(tickStep(9_000, 5)).toBe(2_000);
    expect(tickStep(0, 5)).toBe(1);
  });
});

describe('runTimeline', () => {
  it('spans from queued to finished, with the queued wait first', () => {
    const t = runTimeline(run, [{ step: step('a', 10, 60) }], null);
    expect([t.startMs, t.endMs]).toEqual([Date.parse(T(0)), Date.parse(T(110))]);
    expect(t.queued).toMatchObject({ left: 0, width: 9.09 });
    expect(t.rows[0].bar).toMatchObject({ left: 9.09, width: 45.46 });
    expect(t.ticks.map((x) => x.ms)).toEqual([0, 50_000, 100_000]);
  });

  it('lists steps by start time, never-started ones last in the order given', () => {
    const rows = [
      { step: step('late', 50, 60) },
      { step: step('never', null, null) },
      { step: step('early', 10, 20) },
    ];
    expect(runTimeline(run, rows, null).rows.map((r) => r.name)).toEqual(['early', 'late', 'never']);
    expect(runTimeline(run, rows, null).rows[2].bar).toBeNull();
  });

  it('shows the wait between the upstream step finishing and the step starting (a delay)', () => {
    const rows = [{ step: step('a', 10, 30) }, { step: step('b', 40, 60, { depends: ['a'] }) }];
    const b = runTimeline(run, rows, null).rows[1];
    expect(b.wait).toMatchObject({ startMs: Date.parse(T(30)), endMs: Date.parse(T(40)) });
    expect(runTimeline(run, rows, null).rows[0].wait).toBeNull();
  });

  it('grows a running step and the run to now, and carries retry and repeat counts', () => {
    const live = { ...run, finished_at: null };
    const rows = [{ step: step('a', 10, null, { status: 'retrying', retry_count: 2, repeat_count: 1 }) }];
    const t = runTimeline(live, rows, Date.parse(T(50)));
    expect(t.endMs).toBe(Date.parse(T(50)));
    expect(t.rows[0]).toMatchObject({ live: true, retries: 2, repeats: 1 });
    expect(t.rows[0].bar).toMatchObject({ left: 20, width: 80 });
  });

  it('draws each try of a retried step, with the retry interval before each later one', () => {
    const executions = [
      { kind: 'first' as const, started_at: T(10), finished_at: T(20), exit_code: 1 },
      { kind: 'retry' as const, started_at: T(30), finished_at: T(40), exit_code: 1 },
      { kind: 'retry' as const, started_at: T(50), finished_at: T(60), exit_code: 0 },
    ];
    const rows = [{ step: step('a', 10, 60, { retry_count: 2, executions }) }];
    const started = { created_at: T(10), queued_at: T(10), started_at: T(10), finished_at: T(110) };
    const [a] = runTimeline(started, rows, null).rows;
    expect(a.tries.map((t) => [t.kind, t.outcome, t.exitCode])).toEqual([
      ['first', 'failed', 1],
      ['retry', 'failed', 1],
      ['retry', 'succeeded', 0],
    ]);
    // 100 s from 10 to 110: one percent per second.
    expect(a.tries.map((t) => [t.segment.left, t.segment.width])).toEqual([
      [0, 10],
      [20, 10],
      [40, 10],
    ]);
    expect(a.tries.map((t) => t.pause && [t.pause.left, t.pause.width])).toEqual([null, [10, 10], [30, 10]]);
    // A try still running reaches now; a step that ran once has no tries (its bar says it all).
    const live = { ...run, finished_at: null };
    const running = [{ kind: 'repeat' as const, started_at: T(70), finished_at: null, exit_code: null }];
    const r = runTimeline(
      live,
      [{ step: step('b', 10, null, { executions: [...executions, ...running] }) }],
      Date.parse(T(80)),
    ).rows[0];
    expect(r.tries[3]).toMatchObject({ outcome: 'running', segment: { endMs: Date.parse(T(80)) } });
    expect(runTimeline(run, [{ step: step('c', 10, 20) }], null).rows[0].tries).toEqual([]);
  });

  it('draws no wait for a handler, which runs after the steps by design', () => {
    const rows = [{ step: step('a', 10, 30) }, { step: step('onExit', 100, 105), label: 'onExit' }];
    expect(runTimeline(run, rows, null).rows[1].wait).toBeNull();
  });
});
