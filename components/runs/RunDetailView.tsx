'use client';
// One run: state, how and for which slot it was triggered, where it runs, why it waits, the parent run that
// started it, its steps (in the order the DAG runs them) as a graph and a table, and the selected step's
// details, child runs and live log; refreshes every second until it ends (or until a retry shows up).

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { RetryResult, RunStatus } from '@/components/apiTypes';
import { isNotFound } from '../api';
import { EmptyState, ErrorPanel, LoadingPanel, PageHeader, linkClass } from '../Panels';
import { StatusBadge } from '../StatusBadge';
import { errorText } from '../errorText';
import { nodeDetail } from './stepNotes';
import { formatSpan } from '../format';
import { StepGraph } from '../graph/StepGraph';
import { RUN_REFRESH_MS, isTerminal, runQuery } from '../queries';
import { useNow } from '../useNow';
import { HumanTaskPanel } from './HumanTaskPanel';
import { ApprovalPanel } from './ApprovalPanel';
import { RunActions } from './RunActions';
import { ParentRunLink } from './ParentRunLink';
import { RunFacts } from './RunFacts';
import { RunInsights } from './RunInsights';
import { StepDetails } from './StepDetails';
import { StepLogTail } from './StepLogTail';
import { StepRetry } from './StepRetry';
import { StepTable } from './StepTable';
import { RunLogConsole } from './logs/RunLogConsole';
import { runHref } from './runLinks';
import { rowToShow, runRows } from './runSteps';

export function RunDetailView({
  runId,
  initial,
  initialStep = null,
}: {
  runId: string;
  initial: RunStatus | null;
  /** The step to select first (`?step=`, e.g. from a child run's link back to its parent step). */
  initialStep?: string | null;
}) {
  // The retry asked for, as this run's next attempt; `root`: the root run a step retry of a sub-run went through.
  const [retried, setRetried] = useState<(RetryResult & { root?: string }) | null>(null);
  const [picked, setPicked] = useState<string | null>(initialStep);
  const query = useQuery({
    ...runQuery(runId),
    initialData: initial ?? undefined,
    // After a retry the record still shows the old, finished attempt for a moment: keep asking.
    refetchInterval: (q) => {
      const data = q.state.data;
      if (retried && (data?.attempt ?? 0) < retried.attempt) return RUN_REFRESH_MS;
      return isTerminal(data?.status) ? false : RUN_REFRESH_MS;
    },
  });
  const now = useNow();
  const { data: run, error, refetch } = query;

  if (!run) {
    if (error && isNotFound(error)) {
      return (
        <EmptyState title={`Run ${runId} not found`} testId="run-not-found">
          No run with this ID is recorded.{' '}
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
  const awaitingAttempt = retried !== null && run.attempt < retried.attempt;
  const runView = runRows(run);
  const { steps, rows } = runView;
  const selectedRow = rowToShow(runView, picked);
  const selectedStep = selectedRow?.step ?? null;
  // A step of a sub-run is retried through its root run; this run's own next attempt follows.
  const onStepRetried = (r: RetryResult) =>
    setRetried(
      r.run_id === run.run_id ? r : { ...r, run_id: run.run_id, attempt: run.attempt + 1, root: r.run_id },
    );

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
        <RunActions run={run} awaitingAttempt={awaitingAttempt} onRetried={setRetried} />
      </PageHeader>
      {error && (
        <ErrorPanel
          title="Cannot refresh this run"
          message={errorText(error)}
          onRetry={() => void refetch()}
        />
      )}
      {retried && (
        <p
          role="status"
          data-testid="retry-outcome"
          className="rounded-md bg-blue-50 px-3 py-2 text-sm text-blue-900 dark:bg-blue-950 dark:text-blue-100"
        >
          {awaitingAttempt
            ? `Attempt ${retried.attempt} requested (${retried.outcome})${retried.step ? ` to run step ${retried.step} again` : ''}; waiting for it to be recorded…`
            : `Showing attempt ${run.attempt}, started by the retry (${retried.outcome}).`}
          {retried.root && (
            <>
              {' '}
              It goes through a new attempt of run{' '}
              <Link href={runHref(retried.root)} className={linkClass}>
                {retried.root}
              </Link>
              .
            </>
          )}
        </p>
      )}
      {run.error && (
        <div
          role="status"
          data-testid="run-error"
          className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm break-words whitespace-pre-wrap text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
        >
          {run.error}
        </div>
      )}
      {run.parent && <ParentRunLink parent={run.parent} />}
      <HumanTaskPanel run={run} />
      <ApprovalPanel run={run} />
      <RunFacts run={run} now={now} />
      <section aria-labelledby="graph-heading" className="flex flex-col gap-3">
        <h2 id="graph-heading" className="text-lg font-semibold">
          Steps
        </h2>
        <StepGraph
          label={`Steps of run ${run.run_id}`}
          steps={steps.map((s) => ({
            name: s.name,
            status: s.status,
            depends: s.depends,
            detail: nodeDetail(s, s.started_at ? formatSpan(s.started_at, s.finished_at, now) : undefined),
          }))}
          selected={selectedStep?.name ?? null}
          onSelect={setPicked}
        />
      </section>
      {selectedRow && <StepDetails step={selectedRow.step} label={selectedRow.label} />}
      {selectedRow && !selectedRow.label && !live && !awaitingAttempt && (
        <StepRetry
          // Not the step's name alone: the log tail beside it is keyed by that, and sibling keys must differ.
          key={`retry:${selectedRow.step.name}`}
          run={run}
          step={selectedRow.step}
          onRetried={onStepRetried}
        />
      )}
      {selectedStep && (
        <StepLogTail
          key={selectedStep.name}
          runId={run.run_id}
          attempt={run.attempt}
          step={selectedStep}
          runLive={live}
        />
      )}
      <StepTable rows={rows} now={now} selected={selectedStep?.name ?? null} onSelect={setPicked} />
      <RunInsights run={run} rows={rows} now={now} />
      <RunLogConsole run={run} />
    </div>
  );
}
