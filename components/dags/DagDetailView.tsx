'use client';
// One DAG: what it does (schedule, steps, queue), its validation errors, and its recent runs.

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { DagDetail } from '@/server/api/operations';
import { EmptyState, ErrorPanel, Field, PageHeader, linkClass } from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';
import { formatRelative, formatTime } from '../format';
import { dagQuery } from '../queries';
import { RunTable } from '../runs/RunTable';
import { useNow } from '../useNow';
import { RunNowButton } from './RunNowButton';

export function DagDetailView({ name, initial }: { name: string; initial: DagDetail }) {
  const { data = initial, error, refetch } = useQuery({ ...dagQuery(name), initialData: initial });
  const now = useNow();
  const dag = data.dag;
  return (
    <div className="flex flex-col gap-6">
      <PageHeader inStack title={<span data-testid="dag-name">{data.name}</span>}>
        <RunNowButton dag={data.name} disabled={data.errors.length > 0} />
      </PageHeader>
      {error && (
        <ErrorPanel
          title="Cannot refresh this DAG"
          message={errorText(error)}
          onRetry={() => void refetch()}
        />
      )}
      {data.description && <p className="text-zinc-700 dark:text-zinc-300">{data.description}</p>}
      {data.errors.length > 0 && (
        <div
          role="alert"
          className="rounded-lg border border-red-300 bg-red-50 p-4 dark:border-red-800 dark:bg-red-950"
        >
          <p className="flex items-center gap-2 font-medium">
            <StatusBadge status="invalid" /> {data.file} has errors and cannot run
          </p>
          <ul className="mt-2 list-disc pl-5 text-sm">
            {data.errors.map((e) => (
              <li key={e}>{e}</li>
            ))}
          </ul>
        </div>
      )}
      <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-3">
        <Field label="File">{data.file}</Field>
        <Field label="Schedule">
          {data.schedule.length > 0
            ? data.schedule.map((s) => (
                <code key={s} className="block">
                  {s}
                </code>
              ))
            : '—'}
        </Field>
        <Field label="Next run">
          {data.next_run ? `${formatTime(data.next_run)} ${formatRelative(data.next_run, now)}` : '—'}
        </Field>
        {dag && (
          <>
            <Field label="Queue">{dag.queue}</Field>
            <Field label="Max active runs">{dag.max_active_runs}</Field>
            <Field label="Overlap policy">{dag.overlap_policy}</Field>
          </>
        )}
      </dl>
      {dag && (
        <section aria-labelledby="steps-heading">
          <h2 id="steps-heading" className="mb-2 text-lg font-semibold">
            Steps
          </h2>
          <ol className="flex flex-col gap-2">
            {dag.steps.map((step) => (
              <li key={step.name} className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
                <p className="font-medium">{step.name}</p>
                {step.depends.length > 0 && (
                  <p className="text-xs text-zinc-500 dark:text-zinc-400">after {step.depends.join(', ')}</p>
                )}
                <pre className="mt-1 overflow-x-auto text-xs whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">
                  {step.script ?? step.command?.join('\n') ?? (step.call ? `call ${step.call}` : '')}
                </pre>
              </li>
            ))}
          </ol>
        </section>
      )}
      <section aria-labelledby="runs-heading">
        <div className="mb-2 flex items-center justify-between">
          <h2 id="runs-heading" className="text-lg font-semibold">
            Recent runs
          </h2>
          <Link href={`/runs?dag=${encodeURIComponent(data.name)}`} className={linkClass}>
            All runs of {data.name}
          </Link>
        </div>
        {data.recent_runs.length > 0 ? (
          <RunTable runs={data.recent_runs} now={now} showDag={false} />
        ) : (
          <EmptyState title="No runs yet">Use “Run now” to start one.</EmptyState>
        )}
      </section>
    </div>
  );
}
