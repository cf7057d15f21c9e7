'use client';
// Filter controls of the queue page. A plain GET form (works without JavaScript); with JavaScript a change
// replaces the URL at once, so the back button is not filled with filter steps and a reload keeps the view.
// The selects are uncontrolled and the URL is built from the form itself, so two quick changes both count.

import { useRouter } from 'next/navigation';
import type { ChangeEvent } from 'react';
import type { QueueListing } from '@/components/apiTypes';
import { FilterFormActions, FilterSelect } from '../FilterControls';
import { QUEUE_FILTER_KEYS, type QueueFilter } from '../queryKeys';
import { isFiltered, queueHref } from './queueFilterUrl';

const CONTROLS: Array<{
  key: keyof QueueFilter;
  label: string;
  any: string;
  facet: keyof QueueListing['facets'];
}> = [
  { key: 'queue', label: 'Queue', any: 'All queues', facet: 'queues' },
  { key: 'dag', label: 'DAG', any: 'All DAGs', facet: 'dags' },
  { key: 'selector', label: 'Selector', any: 'Any selector', facet: 'selectors' },
  { key: 'reason', label: 'Reason', any: 'Any reason', facet: 'reasons' },
];

export function QueueFilters({
  filter,
  facets,
}: {
  filter: QueueFilter;
  facets: QueueListing['facets'] | undefined;
}) {
  const router = useRouter();
  const go = (next: QueueFilter) => router.replace(queueHref(next), { scroll: false });
  const onChange = (e: ChangeEvent<HTMLSelectElement>) => {
    const form = new FormData(e.currentTarget.form ?? undefined);
    const next: QueueFilter = {};
    for (const key of QUEUE_FILTER_KEYS) next[key] = (form.get(key) as string | null) || undefined;
    go(next);
  };

  return (
    <form
      // Remounted when the URL's filter changes (back button, "Clear filters"), so the selects show it.
      key={QUEUE_FILTER_KEYS.map((k) => filter[k] ?? '').join('\u0000')}
      action="/queue"
      method="get"
      className="flex flex-wrap items-end gap-3"
      data-testid="queue-filters"
    >
      {CONTROLS.map((c) => {
        const options = new Set(facets?.[c.facet] ?? []);
        // The current value stays selectable even when nothing waits with it any more.
        const current = filter[c.key];
        if (current) options.add(current);
        return (
          <FilterSelect
            key={c.key}
            label={c.label}
            name={c.key}
            anyLabel={c.any}
            value={current}
            options={[...options].sort()}
            onChange={onChange}
            testId={`queue-filter-${c.key}`}
          />
        );
      })}
      <FilterFormActions filtered={isFiltered(filter)} onClear={() => go({})} />
    </form>
  );
}
