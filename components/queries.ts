// Every query of the console with how often each view refreshes (their keys are spelled in queryKeys.ts).
// Mutations live here too, so that what they invalidate is next to what they change.

import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type {
  CancelResult,
  HumanTaskCompletionResult,
  ApprovalResult,
  DagDetail,
  DagHistory,
  DagSummary,
  QueueListing,
  RetryResult,
  RunListPage,
  RunState,
  RunStatus,
  RunTimings,
  RunArtifacts,
  StartRequest,
  StartResult,
  StepLog,
} from '@/components/apiTypes';
import { livePoll } from './live/liveEvents';
import { withoutRuns } from './queue/withoutRuns';
import { timeBounds } from './runs/timeRange';
import { getJson, isNotFound, postJson } from './api';
import { QUEUE_FILTER_KEYS, queryKeys, type LogStream, type QueueFilter, type RunFilter } from './queryKeys';

/** Live views refresh at least this often. */
export const LIVE_REFRESH_MS = 2000;
/** A run that is still going refreshes faster. */
export const RUN_REFRESH_MS = 1000;

const TERMINAL: readonly RunState[] = ['succeeded', 'partially_succeeded', 'failed', 'aborted', 'rejected'];

const enc = encodeURIComponent;

export function isTerminal(status: string | undefined): boolean {
  return status !== undefined && (TERMINAL as readonly string[]).includes(status);
}

export const dagsQuery = () =>
  queryOptions({
    queryKey: queryKeys.dags(),
    queryFn: ({ signal }) => getJson<{ dags: DagSummary[] }>('/api/v1/dags', signal),
    refetchInterval: livePoll(LIVE_REFRESH_MS),
  });

export const dagQuery = (name: string) =>
  queryOptions({
    queryKey: queryKeys.dag(name),
    queryFn: ({ signal }) => getJson<DagDetail>(`/api/v1/dags/${enc(name)}`, signal),
    refetchInterval: livePoll(LIVE_REFRESH_MS),
  });

export const dagHistoryQuery = (name: string, limit: number) =>
  queryOptions({
    queryKey: queryKeys.dagHistory(name, limit),
    queryFn: ({ signal }) => getJson<DagHistory>(`/api/v1/dags/${enc(name)}/history?limit=${limit}`, signal),
    refetchInterval: LIVE_REFRESH_MS,
  });

/** The times of up to 100 runs (a page of child runs); refreshed while any of them has not ended. */
export const runTimingsQuery = (runIds: readonly string[]) =>
  queryOptions({
    queryKey: queryKeys.runTimings(runIds),
    queryFn: ({ signal }) =>
      getJson<RunTimings>(`/api/v1/run-timings?ids=${runIds.map(enc).join(',')}`, signal),
    enabled: runIds.length > 0,
    refetchInterval: (query) =>
      query.state.data?.runs.every((r) => isTerminal(r.status ?? undefined)) ? false : LIVE_REFRESH_MS,
  });

export const runsQuery = (filter: RunFilter) =>
  queryOptions({
    queryKey: queryKeys.runList(filter),
    queryFn: ({ signal }) => {
      const q = new URLSearchParams();
      if (filter.dag) q.set('dag', filter.dag);
      if (filter.status) q.set('status', filter.status);
      if (filter.trigger) q.set('trigger', filter.trigger);
      if (filter.labels) q.set('labels', filter.labels);
      const { from, to } = timeBounds(filter, Date.now());
      if (from) q.set('from', from);
      if (to) q.set('to', to);
      if (filter.cursor) q.set('cursor', filter.cursor);
      q.set('limit', '50');
      return getJson<RunListPage>(`/api/v1/runs?${q}`, signal);
    },
    refetchInterval: livePoll(LIVE_REFRESH_MS),
  });

