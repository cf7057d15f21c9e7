// What a run is: why it ran (trigger and slot, first and large), where (worker, host), its times and params,
// its labels, whether reuse was disabled for it (a build DAG's), and, while it waits, the conditions that
// hold it.

import type { RunStatus } from '@/components/apiTypes';
import { Field } from '../Panels';
import { formatRelative, formatSpan, formatTime } from '../format';
import { ConditionList } from './ConditionList';
import { RunLabels } from './RunLabels';
import { hostText, selectorText, startedByText, workerText } from './runFactText';

export function RunFacts({ run, now }: { run: RunStatus; now: number | null }) {
  return (
    <>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div className="rounded-lg border border-zinc-200 px-4 py-3 dark:border-zinc-800">
          <p className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            Trigger
          </p>
          <p className="mt-1 text-xl font-semibold" data-testid="run-trigger">
            {run.trigger_type}
          </p>
          <p className="text-sm text-zinc-600 dark:text-zinc-300">{startedByText(run)}</p>
        </div>
        <div className="rounded-lg border border-zinc-200 px-4 py-3 dark:border-zinc-800">
          <p className="text-xs font-semibold tracking-wide text-zinc-500 uppercase dark:text-zinc-400">
            Slot time
          </p>
          <p className="mt-1 font-mono text-xl font-semibold" data-testid="run-slot">
            {formatTime(run.schedule_time)}
          </p>
          <p className="text-sm text-zinc-600 dark:text-zinc-300">
            {run.schedule_time ? formatRelative(run.schedule_time, now) : 'not a scheduled slot'}
          </p>
        </div>
      </div>
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 text-sm sm:grid-cols-4">
        <Field label="Attempt">{run.attempt}</Field>
        <Field label="Queue">{run.queue}</Field>
        <Field label="Worker">
          <span data-testid="run-worker">{workerText(run)}</span>
        </Field>
        <Field label="Host">{hostText(run)}</Field>
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
        <Field label="Worker selector">
          {run.worker_selector ? <code>{selectorText(run.worker_selector)}</code> : '—'}
        </Field>
        {run.queued_at && <Field label="Queued">{formatTime(run.queued_at)}</Field>}
        {run.labels && run.labels.length > 0 && (
          <Field label="Labels">
            <RunLabels
              labels={run.labels}
              name="Labels of this run"
              testId="run-labels"
              chipTestId="run-label"
            />
          </Field>
        )}
        {run.no_reuse && (
          <Field label="Reuse">
            <span data-testid="run-no-reuse">disabled for this run</span>
          </Field>
        )}
      </dl>
      {run.conditions.length > 0 && (
        <section
          aria-labelledby="conditions-heading"
          className="rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 dark:border-amber-800 dark:bg-amber-950/50"
          data-testid="run-conditions"
        >
          <h2 id="conditions-heading" className="mb-1 text-sm font-semibold">
            {run.status === 'queued' ? 'Why it waits' : 'Conditions'}
          </h2>
          <div className="text-sm">
            <ConditionList conditions={run.conditions} />
          </div>
        </section>
      )}
    </>
  );
}
