'use client';
// One run: state, trigger, slot time, params, times, each step's state and log; refreshes until it ends.

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { RunStatus, StepStatus } from '@/server/core/types';
import { isNotFound } from '../api';
import {
  EmptyState,
  ErrorPanel,
  Field,
  LoadingPanel,
  PageHeader,
  linkClass,
  tableClass,
  tdClass,
  thClass,
} from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';
import { formatSpan, formatTime } from '../format';
import { isTerminal, runQuery } from '../queries';
import { useNow } from '../useNow';
import { RunActions } from './RunActions';
import { StepLogPanel } from './StepLogPanel';

export function RunDetailView({ runId, initial }: { runId: string; initial: RunStatus | null }) {
  const query = useQuery({ ...runQuery(runId), initialData: initial ?? undefined });
  const now = useNow();
  const { data: run, error, refetch } = query;

  if (!run) {
    if (error && isNotFound(error)) {
      return (
        <EmptyState title={`Run ${runId} not found`} testId="run-not-found">
          <Link href="/runs" className="underline">
            Back to all runs
          </Link>
        </EmptyState>
      );
    }
    if (error)
      return (
        <ErrorPanel title="Cannot load this run" message={errorText(error)} onRetry={() => void refetch()} />
      );
    return <LoadingPanel label="Waiting for the run to be recorded…" />;
  }

  const live = !isTerminal(run.status);
  const handlers = Object.entries(run.handlers).filter((e): e is [string, StepStatus] => e[1] !== undefined);
  const allSteps = [...run.steps, ...handlers.map(([, h]) => h)];

  return (
    <div className="flex flex-col gap-6" data-testid="run-detail">
      <PageHeader
        inStack
        title={
          <span className="flex flex-wrap items-center gap-3">
            <Link href={`/dags/${encodeURIComponent(run.dag_name)}`} className={linkClass}>
              {run.dag_name}
            </Link>
            <span className="font-mono text-base text-zinc-500 dark:text-zinc-400" data-testid="run-id">
              {run.run_id}
            </span>
            <StatusBadge status={run.status} testId="run-status" />
          </span>
        }
      >
        <RunActions run={run} />
      </PageHeader>
      {error && (
        <ErrorPanel
          title="Cannot refresh this run"
          message={errorText(error)}
          onRetry={() => void refetch()}
        />
      )}
      {run.error && (
        <p
          role="status"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {run.error}
        </p>
      )}
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
        <Field label="Trigger">{run.trigger_type}</Field>
        <Field label="Slot time">{formatTime(run.schedule_time)}</Field>
        <Field label="Attempt">{run.attempt}</Field>
        <Field label="Queue">{run.queue}</Field>
        <Field label="Created">{formatTime(run.created_at)}</Field>
        <Field label="Started">{formatTime(run.started_at)}</Field>
        <Field label="Finished">{formatTime(run.finished_at)}</Field>
        <Field label="Duration">{formatSpan(run.started_at, run.finished_at, now)}</Field>
        <Field label="Params">
          {run.params.length > 0 ? (
            <code className="break-all" data-testid="run-params">
              {run.params.join(' ')}
            </code>
          ) : (
            '—'
          )}
        </Field>
        <Field label="Host">{run.host ? `${run.host}${run.pid ? ` (pid ${run.pid})` : ''}` : '—'}</Field>
        {run.worker_id && <Field label="Worker">{run.worker_id}</Field>}
      </dl>
      {run.conditions.length > 0 && (
        <section aria-labelledby="conditions-heading">
          <h2 id="conditions-heading" className="mb-2 text-lg font-semibold">
            Why it waits
          </h2>
          <ul className="text-sm">
            {run.conditions.map((c) => (
              <li key={c.type}>
                <span className="font-mono">
                  {c.type}={c.status}
                </span>{' '}
                {c.reason}: {c.message}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="steps-heading">
        <h2 id="steps-heading" className="mb-2 text-lg font-semibold">
          Steps
        </h2>
        <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
          <table className={tableClass} data-testid="step-table">
            <thead className="bg-zinc-50 dark:bg-zinc-900">
              <tr>
                <th scope="col" className={thClass}>
                  Step
                </th>
                <th scope="col" className={thClass}>
                  Status
                </th>
                <th scope="col" className={thClass}>
                  Exit code
                </th>
                <th scope="col" className={thClass}>
                  Retries
                </th>
                <th scope="col" className={thClass}>
                  Started
                </th>
                <th scope="col" className={thClass}>
                  Duration
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
              {run.steps.map((s) => (
                <StepRow key={s.name} step={s} now={now} />
              ))}
              {handlers.map(([kind, h]) => (
                <StepRow key={`handler-${kind}`} step={h} now={now} label={`on ${kind}: ${h.name}`} />
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="logs-heading" className="flex flex-col gap-3">
        <h2 id="logs-heading" className="text-lg font-semibold">
          Logs
        </h2>
        {allSteps.map((s) => (
          <StepLogPanel key={s.name} runId={run.run_id} step={s} runLive={live} />
        ))}
      </section>
    </div>
  );
}

function StepRow({ step, now, label }: { step: StepStatus; now: number | null; label?: string }) {
  return (
    <tr data-testid={`step-row-${step.name}`}>
      <td className={tdClass}>
        <span className="font-medium">{label ?? step.name}</span>
        {step.error && <p className="mt-1 text-xs text-red-700 dark:text-red-300">{step.error}</p>}
      </td>
      <td className={tdClass}>
        <StatusBadge status={step.status} testId={`step-status-${step.name}`} />
      </td>
      <td className={`${tdClass} font-mono`}>{step.exit_code ?? '—'}</td>
      <td className={tdClass}>{step.retry_count}</td>
      <td className={`${tdClass} whitespace-nowrap`}>{formatTime(step.started_at)}</td>
      <td className={`${tdClass} whitespace-nowrap`}>{formatSpan(step.started_at, step.finished_at, now)}</td>
    </tr>
  );
}
