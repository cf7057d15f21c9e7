// The log console's queries. Their keys start with the run's key, so whatever refreshes a run (the event
// stream, a stop) refreshes its logs too; a page's key holds how many of its lines exist, so the last page
// of a growing log is fetched again when it grows, and full pages are fetched once.

import { queryOptions } from '@tanstack/react-query';
import type { LogLinePage, LogSearchResult, LogSources } from '@/components/apiTypes';
import { getJson } from '../../api';
import { RUN_REFRESH_MS } from '../../queries';
import { queryKeys } from '../../queryKeys';
import { PAGE_LINES, type LogFilter, type PageRef } from './logLayout';

const enc = encodeURIComponent;

export const logSourcesQuery = (runId: string, runStatus: string, live: boolean) =>
  queryOptions({
    // The run's state is part of the key: when the run ends, the counts are fetched once more.
    queryKey: [...queryKeys.run(runId), 'log-sources', runStatus] as const,
    queryFn: ({ signal }) => getJson<LogSources>(`/api/v1/runs/${enc(runId)}/log-sources`, signal),
    refetchInterval: live ? RUN_REFRESH_MS : false,
  });

export const logPageQuery = (runId: string, ref: PageRef) =>
  queryOptions({
    queryKey: [...queryKeys.run(runId), 'log-page', ref.step, ref.stream, ref.page, ref.known] as const,
    queryFn: ({ signal }) =>
      getJson<LogLinePage>(
        `/api/v1/runs/${enc(runId)}/logs/${enc(ref.step)}/lines?stream=${ref.stream}&from=${ref.page * PAGE_LINES}&limit=${PAGE_LINES}`,
        signal,
      ),
    staleTime: Infinity,
    gcTime: 60_000,
  });

export const logSearchQuery = (runId: string, q: string, filter: LogFilter) =>
  queryOptions({
    queryKey: [...queryKeys.run(runId), 'log-search', q, filter.step ?? '', filter.stream ?? ''] as const,
    queryFn: ({ signal }) => {
      const params = new URLSearchParams({ q, limit: '200', context: '0' });
      if (filter.step) params.set('step', filter.step);
      if (filter.stream) params.set('stream', filter.stream);
      return getJson<LogSearchResult>(`/api/v1/runs/${enc(runId)}/log-search?${params}`, signal);
    },
    staleTime: Infinity,
  });

export function stepDownloadUrl(runId: string, step: string, stream: string): string {
  return `/api/v1/runs/${enc(runId)}/logs/${enc(step)}/download?stream=${stream}`;
}

export function runDownloadUrl(runId: string): string {
  return `/api/v1/runs/${enc(runId)}/log-download`;
}
