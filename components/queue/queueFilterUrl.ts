// The queue page's URL: the filter lives in the query string so a view can be shared and survives reloads.

import { queueFilterParams } from '../queries';
import { QUEUE_FILTER_KEYS, type QueueFilter } from '../queryKeys';

export function queueHref(filter: QueueFilter): string {
  const q = queueFilterParams(filter).toString();
  return q ? `/queue?${q}` : '/queue';
}

/** The filter of a page's search params (the first value of each; empty values mean "any"). */
export function readQueueFilter(params: Record<string, string | string[] | undefined>): QueueFilter {
  const filter: QueueFilter = {};
  for (const key of QUEUE_FILTER_KEYS) {
    const raw = params[key];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (value) filter[key] = value;
  }
  return filter;
}

export function isFiltered(filter: QueueFilter): boolean {
  return QUEUE_FILTER_KEYS.some((k) => Boolean(filter[k]));
}
