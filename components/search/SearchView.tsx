'use client';
// /search?q=: what the navigation's search found: DAGs (best first, with where the words were found) and
// runs whose ID is or starts with the query.

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { SearchResult } from '@/components/apiTypes';
import { getJson } from '../api';
import { EmptyState, ErrorPanel, LoadingPanel, linkClass } from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';

export const searchQuery = (q: string) => ({
  queryKey: ['search', q] as const,
  queryFn: ({ signal }: { signal: AbortSignal }) =>
    getJson<SearchResult>(`/api/v1/search?q=${encodeURIComponent(q)}`, signal),
  staleTime: 5000,
});

export function SearchView({ q }: { q: string }) {
  const query = q.trim();
  const result = useQuery({ ...searchQuery(query), enabled: query !== '' });
  if (query === '') {
    return (
      <EmptyState title="Search DAGs and runs" testId="search-empty">
        Type a DAG name, tag, a word of a step command or a run ID in the search box (press / to get there).
      </EmptyState>
    );
  }
  if (result.error) {
    return (
      <ErrorPanel
        title="Cannot search"
        message={errorText(result.error)}
        onRetry={() => void result.refetch()}
      />
    );
  }
  if (!result.data) return <LoadingPanel label={`Searching for “${query}”…`} />;
  const { dags, runs } = result.data;
  if (dags.length === 0 && runs.length === 0) {
    return (
      <EmptyState title={`Nothing found for “${query}”`} testId="search-nothing">
        No DAG name, tag, description or step command contains every word, and no run ID starts with it.
      </EmptyState>
    );
  }
  return (
    <div className="flex flex-col gap-6" data-testid="search-results">
      {runs.length > 0 && (
        <section aria-labelledby="search-runs" className="flex flex-col gap-2">
          <h2 id="search-runs" className="text-lg font-semibold">
            Runs ({runs.length})
          </h2>
          <ul className="flex flex-col gap-1">
            {runs.map((r) => (
              <li
                key={r.run_id}
                className="flex flex-wrap items-center gap-3 text-sm"
                data-testid="search-run"
              >
                <Link href={`/runs/${encodeURIComponent(r.run_id)}`} className={`${linkClass} font-mono`}>
                  {r.run_id}
                </Link>
                {r.dag_name && <span className="text-zinc-600 dark:text-zinc-300">{r.dag_name}</span>}
                {r.status && <StatusBadge status={r.status} />}
                {r.exact && <span className="text-xs text-zinc-500 dark:text-zinc-400">exact ID</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {dags.length > 0 && (
        <section aria-labelledby="search-dags" className="flex flex-col gap-2">
          <h2 id="search-dags" className="text-lg font-semibold">
            DAGs ({dags.length})
          </h2>
          <ul className="flex flex-col gap-3">
            {dags.map((d) => (
              <li key={d.name} className="flex flex-col gap-0.5 text-sm" data-testid="search-dag">
                <span className="flex flex-wrap items-center gap-2">
                  <Link href={`/dags/${encodeURIComponent(d.name)}`} className={`${linkClass} font-medium`}>
                    {d.name}
                  </Link>
                  <span className="text-xs text-zinc-500 dark:text-zinc-400">
                    found in {d.fields.join(', ')}
                  </span>
                  {d.tags.map((t) => (
                    <span
                      key={t}
                      className="rounded bg-zinc-100 px-1.5 text-xs text-zinc-700 dark:bg-zinc-800 dark:text-zinc-200"
                    >
                      {t}
                    </span>
                  ))}
                </span>
                {d.description && <span className="text-zinc-600 dark:text-zinc-300">{d.description}</span>}
                {d.snippet && d.fields.includes('command') && (
                  <code className="truncate text-xs text-zinc-700 dark:text-zinc-300">{d.snippet}</code>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
