// The steps of a run (and its handlers) as a table, in the order the DAG runs them; a step's name selects
// it for the details and log views. Beside each step: why it did not run, its retry and repeat counts, its
// child runs (linked directly when there is one), and a build DAG step's reuse decision beside its state.

import Link from 'next/link';
import type { StepStatus } from '@/components/apiTypes';
import { countTexts, foreachSummaryText, notRunText, subRunSummaryText } from './stepNotes';
import { StatusBadge } from '../StatusBadge';
import { BuildDecisionBadge, ProducerRunLink } from './BuildDecision';
import { linkClass, tableClass, TableHead, tdClass } from '../Panels';
import { formatSpan, formatTime } from '../format';
import { runHref } from './runLinks';
import type { StepRowData } from './runSteps';

export function StepTable({
  rows,
  now,
  selected,
  onSelect,
}: {
  rows: StepRowData[];
  now: number | null;
  selected: string | null;
  onSelect: (name: string) => void;
}) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className={tableClass} data-testid="step-table">
        <TableHead columns={['Step', 'Status', 'Exit code', 'Retries / repeats', 'Started', 'Duration']} />
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {rows.map(({ step, label }) => {
            const reason = notRunText(step);
            const counts = countTexts(step);
            return (
              <tr
                key={label ?? step.name}
                data-testid={`step-row-${step.name}`}
                className={selected === step.name ? 'bg-blue-50 dark:bg-blue-950/40' : undefined}
              >
                <td className={tdClass}>
                  <button
                    type="button"
                    onClick={() => onSelect(step.name)}
                    aria-pressed={selected === step.name}
                    aria-label={`Show the details and log of ${label ?? step.name}`}
                    className="text-left font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300"
                  >
                    {label ?? step.name}
                  </button>
                  {reason && (
                    <p
                      className="mt-1 text-xs break-words text-zinc-700 dark:text-zinc-300"
                      data-testid={`step-reason-${step.name}`}
                    >
                      {reason}
                    </p>
                  )}
                  {step.error && !reason?.endsWith(step.error) && (
                    <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">{step.error}</p>
                  )}
                  <ChildRuns step={step} onSelect={onSelect} />
                  {step.build?.decision === 'reuse' && step.build.producer_run && (
                    <p className="mt-1 text-xs">
                      <ProducerRunLink build={step.build} testId={`step-producer-${step.name}`} />
                    </p>
                  )}
                </td>
                <td className={tdClass}>
                  <span className="flex flex-wrap items-center gap-1">
                    <StatusBadge status={step.status} testId={`step-status-${step.name}`} />
                    {step.build && (
                      <BuildDecisionBadge build={step.build} testId={`step-build-${step.name}`} />
                    )}
                  </span>
                </td>
                <td className={`${tdClass} font-mono`}>{step.exit_code ?? '—'}</td>
                <td className={`${tdClass} whitespace-nowrap`} data-testid={`step-counts-${step.name}`}>
                  {counts.length > 0 ? counts.join(', ') : '—'}
                </td>
                <td className={`${tdClass} whitespace-nowrap`}>{formatTime(step.started_at)}</td>
                <td className={`${tdClass} whitespace-nowrap`}>
                  {formatSpan(step.started_at, step.finished_at, now)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** One child: a link to it. Several: their counts, and a button that opens the list in the step details. */
function ChildRuns({ step, onSelect }: { step: StepStatus; onSelect: (name: string) => void }) {
  const subRuns = step.sub_runs ?? [];
  const items = step.foreach_items ?? [];
  if (items.length > 0) {
    return (
      <p className="mt-1 text-xs" data-testid={`step-items-${step.name}`}>
        {foreachSummaryText(items)}{' '}
        <button
          type="button"
          onClick={() => onSelect(step.name)}
          aria-label={`List the items of ${step.name}`}
          className="font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300"
        >
          list them
        </button>
      </p>
    );
  }
  if (subRuns.length === 0) return null;
  const testId = `step-children-${step.name}`;
  if (subRuns.length === 1) {
    const child = subRuns[0];
    return (
      <p className="mt-1 text-xs" data-testid={testId}>
        child run{' '}
        <Link href={runHref(child.run_id)} className={linkClass}>
          {child.dag_name} <span className="font-mono">{child.run_id}</span>
        </Link>{' '}
        <StatusBadge status={child.status ?? 'not started'} />
      </p>
    );
  }
  return (
    <p className="mt-1 text-xs" data-testid={testId}>
      {subRunSummaryText(subRuns)}{' '}
      <button
        type="button"
        onClick={() => onSelect(step.name)}
        aria-label={`List the child runs of ${step.name}`}
        className="font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300"
      >
        list them
      </button>
    </p>
  );
}
