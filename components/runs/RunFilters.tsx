'use client';
// Filter controls of the run list. They are a plain GET form (works without JavaScript); with JavaScript a
// change navigates at once. Changing a filter starts again from the newest page.
// The selects are uncontrolled and the URL is built from the form itself: a second change made before the
// first navigation finished must not be computed from the previous URL's filter.

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import type { ChangeEvent } from 'react';
import { RUN_STATES } from '@/server/api/runStates';
import { FilterFormActions, FilterSelect } from '../FilterControls';
import { dagsQuery } from '../queries';
import type { RunFilter } from '../queryKeys';
import { runListHref } from './runFilterUrl';

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
      <FilterSelect
        label="DAG"
        name="dag"
        anyLabel="All DAGs"
        value={filter.dag}
        options={[...names].sort()}
        onChange={onChange}
        testId="filter-dag"
      />
      <FilterSelect
        label="Status"
        name="status"
        anyLabel="Any status"
        value={filter.status}
        options={RUN_STATES}
        optionLabel={(s) => s.replace('_', ' ')}
        onChange={onChange}
        testId="filter-status"
      />
      <FilterFormActions filtered={Boolean(filter.dag || filter.status)} onClear={() => go({})} />
    </form>
  );
}
