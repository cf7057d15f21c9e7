// The queue listing as it will be once some runs are cancelled: what the queue page shows the moment the
// operator confirms, before the server has answered (and again once it has, until the next poll).

import type { QueueListing } from '@/components/apiTypes';

/** `listing` without the runs in `runIds`: their rows, their share of `total` and of their queue's count. */
export function withoutRuns(listing: QueueListing, runIds: Iterable<string>): QueueListing {
  const gone = new Set(runIds);
  const leaving = listing.items.filter((i) => gone.has(i.run_id));
  if (leaving.length === 0) return listing;
  const leftQueue = new Map<string, number>();
  for (const i of leaving) {
    if (i.kind === 'queued' && i.queue !== null) leftQueue.set(i.queue, (leftQueue.get(i.queue) ?? 0) + 1);
  }
  return {
    ...listing,
    items: listing.items.filter((i) => !gone.has(i.run_id)),
    total: Math.max(0, listing.total - leaving.length),
    queues: listing.queues.map((q) =>
      leftQueue.has(q.name) ? { ...q, queued: Math.max(0, q.queued - leftQueue.get(q.name)!) } : q,
    ),
  };
}
