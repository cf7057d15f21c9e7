// The second lease check, on what the active schedulers did rather than on the records they created: every act
// of an active (a run started, queued, handed over, dropped or reaped) must come from the latest lock acquirer
// at the time its log line was written. Same clock as the record check (one host, one wall clock).

import type { Acquisition } from './leases';
import type { LogLine } from './soakData';

/** What the active scheduler logs right after it dispatched or changed a run (each after its fencing check). */
const ACTS_OF_THE_ACTIVE = new Set([
  'Started a scheduled run',
  'Queued a scheduled run for the workers',
  'Started a queued run',
  'Handed a queued run to the workers',
  'Queued a catch-up run for a missed slot',
  'Adopted a slot the failed instance planned but did not start',
  'Completed the run record of a slot whose creator died midway, and queued it',
  'Dropped a queued catch-up run',
  'Marked a run failed: its process died',
]);

/** How long after a SIGCONT a log line may carry a time later than the act it reports. */
const RESUME_SLACK_MS = 200;

export interface ActCheck {
  checked: number;
  /** Acts logged by an instance that was not the latest acquirer at that time. */
  violations: Array<{ pid: number; msg: string; runId: string; timeMs: number; holderPid: number | null }>;
  /** Such acts logged just after the instance was resumed from SIGSTOP (the act itself came before it). */
  excusedByPause: number;
}

/**
 * Every act of an active scheduler (a run started, queued, handed over, dropped or reaped), by its log line: the
 * line is written right after the act, so its time bounds the act from above. A process paused by SIGSTOP
 * between the act and the line stamps it late; such lines are counted apart.
 */
export function checkActs(
  logs: readonly LogLine[],
  acqs: readonly Acquisition[],
  pauses: ReadonlyArray<{ pid: number; resumedAtMs: number }>,
): ActCheck {
  const byTime = [...acqs].sort((a, b) => a.timeMs - b.timeMs);
  const out: ActCheck = { checked: 0, violations: [], excusedByPause: 0 };
  for (const l of logs) {
    if (!ACTS_OF_THE_ACTIVE.has(l.msg)) continue;
    out.checked++;
    let holder: Acquisition | null = null;
    for (const a of byTime) if (a.timeMs <= l.timeMs) holder = a;
    if (holder?.pid === l.pid) continue;
    const paused = pauses.some(
      (p) => p.pid === l.pid && l.timeMs >= p.resumedAtMs && l.timeMs <= p.resumedAtMs + RESUME_SLACK_MS,
    );
    if (paused) out.excusedByPause++;
    else
      out.violations.push({
        pid: l.pid,
        msg: l.msg,
        runId: String(l.fields.run_id ?? ''),
        timeMs: l.timeMs,
        holderPid: holder?.pid ?? null,
      });
  }
  return out;
}