export const runQuery = (runId: string) =>
  queryOptions({
    queryKey: queryKeys.run(runId),
    queryFn: ({ signal }) => getJson<RunStatus>(`/api/v1/runs/${enc(runId)}`, signal),
    refetchInterval: (query) => (isTerminal(query.state.data?.status) ? false : RUN_REFRESH_MS),
    // Right after a start the run process may not have written its record yet: keep asking for a while.
    retry: (failures, err) => (isNotFound(err) ? failures < 10 : failures < 3),
    retryDelay: 500,
  });

/** A run's artifacts, polled while it runs and fetched once more when it ends (`version` in the key). */
export const runArtifactsQuery = (runId: string, version: string, live: boolean) =>
  queryOptions({
    queryKey: queryKeys.runArtifacts(runId, version),
    queryFn: ({ signal }) => getJson<RunArtifacts>(`/api/v1/runs/${enc(runId)}/artifacts`, signal),
    refetchInterval: live ? LIVE_REFRESH_MS : false,
  });

/**
 * One step log. `version` (the step's state, finish time and attempt) is part of the key so that the log is
 * fetched once more when the step finishes, after which it no longer changes.
 */
export const stepLogQuery = (
  runId: string,
  step: string,
  stream: LogStream,
  version: string,
  live: boolean,
) =>
  queryOptions({
    queryKey: queryKeys.stepLog(runId, step, stream, version),
    queryFn: ({ signal }) =>
      getJson<StepLog>(`/api/v1/runs/${enc(runId)}/logs/${enc(step)}?stream=${stream}&tail=65536`, signal),
    refetchInterval: live ? RUN_REFRESH_MS : false,
  });

/** The query string of a queue filter (empty values left out), shared by the API call and the page URL. */
export function queueFilterParams(filter: QueueFilter): URLSearchParams {
  const q = new URLSearchParams();
  for (const key of QUEUE_FILTER_KEYS) {
    const value = filter[key];
    if (value) q.set(key, value);
  }
  return q;
}

export const queueQuery = (filter: QueueFilter = {}) =>
  queryOptions({
    queryKey: queryKeys.queue(filter),
    queryFn: ({ signal }) => {
      const q = queueFilterParams(filter).toString();
      return getJson<QueueListing>(q ? `/api/v1/queue?${q}` : '/api/v1/queue', signal);
    },
    refetchInterval: livePoll(LIVE_REFRESH_MS),
  });

/** Marks everything a run state change can affect as stale. */
function invalidateRuns(client: QueryClient, runId?: string): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: queryKeys.runLists() }),
    client.invalidateQueries({ queryKey: queryKeys.dags() }),
    client.invalidateQueries({ queryKey: queryKeys.queues() }),
    // The overview's run counts (its own poll is fast; this only saves a tick).
    client.invalidateQueries({ queryKey: queryKeys.overview() }),
    runId ? client.invalidateQueries({ queryKey: queryKeys.run(runId) }) : Promise.resolve(),
  ]).then(() => undefined);
}

/** The body of a start: the params, and `no_reuse` only when reuse is disabled (a build DAG's choice). */
export function startRequestBody(params: string[], opts: { noReuse?: boolean } = {}): StartRequest {
  return opts.noReuse ? { params, no_reuse: true } : { params };
}

export async function startDagRun(
  client: QueryClient,
  dag: string,
  params: string[] = [],
  opts: { noReuse?: boolean } = {},
): Promise<StartResult> {
  const result = await postJson<StartResult>(
    `/api/v1/dags/${enc(dag)}/start`,
    startRequestBody(params, opts),
  );
  if (result.status) client.setQueryData(runQuery(result.run_id).queryKey, result.status);
  await invalidateRuns(client);
  return result;
}

/** Stops a run; the answer is the run afterwards (still `running` when a worker or a signal will end it). */
export async function stopRun(client: QueryClient, runId: string): Promise<RunStatus> {
  const status = await postJson<RunStatus>(`/api/v1/runs/${enc(runId)}/stop`);
  client.setQueryData(runQuery(runId).queryKey, status);
  await invalidateRuns(client, runId);
  return status;
}

