import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { QueueListing, WaitingRun } from '@/components/apiTypes';
import { hideWaitingRuns, restoreWaitingRuns, startRequestBody } from './queries';
import { queryKeys } from './queryKeys';

function waiting(run_id: string, queue: string): WaitingRun {
  return {
    run_id,
    dag_name: 'd',
    kind: 'queued',
    queue,
    position: 1,
    status: 'queued',
    trigger_type: 'manual',
    schedule_time: null,
    params: [],
    worker_selector: null,
    selector_text: null,
    conditions: [],
    reason: null,
    waiting_since: '2026-01-01T00:00:00Z',
    waited_ms: 1000,
    hold_until: null,
    hold_remaining_ms: null,
    problem: null,
  };
}

function listing(...ids: string[]): QueueListing {
  return {
    enabled: true,
    queues: [{ name: 'q', max_concurrency: 1, running: 1, queued: ids.length }],
    items: ids.map((id) => waiting(id, 'q')),
    total: ids.length,
    facets: { queues: ['q'], dags: ['d'], selectors: [], reasons: [] },
  };
}

const ids = (client: QueryClient, filter: Parameters<typeof queryKeys.queue>[0]) =>
  client.getQueryData<QueueListing>(queryKeys.queue(filter))?.items.map((i) => i.run_id);

/** Two cached queue listings (all runs; one queue's), received at known times. */
function clientWithListings() {
  const client = new QueryClient();
  client.setQueryData(queryKeys.queue({}), listing('a', 'b', 'c'), { updatedAt: 1000 });
  client.setQueryData(queryKeys.queue({ queue: 'q' }), listing('b', 'c'), { updatedAt: 2000 });
  client.setQueryData(queryKeys.run('b'), { run_id: 'b' });
  return client;
}

describe('hideWaitingRuns', () => {
  it('drops the runs from every cached queue listing at once', async () => {
    const client = clientWithListings();
    await hideWaitingRuns(client, ['b']);
    expect(ids(client, {})).toEqual(['a', 'c']);
    expect(ids(client, { queue: 'q' })).toEqual(['c']);
    expect(client.getQueryData<QueueListing>(queryKeys.queue({}))?.total).toBe(2);
  });

  it('keeps when each listing was received (the page adds the time since then to the waits)', async () => {
    const client = clientWithListings();
    await hideWaitingRuns(client, ['b']);
    expect(client.getQueryState(queryKeys.queue({}))?.dataUpdatedAt).toBe(1000);
    expect(client.getQueryState(queryKeys.queue({ queue: 'q' }))?.dataUpdatedAt).toBe(2000);
  });

  it('touches no other query', async () => {
    const client = clientWithListings();
    await hideWaitingRuns(client, ['b']);
    expect(client.getQueryData(queryKeys.run('b'))).toEqual({ run_id: 'b' });
  });
});

describe('restoreWaitingRuns', () => {
  it('puts back the listings as they were when the cancel request itself failed', async () => {
    const client = clientWithListings();
    const snapshot = await hideWaitingRuns(client, ['b', 'c']);
    restoreWaitingRuns(client, snapshot);
    expect(ids(client, {})).toEqual(['a', 'b', 'c']);
    expect(ids(client, { queue: 'q' })).toEqual(['b', 'c']);
    expect(client.getQueryState(queryKeys.queue({}))?.dataUpdatedAt).toBe(1000);
  });
});

describe('startRequestBody', () => {
  it('sends no_reuse only when reuse is disabled', () => {
    expect(startRequestBody(['A=1'], { noReuse: true })).toEqual({ params: ['A=1'], no_reuse: true });
    expect(startRequestBody(['A=1'], { noReuse: false })).toEqual({ params: ['A=1'] });
    expect(startRequestBody([])).toEqual({ params: [] });
  });
});
