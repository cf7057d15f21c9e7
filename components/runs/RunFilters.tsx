'use client';
// Filter controls of the run list. They are a plain GET form (works without JavaScript); with JavaScript a
// change navigates at once, and the label filter (free text) when Enter is pressed or it loses focus.
// Changing a filter starts again from the newest page.
// The selects are uncontrolled and the URL is built from the form itself: a second change made before the
// first navigation finished must not be computed from the previous URL's filter.

import { useQuery } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import type { ChangeEvent, FocusEvent, KeyboardEvent } from 'react';
import { RUN_STATES, TRIGGER_TYPES } from '@/server/api/runStates';
import { FilterFormActions, FilterSelect } from '../FilterControls';
import { dagsQuery } from '../queries';
import type { RunFilter } from '../queryKeys';
import { labelSuggestions, normalizeLabelFilter } from './labelChips';
import { isFiltered, runListHref } from './runFilterUrl';
import { CUSTOM_RANGE, TIME_PRESETS, fromLocalInput, isPreset, toLocalInput } from './timeRange';

const INPUT_CLASS =
  'rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500';
/** The label filter's field, as tall as the selects beside it. */
const LABELS_INPUT_CLASS =
  'w-48 rounded-md border border-zinc-300 bg-white px-2 py-1.5 font-mono text-sm dark:border-zinc-700 dark:bg-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500';

export function RunFilters({ filter }: { filter: RunFilter }) {
  const router = useRouter();
  const dags = useQuery(dagsQuery());
  const names = new Set((dags.data?.dags ?? []).map((d) => d.name));
  if (filter.dag) names.add(filter.dag);
  // Without a cursor: a changed filter starts again from the newest page.
  const go = (next: RunFilter) => router.push(runListHref({ ...next, cursor: undefined }));
  const custom =
    !isPreset(filter.range) && Boolean(filter.from || filter.to || filter.range === CUSTOM_RANGE);
  const apply = (element: HTMLSelectElement | HTMLInputElement) => {
    const form = new FormData(element.form ?? undefined);
    const value = (name: string) => (form.get(name) as string | null) || undefined;
    const range = value('range');
    const customRange = range === CUSTOM_RANGE;
    go({
      dag: value('dag'),
      status: value('status'),
      trigger: value('trigger'),
      labels: normalizeLabelFilter(value('labels')),
      // A custom range keeps its bounds in from/to; `range=custom` only while none is set yet.
      range: customRange ? (value('from') || value('to') ? undefined : CUSTOM_RANGE) : range,
      from: customRange ? fromLocalInput(value('from')) : undefined,
      to: customRange ? fromLocalInput(value('to')) : undefined,
    });
  };
  const onChange = (e: ChangeEvent<HTMLSelectElement | HTMLInputElement>) => apply(e.currentTarget);
  const onLabelsKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    apply(e.currentTarget);
  };
  const onLabelsBlur = (e: FocusEvent<HTMLInputElement>) => {
    if (normalizeLabelFilter(e.currentTarget.value) !== filter.labels) apply(e.currentTarget);
  };
  const suggestions = labelSuggestions(dags.data?.dags ?? []);

  return (
    <form
      // Remounted when the URL's filter changes (back button, "Clear filters"), so the selects show it.
      key={runListHref({ ...filter, cursor: undefined })}
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
      <FilterSelect
        label="Trigger"
        name="trigger"
        anyLabel="Any trigger"
        value={filter.trigger}
        options={TRIGGER_TYPES}
        onChange={onChange}
        testId="filter-trigger"
      />
      <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
        Labels
        <input
          type="search"
          name="labels"
          defaultValue={filter.labels ?? ''}
          placeholder="team=data, !nightly"
          title="Label filters separated by commas: key, key=value, !key, or a glob such as env=prod-*; press Enter"
          list="run-label-suggestions"
          autoComplete="off"
          spellCheck={false}
          maxLength={1024}
          onKeyDown={onLabelsKeyDown}
          onBlur={onLabelsBlur}
          className={LABELS_INPUT_CLASS}
          data-testid="filter-labels"
        />
        <datalist id="run-label-suggestions">
          {suggestions.map((l) => (
            <option key={l} value={l} />
          ))}
        </datalist>
      </label>
      <FilterSelect
        label="Created"
        name="range"
        anyLabel="Any time"
        value={custom ? CUSTOM_RANGE : filter.range}
        options={[...TIME_PRESETS.map((p) => p.value), CUSTOM_RANGE]}
        optionLabel={(v) => TIME_PRESETS.find((p) => p.value === v)?.label ?? 'Custom range…'}
        onChange={onChange}
        testId="filter-range"
      />
      {custom && (
        <>
          <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
            From (your time)
            <input
              type="datetime-local"
              name="from"
              defaultValue={toLocalInput(filter.from)}
              onChange={onChange}
              className={INPUT_CLASS}
              data-testid="filter-from"
            />
          </label>
          <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
            To (your time)
            <input
              type="datetime-local"
              name="to"
              defaultValue={toLocalInput(filter.to)}
              onChange={onChange}
              className={INPUT_CLASS}
              data-testid="filter-to"
            />
          </label>
        </>
      )}
      <FilterFormActions filtered={isFiltered(filter)} onClear={() => go({})} />
    </form>
  );
}
