// The database's fence, seen from the database (storage.backend: postgres): every run attempt a scheduler
// inserted must have been inserted while that scheduler held the lock, by the database's own clock (the
// soak's insert witness and the failover history share it); the writes the database refused, as the
// schedulers logged them; and the runs the dead-run sweep recorded as never started although their step ran.

import type { RunStatus } from '../../../server/core/types';
import type { InsertedAttempt } from '../records';
import { pidOfInstance, type Acquisition } from './leases';
import type { Execution, LogLine } from './soakData';

export const REFUSED_WRITE = 'The database refused a write: this scheduler no longer holds the lock';
const NEVER_STARTED = /^run was never started\b/;

export interface FenceFigures {
  /** Scheduler-made attempts the database inserted. */
  checked: number;
  /** Attempts inserted when another instance held the latest epoch: a write accepted from a deposed one. */
  deposedInserts: Array<{
    runId: string;
    attempt: number;
    by: string;
    atMs: number;
    holderPid: number | null;
  }>;
  /** Refused writes as the schedulers logged them: attempts of deposed instances, stopped by the fence. */
  refused: number;
  /** Of those, how many the lock's latest acquirer of the time logged (its own fence refused it). */
  refusedFromHolder: number;
  /** Runs failed "never started" whose step began all the same (the marker says so): a wrong verdict. */
  misrecorded: string[];
}

export function checkFence(
  inserted: readonly InsertedAttempt[],
  acqs: readonly Acquisition[],
  logs: readonly LogLine[],
  runs: readonly RunStatus[],
  executions: readonly Execution[],
): FenceFigures {
  const byTime = [...acqs].sort((a, b) => a.timeMs - b.timeMs);
  const holderAt = (ms: number) => {
    let holder: Acquisition | null = null;
    for (const a of byTime) if (a.timeMs <= ms) holder = a;
    return holder;
  };
  const deposedInserts: FenceFigures['deposedInserts'] = [];
  for (const i of inserted) {
    const holder = holderAt(i.insertedAtMs);
    if (holder?.pid !== pidOfInstance(i.dispatchedBy))
      deposedInserts.push({
        runId: i.runId,
        attempt: i.attempt,
        by: i.dispatchedBy,
        atMs: i.insertedAtMs,
        holderPid: holder?.pid ?? null,
      });
  }
  const refusals = logs.filter((l) => l.msg === REFUSED_WRITE);
  const began = new Set(executions.filter((e) => e.phase === 'start').map((e) => e.runId));
  return {
    checked: inserted.length,
    deposedInserts,
    refused: refusals.length,
    refusedFromHolder: refusals.filter((l) => holderAt(l.timeMs)?.pid === l.pid).length,
    misrecorded: runs
      .filter((r) => r.status === 'failed' && NEVER_STARTED.test(r.error ?? '') && began.has(r.run_id))
      .map((r) => `${r.run_id}: ${r.error}`),
  };
}
