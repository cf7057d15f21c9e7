// The overview's workers card: how many workers there are, in words, and whether any needs a look.

import type { Overview } from '../apiTypes';

export interface WorkerCountCard {
  total: number;
  label: string;
  detail: string;
  /** A late or lost worker: the detail is shown as a warning. */
  warn: boolean;
}

export function workerCountCard(w: Overview['counts']['workers']): WorkerCountCard {
  const total = w.healthy + w.late + w.lost;
  return {
    total,
    label: total === 1 ? 'worker' : 'workers',
    detail: `${w.healthy} healthy · ${w.late} late · ${w.lost} lost`,
    warn: w.late + w.lost > 0,
  };
}
