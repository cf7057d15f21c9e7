'use client';
// Filter controls of the run list. They are a plain GET form (works without JavaScript); with JavaScript a
// change navigates at once. Changing a filter starts again from the newest page.
// The selects are uncontrolled and the URL is built from the form itself: a second change made before the
// first navigation finished must not be computed from the previous URL's filter.

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import type { ChangeEvent } from 'react';
import { RUN_STATES } from '@/server/api/runStates';
import { buttonClass } from '../Panels';
import { dagsQuery, type RunFilter } from '../queries';
import { runListHref } from './runFilterUrl';

const selectClass =
  'rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500';

export function RunFilters({ filter }: { filter: RunFilter }) {
  const router = useRouter();
  const dags = useQuery(dagsQuery());
  const names = new Set((dags.data?.dags ?? []).map((d) => d.name));
  if (filter.dag) names.add(filter.dag);
  const go = (next: RunFilter) => router.push(runListHref({ dag: next.dag, status: next.status }));
  const onChange = (e: ChangeEvent<HTMLSelectElement>) => {
    const form = new FormData(e.currentTarget.form ?? undefined);
    const value = (name: string) => (form.get(name) as string | null) || undefined;
    go({ dag: value('dag'), status: value('status') });
  };

  return (
    <form
      // Remounted when the URL's filter changes (back button, "Clear filters"), so the selects show it.
      key={`${filter.dag ?? ''}|${filter.status ?? ''}`}
      action="/runs"
      method="get"
      className="mb-4 flex flex-wrap items-end gap-3"
      data-testid="run-filters"
    >
      <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
        DAG
        <select
          name="dag"
          className={selectClass}
          defaultValue={filter.dag ?? ''}
          onChange={onChange}
          data-testid="filter-dag"
        >
          <option value="">All DAGs</option>
          {[...names].sort().map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
        Status
        <select
          name="status"
          className={selectClass}
          defaultValue={filter.status ?? ''}
          onChange={onChange}
          data-testid="filter-status"
        >
          <option value="">Any status</option>
          {RUN_STATES.map((s) => (
            <option key={s} value={s}>
              {s.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <noscript>
        <button type="submit" className={buttonClass('secondary')}>
          Apply
        </button>
      </noscript>
      {(filter.dag || filter.status) && (
        <button type="button" className={buttonClass('secondary')} onClick={() => go({})}>
          Clear filters
        </button>
      )}
    </form>
  );
}
