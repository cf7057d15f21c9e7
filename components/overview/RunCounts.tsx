// The counts an operator checks first: runs running, queued and held, workers, and DAGs whose schedule is
// suspended, each linking to its page.

import Link from 'next/link';
import type { Overview } from '../apiTypes';
import { workerCountCard } from './workerCounts';

export function RunCounts({ counts }: { counts: Overview['counts'] }) {
  const workers = workerCountCard(counts.workers);
  return (
    <section aria-labelledby="counts-heading">
      <h2 id="counts-heading" className="sr-only">
        Runs and workers
      </h2>
      <ul className="grid grid-cols-2 gap-3 md:grid-cols-3 xl:grid-cols-5">
        <CountCard
          href="/runs?status=running"
          testId="count-running"
          value={counts.running}
          label="running"
        />
        <CountCard href="/queue" testId="count-queued" value={counts.queued} label="queued" />
        <CountCard
          href="/queue"
          testId="count-held"
          value={counts.held}
          label="held"
          detail="waiting for a matching worker"
        />
        <CountCard
          href="/workers"
          testId="count-workers"
          value={workers.total}
          label={workers.label}
          detail={workers.detail}
          warn={workers.warn}
        />
        <CountCard
          href="/dags"
          testId="count-suspended"
          value={counts.suspended_dags}
          label="suspended"
          detail={counts.suspended_dags === 1 ? 'DAG whose schedule is off' : 'DAGs whose schedule is off'}
        />
      </ul>
    </section>
  );
}

function CountCard({
  href,
  testId,
  value,
  label,
  detail,
  warn = false,
}: {
  href: string;
  testId: string;
  value: number;
  label: string;
  detail?: string;
  warn?: boolean;
}) {
  return (
    <li>
      <Link
        href={href}
        className="flex h-full flex-col rounded-lg border border-zinc-200 px-4 py-3 hover:border-zinc-400 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 dark:border-zinc-800 dark:hover:border-zinc-600 dark:hover:bg-zinc-900"
      >
        <span className="flex items-baseline gap-2">
          <span data-testid={testId} className="text-3xl font-semibold tabular-nums">
            {value}
          </span>
          <span className="text-sm font-medium text-zinc-700 dark:text-zinc-300">{label}</span>
        </span>
        {detail && (
          <span
            className={`mt-1 text-xs ${warn ? 'text-amber-800 dark:text-amber-300' : 'text-zinc-600 dark:text-zinc-400'}`}
          >
            {detail}
          </span>
        )}
      </Link>
    </li>
  );
}
