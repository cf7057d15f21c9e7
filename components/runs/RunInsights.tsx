'use client';
// What a run's page adds below its steps: the live elapsed time of a running run, the Gantt timeline of its
// steps, the outputs it captured and the artifacts it left. Opened with `?step=` (from the history grid or a child run's link back),
// it also brings the selected step's details into view.

import { useEffect } from 'react';
import type { RunStatus } from '@/components/apiTypes';
import { formatDurationMs } from '../format';
import { isTerminal } from '../queries';
import { RunArtifacts } from './RunArtifacts';
import { RunOutputs } from './RunOutputs';
import { RunTimeline } from './RunTimeline';
import type { StepRowData } from './runSteps';

export function RunInsights({
  run,
  rows,
  now,
}: {
  run: RunStatus;
  rows: readonly StepRowData[];
  now: number | null;
}) {
  useScrollToPickedStep();
  const started = run.started_at ? Date.parse(run.started_at) : null;
  const running = !isTerminal(run.status) && started !== null;
  return (
    <>
      {running && now !== null && (
        <p
          role="timer"
          aria-live="off"
          data-testid="run-elapsed"
          className="text-sm font-medium text-blue-800 tabular-nums dark:text-blue-200"
        >
          Running for {formatDurationMs(Math.max(0, now - started))}
        </p>
      )}
      <RunTimeline run={run} rows={rows} now={now} />
      <RunOutputs rows={rows} />
      <RunArtifacts run={run} />
    </>
  );
}

/** With `?step=` in the address, scrolls the selected step's details into view once, after the first paint. */
function useScrollToPickedStep() {
  useEffect(() => {
    const step = new URLSearchParams(window.location.search).get('step');
    if (!step) return;
    const details = document.querySelector<HTMLElement>('[data-testid="step-details"]');
    if (details?.dataset.step === step) details.scrollIntoView({ block: 'center' });
  }, []);
}
