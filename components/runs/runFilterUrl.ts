// The run list's URL: the filter lives in the query string so a view can be shared and survives reloads.

import { RUN_FILTER_KEYS, type RunFilter } from '../queryKeys';

export function runListHref(filter: RunFilter): string {
  const q = new URLSearchParams();
  for (const key of RUN_FILTER_KEYS) {
    const value = filter[key];
    if (value) q.set(key, value);
  }
  const s = q.toString();
  return s ? `/runs?${s}` : '/runs';
}

/** The filter of a /runs address's query (the page's `searchParams`): the first value of each known key. */
export function runFilterOf(params: Record<string, string | string[] | undefined>): RunFilter {
  const filter: RunFilter = {};
  for (const key of RUN_FILTER_KEYS) {
    const v = params[key];
    const value = Array.isArray(v) ? v[0] : v;
    if (value) filter[key] = value;
  }
  return filter;
}

/** Whether any filter (not the page) is set. */
export function isFiltered(filter: RunFilter): boolean {
  return RUN_FILTER_KEYS.some((k) => k !== 'cursor' && Boolean(filter[k]));
}
