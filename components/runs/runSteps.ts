// Which rows the run page lists and which one it shows first: the steps in the order the DAG runs them, then
// the handlers in the order they run; the step the operator picked, else the one worth looking at first.

import type { RunStatus, StepStatus } from '@/components/apiTypes';
import { orderStepsAsRun } from '../graph/stepOrder';

/** One row of the step table: a step, or a handler with the label that says which one it is. */
export interface StepRowData {
  step: StepStatus;
  /** Shown instead of the name, e.g. `on failure: notify`. */
  label?: string;
}

/** The run's steps as they ran and its handler rows after them. */
export interface RunRows {
  steps: StepStatus[];
  rows: StepRowData[];
}

export function runRows(run: Pick<RunStatus, 'steps' | 'handlers'>): RunRows {
  const steps = orderStepsAsRun(run.steps);
  return { steps, rows: [...steps.map((step) => ({ step })), ...handlerRows(run.handlers)] };
}

/** The step worth looking at first: the one running, else the one that failed, else the last that ran. */
export function defaultStep(steps: readonly StepStatus[]): StepStatus | undefined {
  return (
    steps.find((s) => s.status === 'running' || s.status === 'retrying') ??
    steps.find((s) => s.status === 'failed') ??
    steps.findLast((s) => s.status !== 'not_started')
  );
}

/** The row to show: the one named `picked` (a step or a handler), else the default step's, else the first. */
export function rowToShow({ steps, rows }: RunRows, picked: string | null): StepRowData | null {
  const first = defaultStep(steps);
  return rows.find((r) => r.step.name === picked) ?? rows.find((r) => r.step === first) ?? rows[0] ?? null;
}

const HANDLER_ORDER = ['init', 'success', 'failure', 'abort', 'exit'];

/**
 * The handler steps, in the order they run. A handler named after its kind (`onSuccess`) shows as such;
 * another name says which handler it is (`on failure: notify`).
 */
export function handlerRows(handlers: RunStatus['handlers']): StepRowData[] {
  const rank = (kind: string) => {
    const i = HANDLER_ORDER.indexOf(kind);
    return i === -1 ? HANDLER_ORDER.length : i;
  };
  return Object.entries(handlers as Record<string, StepStatus | undefined>)
    .sort(([a], [b]) => rank(a) - rank(b))
    .flatMap(([kind, h]) => {
      if (!h) return [];
      const own = `on${kind.charAt(0).toUpperCase()}${kind.slice(1)}`;
      return [{ step: h, label: h.name === own ? own : `on ${kind}: ${h.name}` }];
    });
}
