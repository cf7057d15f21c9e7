// What the overview says while no scheduler holds the lock: whether a standby will take over, and by when.

import type { SchedulerInstanceView } from '../apiTypes';

/** Instances that can still take the lock: standbys and those starting up. */
export function standbyCount(instances: readonly Pick<SchedulerInstanceView, 'role'>[]): number {
  return instances.filter((i) => i.role === 'standby' || i.role === 'starting').length;
}

/**
 * `The standby takes over at most 20s (T + 2R) after the last renewal.`, or with several standbys `One of the
 * 3 standbys takes …`; null when there is none (the page then says how to start one).
 */
export function takeoverText(standbys: number, takeoverBound: string): string | null {
  if (standbys <= 0) return null;
  const who = standbys === 1 ? 'The standby takes' : `One of the ${standbys} standbys takes`;
  return `${who} over at most ${takeoverBound} (T + 2R) after the last renewal.`;
}
