// The colours of step states in the run graph and its legend. Text always names the state too, so colour
// only reinforces it (and stays readable in dark mode).

import type { StepState } from '@/components/apiTypes';

export const STEP_STATES: readonly StepState[] = [
  'not_started',
  'running',
  'retrying',
  'waiting',
  'succeeded',
  'partially_succeeded',
  'failed',
  'skipped',
  'aborted',
  'rejected',
];

/** Border, background and text of a node in this state. */
export const STEP_NODE_STYLES: Record<StepState, string> = {
  not_started:
    'border-zinc-300 bg-white text-zinc-700 dark:border-zinc-600 dark:bg-zinc-900 dark:text-zinc-300 border-dashed',
  running:
    'border-blue-500 bg-blue-50 text-blue-900 dark:border-blue-400 dark:bg-blue-950 dark:text-blue-100',
  retrying:
    'border-amber-500 bg-amber-50 text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100',
  waiting:
    'border-violet-500 bg-violet-50 text-violet-900 dark:border-violet-400 dark:bg-violet-950 dark:text-violet-100',
  succeeded:
    'border-emerald-500 bg-emerald-50 text-emerald-900 dark:border-emerald-500 dark:bg-emerald-950 dark:text-emerald-100',
  partially_succeeded:
    'border-lime-600 bg-lime-50 text-lime-900 dark:border-lime-500 dark:bg-lime-950 dark:text-lime-100',
  failed: 'border-red-500 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100',
  skipped:
    'border-zinc-400 bg-zinc-100 text-zinc-600 dark:border-zinc-500 dark:bg-zinc-800 dark:text-zinc-300',
  aborted:
    'border-orange-500 bg-orange-50 text-orange-900 dark:border-orange-400 dark:bg-orange-950 dark:text-orange-100',
  rejected:
    'border-rose-700 bg-rose-50 text-rose-900 dark:border-rose-500 dark:bg-rose-950 dark:text-rose-100',
};

/** The small swatch of the legend. */
export const STEP_SWATCH_STYLES: Record<StepState, string> = {
  not_started: 'border-zinc-400 border-dashed bg-white dark:bg-zinc-900',
  running: 'border-blue-500 bg-blue-200 dark:bg-blue-800',
  retrying: 'border-amber-500 bg-amber-200 dark:bg-amber-800',
  waiting: 'border-violet-500 bg-violet-200 dark:bg-violet-800',
  succeeded: 'border-emerald-500 bg-emerald-200 dark:bg-emerald-800',
  partially_succeeded: 'border-lime-600 bg-lime-200 dark:bg-lime-800',
  failed: 'border-red-500 bg-red-200 dark:bg-red-800',
  skipped: 'border-zinc-400 bg-zinc-200 dark:bg-zinc-700',
  aborted: 'border-orange-500 bg-orange-200 dark:bg-orange-800',
  rejected: 'border-rose-700 bg-rose-200 dark:bg-rose-800',
};

export function stepStateLabel(state: StepState): string {
  return state.replaceAll('_', ' ');
}
