'use client';
// Filter controls of the queue page. A plain GET form (works without JavaScript); with JavaScript a change
// replaces the URL at once, so the back button is not filled with filter steps and a reload keeps the view.
// The selects are uncontrolled and the URL is built from the form itself, so two quick changes both count.

import { useRouter } from 'next/navigation';
import type { ChangeEvent } from 'react';
import type { QueueListing } from '@/components/apiTypes';
import { buttonClass } from '../Panels';
import { QUEUE_FILTER_KEYS, type QueueFilter } from '../queries';
import { isFiltered, queueHref } from './queueFilterUrl';

const selectClass =
  'max-w-[16rem] rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500';

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
          <label
            key={c.key}
            className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300"
          >
            {c.label}
            <select
              name={c.key}
              className={selectClass}
              defaultValue={current ?? ''}
              onChange={onChange}
              data-testid={`queue-filter-${c.key}`}
            >
              <option value="">{c.any}</option>
              {[...options].sort().map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          </label>
        );
      })}
      <noscript>
        <button type="submit" className={buttonClass('secondary')}>
          Apply
        </button>
      </noscript>
      {isFiltered(filter) && (
        <button type="button" className={buttonClass('secondary')} onClick={() => go({})}>
          Clear filters
        </button>
      )}
    </form>
  );
}
