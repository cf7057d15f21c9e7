'use client';
// One DAG: what it does (schedule, steps, queue), its validation errors, and its recent runs.

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { DagDefinition, DagDetail, StepSpec } from '@/components/apiTypes';
import { EmptyState, ErrorPanel, Field, PageHeader, linkClass } from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';
import { formatRelative, formatTime } from '../format';
import { dagQuery } from '../queries';
import { RunTable } from '../runs/RunTable';
import { useNow } from '../useNow';
import { DagSpecSection } from './editor/DagSpecSection';
import { orderStepsAsRun } from '../graph/stepOrder';
import { StepGraph } from '../graph/StepGraph';
import { HistoryGrid } from './HistoryGrid';
import { RunNowButton } from './RunNowButton';
import { StartDagButton } from './StartDagButton';
import { SuspendToggle } from './SuspendToggle';

export function DagDetailView({ name, initial }: { name: string; initial: DagDetail }) {
  const { data = initial, error, refetch } = useQuery({ ...dagQuery(name), initialData: initial });
  const now = useNow();
  const dag = data.dag;
  // In the order the DAG runs them: a chain as the chain, a graph step after the steps it waits for.
  const steps = dag ? orderStepsAsRun(dag.steps) : [];
  return (
    <div className="flex flex-col gap-6">
      <PageHeader inStack title={<span data-testid="dag-name">{data.name}</span>}>
        <SuspendToggle dag={data.name} suspended={data.suspended} suspendedAt={data.suspended_at} withBadge />
        <StartDagButton
          dag={data.name}
          params={dag?.params}
          paramsLocked={dag?.run_config?.disable_param_edit ?? false}
          build={dag?.type === 'build'}
          disabled={data.errors.length > 0}
        />
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
        <Field label="Next slot">
          {data.next_run ? `${formatTime(data.next_run)} ${formatRelative(data.next_run, now)}` : '—'}
        </Field>
        <Field label="Last status">
          {data.last_run ? (
            <Link
              href={`/runs/${encodeURIComponent(data.last_run.run_id)}`}
              className="inline-flex items-center gap-2 focus-visible:outline-2 focus-visible:outline-blue-500"
            >
              <StatusBadge status={data.last_run.status} />
              <span className="font-mono text-xs">{data.last_run.run_id}</span>
            </Link>
          ) : (
            'never run'
          )}
        </Field>
        <Field label="Queue">{data.queue ?? '—'}</Field>
        {dag && (
          <>
            <Field label="Max active runs">{dag.max_active_runs}</Field>
            <Field label="Overlap policy">{dag.overlap_policy}</Field>
            <Field label="Worker selector">{selectorText(dag.worker_selector)}</Field>
          </>
        )}
      </dl>
      {dag && (
        <section aria-labelledby="steps-heading">
          <h2 id="steps-heading" className="mb-2 text-lg font-semibold">
            Steps
          </h2>
          <StepGraph
            label={`Steps of ${data.name}`}
            steps={steps.map((st) => ({
              name: st.name,
              status: 'not_started',
              depends: st.depends ?? [],
            }))}
          />
          <ol className="mt-3 flex flex-col gap-2" data-testid="dag-steps">
            {steps.map((step) => (
              <li
                key={step.name}
                data-testid="dag-step"
                data-step={step.name}
                className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800"
              >
                <p className="font-medium">{step.name}</p>
                {step.depends.length > 0 && (
                  <p className="text-xs text-zinc-500 dark:text-zinc-400">after {step.depends.join(', ')}</p>
                )}
                <pre className="mt-1 overflow-x-auto text-xs whitespace-pre-wrap text-zinc-700 dark:text-zinc-300">
                  {stepText(step)}
                </pre>
              </li>
            ))}
          </ol>
        </section>
      )}
      <HistoryGrid dag={data.name} steps={steps.map((s) => s.name)} />
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
          <EmptyState title="No runs yet">
            Use “Run now”, or “Run with parameters…” to pass parameters.
          </EmptyState>
        )}
      </section>
      <DagSpecSection name={data.name} />
    </div>
  );
}

function selectorText(selector: DagDefinition['worker_selector']): string {
  if (!selector) return '— (runs here)';
  const pairs = Object.entries(selector).map(([k, v]) => `${k}: ${v}`);
  return pairs.length ? `{${pairs.join(', ')}}` : '{} (any worker)';
}

/** What a step runs: its script, its command lines, or the DAG it calls. */
function stepText(step: StepSpec): string {
  return step.script ?? step.command?.join('\n') ?? (step.call ? `call ${step.call}` : '');
}
