// One card per queue: how many of its runs run against its limit, and how many wait.

import type { QueueSummary } from '@/components/apiTypes';

export function QueueSummaries({ queues }: { queues: QueueSummary[] }) {
  if (queues.length === 0) return null;
  return (
    // No accessible name on purpose: the filter control is labelled "Queue", and a region named "Queues"
    // would make that label ambiguous to anyone who finds controls by label.
    <section>
      <h2 className="sr-only">Queues</h2>
      <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {queues.map((q) => {
          const full = q.max_concurrency !== null && q.running >= q.max_concurrency;
          return (
            <li
              key={q.name}
              data-testid="queue-summary"
              data-queue={q.name}
              className="rounded-lg border border-zinc-200 px-4 py-3 dark:border-zinc-800"
            >
              <p className="truncate font-medium" title={q.name}>
                {q.name}
              </p>
              <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-300">
                <span className={full ? 'font-semibold text-amber-700 dark:text-amber-300' : ''}>
                  <span data-testid="queue-running">{q.running}</span>
                  {q.max_concurrency !== null ? ` / ${q.max_concurrency}` : ''} running
                </span>
                {q.max_concurrency === null && <span className="text-zinc-500"> (no limit)</span>}
                {' · '}
                <span data-testid="queue-queued">{q.queued}</span> queued
              </p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
