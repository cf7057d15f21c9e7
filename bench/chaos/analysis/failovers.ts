// Failovers of the soak: every acquisition after the first, how it happened (a takeover of a stale lock or of a
// released one), and its gaps: the wall-clock gap between the previous holder's last renewal and the
// acquisition (as the event records it), and the time from the fault the driver injected to the acquisition.

import { percentile } from '../../lib';
import type { CycleRecord } from '../driver';
import type { Acquisition, AcquiredHow } from './leases';

export interface GapStats {
  count: number;
  p50Ms: number;
  maxMs: number;
}

export interface FailoverFigures {
  byHow: Map<AcquiredHow, { renewalGap: GapStats; faultToAcquired: GapStats }>;
}

function stats(values: number[]): GapStats {
  return {
    count: values.length,
    p50Ms: percentile(values, 50),
    maxMs: values.length ? Math.max(...values) : NaN,
  };
}

export function analyseFailovers(
  acqs: readonly Acquisition[],
  cycles: readonly CycleRecord[],
): FailoverFigures {
  const byHow = new Map<AcquiredHow, { renewalGap: GapStats; faultToAcquired: GapStats }>();
  const later = acqs.slice(1);
  for (const how of ['stale', 'released'] as const) {
    const these = later.filter((a) => a.how === how);
    const faultGaps: number[] = [];
    for (const a of these) {
      const fault = [...cycles].reverse().find((c) => c.atMs <= a.timeMs && c.victimPid !== undefined);
      if (fault && fault.victimPid === acqs.find((x) => x.epoch === a.epoch - 1)?.pid)
        faultGaps.push(a.timeMs - fault.atMs);
    }
    byHow.set(how, {
      renewalGap: stats(these.map((a) => a.gapMs).filter((g): g is number => g !== null)),
      faultToAcquired: stats(faultGaps),
    });
  }
  return { byHow };
}
