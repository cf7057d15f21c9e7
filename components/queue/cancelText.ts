// What the queue page says about a cancel: while it runs, and per run once the server has answered.

import type { CancelResult } from '@/components/apiTypes';

const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;

export function cancellingText(count: number): string {
  return `Cancelling ${runs(count)}…`;
}

/** The confirmation's title for the runs about to be cancelled. */
export function cancelQuestion(count: number): string {
  return count === 1 ? 'Cancel this run?' : `Cancel ${count} runs?`;
}

/** The server's answer in one line, and the runs it refused (each shown with its reason). */
export function cancelSummary(results: CancelResult['results']): {
  text: string;
  failed: CancelResult['results'];
} {
  const done = results.filter((r) => r.ok).length;
  const failed = results.filter((r) => !r.ok);
  const head = done > 0 ? `Cancelled ${runs(done)}.` : 'No run was cancelled.';
  return { text: failed.length > 0 ? `${head} ${failed.length} could not be cancelled:` : head, failed };
}
