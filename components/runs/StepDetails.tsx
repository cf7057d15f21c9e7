// The selected step at a glance: its state (and a build DAG step's reuse decision beside it), why it did not
// run, how often it was retried or repeated, its error, the child runs it started, a foreach step's items, and
// why a build step was reused or executed, with the run that produced a reused output.

import type { StepStatus } from '@/components/apiTypes';
import { countTexts, notRunText } from './stepNotes';
import { StatusBadge } from '../StatusBadge';
import { Field } from '../Panels';
import { BuildDecisionBadge, ProducerRunLink } from './BuildDecision';
import { buildDecisionText, type StepBuildRef } from './buildNotes';
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
        {step.build && <BuildDecisionBadge build={step.build} testId="step-details-build-decision" />}
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
      {step.build && <BuildFacts build={step.build} />}
      {step.sub_runs && step.sub_runs.length > 0 && (
        <SubRunList key={step.name} stepName={step.name} subRuns={step.sub_runs} />
      )}
      {step.foreach_items && step.foreach_items.length > 0 && (
        <ForeachItemList key={step.name} stepName={step.name} items={step.foreach_items} />
      )}
    </section>
  );
}

/** Why a build step was reused or executed, which run produced a reused output, and the manifest's facts. */
function BuildFacts({ build }: { build: StepBuildRef }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2" data-testid="step-details-build">
      <Field label="Reuse decision">
        <span data-testid="step-details-build-reason">
          {buildDecisionText(build)}
          {build.decision === 'reuse' ? ' (nothing ran)' : ''}
        </span>
      </Field>
      {build.producer_run && (
        <Field label="Produced by">
          <ProducerRunLink build={build} testId="step-details-producer" />
        </Field>
      )}
      {build.phase && <Field label="Build phase reached">{build.phase}</Field>}
      {build.materialization_key && (
        <Field label="Materialization key">
          <code className="break-all">{build.materialization_key}</code>
        </Field>
      )}
      {build.fingerprint && (
        <Field label="Fingerprint">
          <code className="break-all" data-testid="step-details-fingerprint">
            {build.fingerprint}
          </code>
        </Field>
      )}
    </dl>
  );
}
