// The outputs a run captured, as rows of the run page's outputs table: each step's `output:` variable and
// its declared `outputs:`, in the order the steps ran; and how a long value is cut for the table.

import type { StepStatus } from '@/components/apiTypes';
import type { StepRowData } from './runSteps';

export interface OutputRow {
  step: string;
  /** The step's row label (a handler's `on exit: notify`). */
  stepLabel: string;
  name: string;
  value: string;
  /** `output` for the step's `output:` variable, `outputs` for a declared output. */
  kind: 'output' | 'outputs';
}

/** Values longer than this are cut in the table and shown whole on demand. */
export const OUTPUT_PREVIEW_CHARS = 200;

export function outputRows(rows: readonly StepRowData[]): OutputRow[] {
  return rows.flatMap(({ step, label }) => [
    ...entries(step, 'output', label),
    ...entries(step, 'outputs', label),
  ]);
}

function entries(step: StepStatus, kind: OutputRow['kind'], label: string | undefined): OutputRow[] {
  const values = step[kind];
  if (!values) return [];
  return Object.entries(values).map(([name, value]) => ({
    step: step.name,
    stepLabel: label ?? step.name,
    name,
    value,
    kind,
  }));
}

/** The first `max` characters (or the first line, if shorter) and whether anything was left out. */
export function previewValue(value: string, max = OUTPUT_PREVIEW_CHARS): { text: string; cut: boolean } {
  const firstLine = value.indexOf('\n');
  const end = Math.min(max, firstLine === -1 ? value.length : firstLine);
  return end < value.length ? { text: value.slice(0, end), cut: true } : { text: value, cut: false };
}
