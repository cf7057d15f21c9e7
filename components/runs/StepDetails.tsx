// The selected step at a glance: its state, why it did not run, how often it was retried or repeated, its
// error, the child runs it started, and a foreach step's items.

import type { StepStatus } from '@/components/apiTypes';
import { countTexts, notRunText } from './stepNotes';
import { StatusBadge } from '../StatusBadge';
import { SubRunList } from './SubRunList';
import { ForeachItemList } from './ForeachItemList';

export function StepDetails({ step, label }: { step: StepStatus; label?: string }) {
  const reason = notRunText(step);
  const counts = countTexts(step);
  const headingId = `step-details-${step.name}`;
  return (
    <section
      aria-labelledby={headingId}
      data-testid="step-details"
      data-step={step.name}
      className="flex flex-col gap-2 rounded-lg border border-zinc-200 px-4 py-3 dark:border-zinc-800"
    >
      <h2 id={headingId} className="flex flex-wrap items-center gap-2 text-base font-semibold">
        Step {label ?? step.name}
        <StatusBadge status={step.status} testId="step-details-status" />
      </h2>
      {reason && (
        <p className="text-sm" data-testid="step-details-reason">
          {reason}
        </p>
      )}
      {counts.length > 0 && (
        <p className="text-sm" data-testid="step-details-counts">
          {counts.join(', ')}
        </p>
      )}
      {step.error && !reason?.endsWith(step.error) && (
        <p className="text-sm break-words text-red-700 dark:text-red-300">{step.error}</p>
      )}
      {step.sub_runs && step.sub_runs.length > 0 && (
        <SubRunList key={step.name} stepName={step.name} subRuns={step.sub_runs} />
      )}
      {step.foreach_items && step.foreach_items.length > 0 && (
        <ForeachItemList key={step.name} stepName={step.name} items={step.foreach_items} />
      )}
    </section>
  );
}
