import { describe, expect, it } from 'vitest';
import {
  foreachSummaryText,
  countSubRuns,
  countTexts,
  nodeDetail,
  notRunReason,
  notRunText,
  subRunSummaryText,
  type SubRunRef,
} from './stepNotes';

const child = (i: number, status: string | null): SubRunRef => ({
  dag_name: 'child',
  run_id: `c${i}`,
  status,
  item: String(i),
});

describe('notRunReason', () => {
  it('gives the recorded skip reason of a step skipped by its precondition', () => {
    const step = { status: 'skipped', skip_reason: 'precondition not met: test -f /tmp/flag', error: null };
    expect(notRunReason(step)).toBe('precondition not met: test -f /tmp/flag');
    expect(notRunText(step)).toBe('skipped: precondition not met: test -f /tmp/flag');
  });

  it('says a step aborted by an upstream failure was not run, and why', () => {
    const step = { status: 'aborted', skip_reason: 'upstream failed', started_at: null };
    expect(notRunText(step)).toBe('not run: upstream failed');
  });

  it('falls back to the error of a skipped step written without a skip reason', () => {
    expect(notRunReason({ status: 'skipped', error: 'dependency "a" did not succeed' })).toBe(
      'dependency "a" did not succeed',
    );
    expect(notRunReason({ status: 'skipped' })).toBe('no reason was recorded');
  });

  it('treats the error of a step aborted before it started as the reason', () => {
    expect(notRunReason({ status: 'aborted', started_at: null, error: 'upstream failed' })).toBe(
      'upstream failed',
    );
  });

  it('gives no reason for a step that ran, even one aborted midway or failed', () => {
    expect(notRunReason({ status: 'aborted', started_at: '2026-01-01T00:00:00Z', error: 'stopped' })).toBe(
      null,
    );
    expect(notRunReason({ status: 'failed', error: 'exit status 1' })).toBe(null);
    expect(notRunText({ status: 'succeeded' })).toBe(null);
  });
});

describe('countTexts', () => {
  it('names retries and repeats above zero', () => {
    expect(countTexts({ status: 'succeeded', retry_count: 2, repeat_count: 5 })).toEqual([
      'retried 2×',
      'repeated 5×',
    ]);
  });

  it('says nothing of a step that ran once', () => {
    expect(countTexts({ status: 'succeeded', retry_count: 0 })).toEqual([]);
    expect(countTexts({ status: 'succeeded', retry_count: 0, repeat_count: 0 })).toEqual([]);
  });
});

describe('sub-run summaries', () => {
  it('counts children by state, failures first and unknown states last', () => {
    const runs = [
      child(1, 'succeeded'),
      child(2, 'failed'),
      child(3, null),
      child(4, 'succeeded'),
      child(5, 'running'),
    ];
    expect(countSubRuns(runs)).toEqual([
      { status: 'failed', count: 1 },
      { status: 'running', count: 1 },
      { status: 'succeeded', count: 2 },
      { status: null, count: 1 },
    ]);
    expect(subRunSummaryText(runs)).toBe('5 child runs: 1 failed, 1 running, 2 succeeded, 1 not started');
  });

  it('counts a thousand children in one pass', () => {
    const runs = Array.from({ length: 1000 }, (_, i) => child(i, i % 100 === 0 ? 'failed' : 'succeeded'));
    expect(subRunSummaryText(runs)).toBe('1000 child runs: 10 failed, 990 succeeded');
  });

  it('writes a single child in the singular, and nothing for a step without children', () => {
    expect(subRunSummaryText([child(1, 'partially_succeeded')])).toBe('1 child run: 1 partially succeeded');
    expect(subRunSummaryText([])).toBe(null);
    expect(subRunSummaryText(undefined)).toBe(null);
  });
});

describe('nodeDetail', () => {
  it('puts the reason first and leaves the duration out for a step that did not run', () => {
    expect(nodeDetail({ status: 'skipped', skip_reason: 'precondition not met' }, '0s')).toBe(
      'precondition not met',
    );
  });

  it('joins counts, children and the duration', () => {
    expect(
      nodeDetail({ status: 'succeeded', retry_count: 2, sub_runs: [child(1, 'succeeded')] }, '3.1s'),
    ).toBe('retried 2× · 1 child run · 3.1s');
  });

  it('is undefined when there is nothing to say', () => {
    expect(nodeDetail({ status: 'not_started', retry_count: 0 })).toBe(undefined);
  });

  it("names a build step's decision after any reason, but not the absence of one", () => {
    const build = (decision: string, reason?: string) => ({ decision, phase: 'complete', reason });
    expect(nodeDetail({ status: 'succeeded', build: build('reuse', 'matched') }, '0s')).toBe('reused · 0s');
    expect(nodeDetail({ status: 'succeeded', retry_count: 1, build: build('execute') }, '2s')).toBe(
      'executed · retried 1× · 2s',
    );
    expect(
      nodeDetail({
        status: 'skipped',
        skip_reason: 'precondition not met',
        build: build('none', 'precondition_not_met'),
      }),
    ).toBe('precondition not met');
  });
});

describe('foreach items', () => {
  const item = (index: number, status: string) => ({ index, key: String(index), label: `i${index}`, status });

  it('counts the items by state, failures first and items not started last', () => {
    expect(foreachSummaryText([item(0, 'succeeded'), item(1, 'failed'), item(2, 'not_started')])).toBe(
      '3 items: 1 failed, 1 succeeded, 1 not started',
    );
    expect(foreachSummaryText([item(0, 'running')])).toBe('1 item: 1 running');
    expect(foreachSummaryText([])).toBe(null);
    expect(foreachSummaryText(undefined)).toBe(null);
  });

  it('names the item count in the graph node', () => {
    expect(
      nodeDetail({ status: 'succeeded', foreach_items: [item(0, 'succeeded'), item(1, 'succeeded')] }, '2s'),
    ).toBe('2 items · 2s');
  });
});
