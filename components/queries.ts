// Every query of the console: the only place query keys are spelled, with how often each view refreshes.
// Mutations live here too, so that what they invalidate is next to what they change.

import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { DagDetail, DagSummary, QueueListing, StartResult, StepLog } from '@/server/api/operations';
import { TERMINAL_RUN_STATES, type RunStatus } from '@/server/core/types';
import type { RunListPage } from '@/server/store/types';
import { getJson, isNotFound, postJson } from './api';

/** The run list's view state, as held in the URL. */
export interface RunFilter {
  dag?: string;
  status?: string;
  cursor?: string;
}

/** Live views refresh at least this often. */
export const LIVE_REFRESH_MS = 2000;
/** A run that is still going refreshes faster. */
export const RUN_REFRESH_MS = 1000;

const enc = encodeURIComponent;

export function isTerminal(status: string | undefined): boolean {
  return status !== undefined && (TERMINAL_RUN_STATES as readonly string[]).includes(status);
}

export const dagsQuery = () =>
  queryOptions({
    queryKey: ['dags'],
    queryFn: ({ signal }) => getJson<{ dags: DagSummary[] }>('/api/v1/dags', signal),
    refetchInterval: LIVE_REFRESH_MS,
  });

export const dagQuery = (name: string) =>
  queryOptions({
    queryKey: ['dags', name],
    queryFn: ({ signal }) => getJson<DagDetail>(`/api/v1/dags/${enc(name)}`, signal),
    refetchInterval: LIVE_REFRESH_MS,
  });

export const runsQuery = (filter: RunFilter) =>
  queryOptions({
    queryKey: ['runs', { dag: filter.dag ?? '', status: filter.status ?? '', cursor: filter.cursor ?? '' }],
    queryFn: ({ signal }) => {
      const q = new URLSearchParams();
      if (filter.dag) q.set('dag', filter.dag);
      if (filter.status) q.set('status', filter.status);
      if (filter.cursor) q.set('cursor', filter.cursor);
      q.set('limit', '50');
      return getJson<RunListPage>(`/api/v1/runs?${q}`, signal);
    },
    refetchInterval: LIVE_REFRESH_MS,
  });

export const runQuery = (runId: string) =>
  queryOptions({
    queryKey: ['run', runId],
    queryFn: ({ signal }) => getJson<RunStatus>(`/api/v1/runs/${enc(runId)}`, signal),
    refetchInterval: (query) => (isTerminal(query.state.data?.status) ? false : RUN_REFRESH_MS),
    // Right after "Run now" the run process may not have written its record yet: keep asking for a while.
    retry: (failures, err) => (isNotFound(err) ? failures < 10 : failures < 3),
    retryDelay: 500,
  });

/**
 * One step log. `version` (the step's state and finish time) is part of the key so that the log is fetched
 * once more when the step finishes, after which it no longer changes.
 */
export const stepLogQuery = (
  runId: string,
  step: string,
  stream: 'stdout' | 'stderr',
  version: string,
  live: boolean,
) =>
  queryOptions({
    queryKey: ['run', runId, 'log', step, stream, version],
    queryFn: ({ signal }) =>
      getJson<StepLog>(`/api/v1/runs/${enc(runId)}/logs/${enc(step)}?stream=${stream}&tail=65536`, signal),
    refetchInterval: live ? RUN_REFRESH_MS : false,
  });

export const queueQuery = () =>
  queryOptions({
    queryKey: ['queue'],
    queryFn: ({ signal }) => getJson<QueueListing>('/api/v1/queue', signal),
    refetchInterval: LIVE_REFRESH_MS,
  });

/** Marks everything a run state change can affect as stale. */
function invalidateRuns(client: QueryClient, runId?: string): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: ['runs'] }),
    client.invalidateQueries({ queryKey: ['dags'] }),
    client.invalidateQueries({ queryKey: ['queue'] }),
    runId ? client.invalidateQueries({ queryKey: ['run', runId] }) : Promise.resolve(),
  ]).then(() => undefined);
}

export async function startDagRun(
  client: QueryClient,
  dag: string,
  params: string[] = [],
): Promise<StartResult> {
  const result = await postJson<StartResult>(`/api/v1/dags/${enc(dag)}/start`, { params });
  if (result.status) client.setQueryData(runQuery(result.run_id).queryKey, result.status);
  await invalidateRuns(client);
  return result;
}

export async function stopRun(client: QueryClient, runId: string): Promise<RunStatus> {
  const status = await postJson<RunStatus>(`/api/v1/runs/${enc(runId)}/stop`);
  await invalidateRuns(client, runId);
  return status;
}

export async function dequeueRun(client: QueryClient, runId: string): Promise<RunStatus> {
  const status = await postJson<RunStatus>(`/api/v1/runs/${enc(runId)}/dequeue`);
  await invalidateRuns(client, runId);
  return status;
}