/** POST /api/v1/runs/:id/human-tasks/:step/complete with typed inputs; the run is refreshed after. */
export async function completeHumanTask(
  client: QueryClient,
  runId: string,
  step: string,
  inputs: Record<string, unknown>,
): Promise<HumanTaskCompletionResult> {
  const result = await postJson<HumanTaskCompletionResult>(
    `/api/v1/runs/${enc(runId)}/human-tasks/${enc(step)}/complete`,
    { inputs },
  );
  await invalidateRuns(client, runId);
  return result;
}

/**
 * POST /api/v1/runs/:id/approvals/:step/<answer>: approve or push back with `inputs`, or reject with `reason`;
 * the run is refreshed after.
 */
export async function answerApproval(
  client: QueryClient,
  runId: string,
  step: string,
  answer: 'approve' | 'reject' | 'push-back',
  body: { inputs?: Record<string, string>; reason?: string },
): Promise<ApprovalResult> {
  const result = await postJson<ApprovalResult>(
    `/api/v1/runs/${enc(runId)}/approvals/${enc(step)}/${answer}`,
    body,
  );
  await invalidateRuns(client, runId);
  return result;
}

/** A new attempt of a finished run: every step that did not succeed, or only `step` (and, with `downstream`,
 *  the steps after it); for a step of a sub-run the attempt is its root run's (`result.run_id`). */
export async function retryRun(
  client: QueryClient,
  runId: string,
  step?: { name: string; downstream: boolean },
): Promise<RetryResult> {
  const body = step ? { step: step.name, ...(step.downstream ? { downstream: true } : {}) } : {};
  const result = await postJson<RetryResult>(`/api/v1/runs/${enc(runId)}/retry`, body);
  await invalidateRuns(client, result.run_id);
  if (result.run_id !== runId) await invalidateRuns(client, runId);
  return result;
}

/** Drops runs from every cached queue listing, keeping the time each listing was received (the page adds the
 *  time since then to the waits it shows). */
function removeFromListings(client: QueryClient, runIds: readonly string[]): void {
  for (const [key, old] of client.getQueriesData<QueueListing>({ queryKey: queryKeys.queues() })) {
    if (!old) continue;
    const next = withoutRuns(old, runIds);
    if (next !== old) client.setQueryData(key, next, { updatedAt: client.getQueryState(key)?.dataUpdatedAt });
  }
}

/**
 * Before a cancel: the runs leave every cached queue listing at once, so the operator sees the effect without
 * waiting for the server. Returns the listings as they were, to put back when the request itself fails.
 */
export async function hideWaitingRuns(client: QueryClient, runIds: readonly string[]) {
  await client.cancelQueries({ queryKey: queryKeys.queues() });
  const snapshot = client.getQueriesData<QueueListing>({ queryKey: queryKeys.queues() });
  removeFromListings(client, runIds);
  return snapshot;
}

/** Puts back listings saved by hideWaitingRuns. */
export function restoreWaitingRuns(
  client: QueryClient,
  snapshot: ReadonlyArray<[readonly unknown[], QueueListing | undefined]>,
): void {
  for (const [key, data] of snapshot) {
    client.setQueryData(key, data, { updatedAt: client.getQueryState(key)?.dataUpdatedAt });
  }
}

/**
 * Cancels waiting runs; the answer says, per run, whether it was cancelled. The cancelled ones are dropped
 * again (a poll may have brought them back while the request ran); the refetch that follows brings back
 * any run the server refused, still waiting.
 */
export async function cancelWaitingRuns(
  client: QueryClient,
  runIds: readonly string[],
): Promise<CancelResult> {
  const result = await postJson<CancelResult>('/api/v1/queue/cancel', { run_ids: runIds });
  removeFromListings(
    client,
    result.results.filter((r) => r.ok).map((r) => r.run_id),
  );
  // Not awaited: the answer is shown now; fresh data follows on its own.
  void invalidateRuns(client);
  for (const r of result.results) void client.invalidateQueries({ queryKey: queryKeys.run(r.run_id) });
  return result;
}
