import { describe, expect, it } from 'vitest';
import type { QueueListing, WaitingRun } from '@/components/apiTypes';
import { withoutRuns } from './withoutRuns';

function run(run_id: string, kind: WaitingRun['kind'], queue: string | null): WaitingRun {
  return {
    run_id,
    dag_name: 'd',
    kind,
    queue,
    position: kind === 'queued' ? 1 : null,
    status: 'queued',
    trigger_type: 'manual',
    schedule_time: null,
    params: [],
    worker_selector: kind === 'queued' ? null : { zone: 'b' },
    selector_text: kind === 'queued' ? null : '{zone: b}',
    conditions: [],
    reason: null,
    waiting_since: '2026-01-01T00:00:00Z',
    waited_ms: 1000,
    hold_until: null,
    hold_remaining_ms: null,
    problem: null,
  };
}

const listing: QueueListing = {
  enabled: true,
  queues: [
    { name: 'q1', max_concurrency: 1, running: 1, queued: 2 },
    { name: 'q2', max_concurrency: null, running: 0, queued: 1 },
  ],
  items: [
    run('a', 'queued', 'q1'),
    run('b', 'queued', 'q1'),
    run('c', 'queued', 'q2'),
    run('h', 'held', null),
  ],
  total: 6,
  facets: { queues: ['q1', 'q2'], dags: ['d'], selectors: ['{zone: b}'], reasons: [] },
};

describe('withoutRuns', () => {
  it('drops the rows and their share of the total and of their queue', () => {
    const next = withoutRuns(listing, ['a', 'h']);
    expect(next.items.map((i) => i.run_id)).toEqual(['b', 'c']);
    expect(next.total).toBe(4);
    expect(next.queues).toEqual([
      { name: 'q1', max_concurrency: 1, running: 1, queued: 1 },
      { name: 'q2', max_concurrency: null, running: 0, queued: 1 },
    ]);
  });

  it('leaves the facets alone (they describe every waiting run, and the next poll refreshes them)', () => {
    expect(withoutRuns(listing, ['c']).facets).toBe(listing.facets);
  });

  it('returns the same listing when none of the runs is in it', () => {
    expect(withoutRuns(listing, ['zzz'])).toBe(listing);
  });
});
