// A build DAG step's reuse decision (`type: build`), shown beside its state and never instead of it: a badge
// (`reused`, `executed`, ...) whose tooltip says why, and the link to the run that produced a reused output.

import Link from 'next/link';
import { linkClass } from '../Panels';
import { TONE_BADGE } from '../StatusBadge';
import { buildDecisionLabel, buildDecisionTone, buildTitle, type StepBuildRef } from './buildNotes';
import { runHref } from './runLinks';

/** `reused`, `executed`, `always run`, `deferred` or `no decision`, with the reason in its title. */
export function BuildDecisionBadge({ build, testId }: { build: StepBuildRef; testId?: string }) {
  return (
    <span
      data-testid={testId}
      data-decision={build.decision}
      title={buildTitle(build)}
      className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${
        TONE_BADGE[buildDecisionTone(build.decision)]
      }`}
    >
      {buildDecisionLabel(build.decision)}
    </span>
  );
}

/** `output of run make r1, attempt 1` linked to that run's page; nothing when no producer is recorded. */
export function ProducerRunLink({ build, testId }: { build: StepBuildRef; testId?: string }) {
  const run = build.producer_run;
  if (!run) return null;
  return (
    <span data-testid={testId}>
      output of run{' '}
      <Link href={runHref(run.run_id)} className={linkClass}>
        {run.dag_name} <span className="font-mono">{run.run_id}</span>
      </Link>
      {build.producer_attempt ? `, attempt ${build.producer_attempt}` : ''}
    </span>
  );
}
