// The run list's URL: the filter lives in the query string so a view can be shared and survives reloads.

import type { RunFilter } from '../queryKeys';

export function runListHref(filter: RunFilter): string {
  const q = new URLSearchParams();
  if (filter.dag) q.set('dag', filter.dag);
  if (filter.status) q.set('status', filter.status);
  if (filter.cursor) q.set('cursor', filter.cursor);
  const s = q.toString();
  return s ? `/runs?${s}` : '/runs';
}
