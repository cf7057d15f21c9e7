// The cause of a failover in the words an operator reads on the overview.

import type { FailoverView } from '@/components/apiTypes';
import type { Tone } from '../tone';

const CAUSE_TEXT: Record<FailoverView['cause'], string> = {
  released: 'clean handover (released)',
  stale: 'taken over from a stale holder',
  lock_lost: 'lock lost',
  initial: 'first start',
};

/** The cause in words; a cause this console does not know yet is shown as the server wrote it. */
export function failoverCauseText(cause: string): string {
  return Object.prototype.hasOwnProperty.call(CAUSE_TEXT, cause)
    ? CAUSE_TEXT[cause as FailoverView['cause']]
    : cause;
}

/** A takeover from a holder that stopped or lost its lock is worth a second look; the rest are routine. */
export function failoverCauseTone(cause: string): Tone {
  if (cause === 'stale' || cause === 'lock_lost') return 'warn';
  if (cause === 'released' || cause === 'initial') return 'info';
  return 'neutral';
}
