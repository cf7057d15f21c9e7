// The steps of a run (and its handlers) as a table; a step's name selects it for the log view.

import type { StepStatus } from '@/components/apiTypes';
import { StatusBadge } from '../StatusBadge';
import { tableClass, TableHead, tdClass } from '../Panels';
import { formatSpan, formatTime } from '../format';

export interface StepRowData {
  step: StepStatus;
  /** Shown instead of the name, e.g. `on failure: notify`. */
  label?: string;
}

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
        <TableHead columns={['Step', 'Status', 'Exit code', 'Retries', 'Started', 'Duration']} />
        <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {rows.map(({ step, label }) => (
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
                  aria-label={`Show the log of ${label ?? step.name}`}
                  className="text-left font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300"
                >
                  {label ?? step.name}
                </button>
                {step.error && (
                  <p className="mt-1 text-xs break-words text-red-700 dark:text-red-300">{step.error}</p>
                )}
              </td>
              <td className={tdClass}>
                <StatusBadge status={step.status} testId={`step-status-${step.name}`} />
              </td>
              <td className={`${tdClass} font-mono`}>{step.exit_code ?? '—'}</td>
              <td className={tdClass}>{step.retry_count}</td>
              <td className={`${tdClass} whitespace-nowrap`}>{formatTime(step.started_at)}</td>
              <td className={`${tdClass} whitespace-nowrap`}>
                {formatSpan(step.started_at, step.finished_at, now)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
