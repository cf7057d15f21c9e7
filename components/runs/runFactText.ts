// The words of a run's facts on the run page: who started it, where it runs and which workers may take it.

import type { RunStatus } from '@/components/apiTypes';

const TRIGGER_TEXT: Record<RunStatus['trigger_type'], string> = {
  scheduler: 'the scheduler, for its slot',
  manual: 'an operator',
  catchup: 'catch-up of a missed slot',
  retry: 'a retry',
  subdag: 'a parent run',
  queue: 'its queue',
};

/** `started by the scheduler, for its slot (scheduler sched-a)`; an unknown trigger is named as it is. */
export function startedByText(run: Pick<RunStatus, 'trigger_type' | 'dispatched_by'>): string {
  const by = TRIGGER_TEXT[run.trigger_type] ?? run.trigger_type;
  return `started by ${by}${run.dispatched_by ? ` (scheduler ${run.dispatched_by})` : ''}`;
}

/** The selector's labels as `zone: b, gpu: true`; '' for one that takes any worker; null for a local run. */
export function selectorLabels(selector: RunStatus['worker_selector']): string | null {
  if (!selector) return null;
  return Object.entries(selector)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}

/** `{zone: b}`, `any worker`, or an em dash for a run that stays local. */
export function selectorText(selector: RunStatus['worker_selector']): string {
  const labels = selectorLabels(selector);
  if (labels === null) return '—';
  return labels === '' ? 'any worker' : `{${labels}}`;
}

/** The worker that has it; before a claim, `not claimed yet` for a run for the workers, else `local`. */
export function workerText(run: Pick<RunStatus, 'worker_id' | 'worker_selector'>): string {
  return run.worker_id ?? (run.worker_selector ? 'not claimed yet' : 'local');
}

/** `host-a (pid 42)`, the host alone before a process runs it, or an em dash. */
export function hostText(run: Pick<RunStatus, 'host' | 'pid'>): string {
  if (!run.host) return '—';
  return run.pid ? `${run.host} (pid ${run.pid})` : run.host;
}
