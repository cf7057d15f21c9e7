// Slots due over the soak window, how many ran (by the steps' own markers), how many ran more than once, and
// why each of the others did not run: a reason the design allows, or none.
//
// Allowed by design (counted apart, each with its evidence):
// - overlap: the scheduler logged that it skipped the slot because a previous run of the DAG was active, and
//   the run store confirms a run of that DAG was active around the slot;
// - a late tick: the scheduler logged that a newer slot of the DAG was due in the same tick (cron semantics);
// - a replayed slot dropped by `overlap_policy: skip` (the run record says so);
// - a run lost with its worker: the slot's run was created and handed over, and failed because the worker
//   executing it stopped (kill -9 mid-run, before the step had begun), as "runs on a failed host are marked
//   failed" says;
// - a run failed by its own process on an injected storage error (EIO on its host's run logs or data) before
//   its step began: the scheduler did its part, the run failed as a run whose step fails does.
// Every other due slot that did not run counts as a slot inside the recovery window that never ran: the soak's
// failovers are all far shorter than scheduler.failover_recovery_window (2m).

import { dueSlots } from '../../../server/core/schedule';
import type { RunStatus } from '../../../server/core/types';
import { scheduleOf, type ChaosDag } from '../dags';
import type { Execution, LogLine } from './soakData';

export type SkipReason =
  | 'overlap'
  | 'late tick'
  | 'replay dropped (overlap_policy skip)'
  | 'run lost with its worker'
  | 'run failed on a storage error at its start';

export interface MissedSlot {
  dag: string;
  slot: string;
  /** What the run store holds for the slot, if anything. */
  record: string;
}

export interface SlotFigures {
  due: number;
  ran: number;
  /** Slots (of any time) whose step started more than once. */
  duplicates: Array<{ dag: string; slot: string; runs: string[] }>;
  skipped: Map<SkipReason, number>;
  /** Each slot not run for a reason the design allows, for the reader to audit. */
  skippedSlots: Array<{ dag: string; slot: string; why: SkipReason }>;
  /** Due slots that did not run and that no reason of the design explains. */
  unexplained: MissedSlot[];
}

const WORKER_LOSS = /worker|heartbeat/i;
/** An I/O error the run process itself met (the reaper's and the coordinator's texts never carry one). */
const STORAGE_ERROR = /EIO: i\/o error/;

/** Whether the run failed as its worker went silent, within a while after the driver killed that worker. */
function lostWithWorker(r: RunStatus, kills: ReadonlyArray<{ worker: string; atMs: number }>): boolean {
  if (r.worker_id === null || !WORKER_LOSS.test(r.error ?? '') || !r.finished_at) return false;
  const failedAt = Date.parse(r.finished_at);
  return kills.some((k) => k.worker === r.worker_id && k.atMs <= failedAt && failedAt - k.atMs <= 15_000);
}

/**
 * Whether a run of `dag` other than the slot's own was queued or running at some moment near `slotMs`: from
 * its creation until it ended, or until its end reached the store when that is known and later (an end that
 * could not be written at once leaves the run active for the schedulers until it is).
 */
function dagWasBusy(
  runs: readonly RunStatus[],
  dag: string,
  slotMs: number,
  endsRecorded: ReadonlyMap<string, number> | null,
): boolean {
  return runs.some((r) => {
    if (r.dag_name !== dag || r.schedule_time === null || Date.parse(r.schedule_time) === slotMs)
      return false;
    const from = Date.parse(r.created_at);
    const to = r.finished_at
      ? Math.max(Date.parse(r.finished_at), endsRecorded?.get(r.run_id) ?? -Infinity)
      : Infinity;
    return from <= slotMs + 5000 && to >= slotMs - 1000;
  });
}

export function analyseSlots(
  dags: readonly ChaosDag[],
  fromMs: number,
  toMs: number,
  executions: readonly Execution[],
  runs: readonly RunStatus[],
  logs: readonly LogLine[],
  /** When each worker was killed by the driver: the evidence a run was lost with its worker. */
  workerKills: ReadonlyArray<{ worker: string; atMs: number }>,
  /** When each run's end reached the store (PostgreSQL), or null. */
  endsRecorded: ReadonlyMap<string, number> | null = null,
): SlotFigures {
  const key = (dag: string, slotMs: number) => `${dag} ${slotMs}`;
  const started = new Map<string, string[]>();
  for (const e of executions) {
    if (e.phase !== 'start' || e.scheduleTime === '') continue;
    const k = key(e.dag, Date.parse(e.scheduleTime));
    started.set(k, [...(started.get(k) ?? []), e.runId]);
  }
  const duplicates = [...started.entries()]
    .filter(([, ids]) => ids.length > 1)
    .map(([k, ids]) => {
      const [dag, ms] = k.split(' ');
      return { dag, slot: new Date(Number(ms)).toISOString(), runs: ids };
    });
  const record = new Map<string, RunStatus>();
  for (const r of runs) if (r.schedule_time) record.set(key(r.dag_name, Date.parse(r.schedule_time)), r);
  // The first skip logged for a slot is the decision that lost it: later actives' first ticks log the slots
  // of their current minute as superseded too, slots an earlier skip (or their replay) already settled.
  const logged = new Map<string, 'overlap' | 'late tick'>();
  for (const l of logs) {
    const slot = typeof l.fields.slot === 'string' ? Date.parse(l.fields.slot) : NaN;
    const k = key(String(l.fields.dag), slot);
    if (Number.isNaN(slot) || logged.has(k)) continue;
    if (l.msg === 'Skipped a slot: the previous run of this DAG is still active') logged.set(k, 'overlap');
    else if (l.msg === 'Skipped a slot: a newer slot of the DAG is due in the same tick')
      logged.set(k, 'late tick');
  }

  let due = 0;
  let ran = 0;
  const skipped = new Map<SkipReason, number>();
  const skippedSlots: SlotFigures['skippedSlots'] = [];
  let current = { dag: '', slot: '' };
  const skip = (why: SkipReason) => {
    skipped.set(why, (skipped.get(why) ?? 0) + 1);
    skippedSlots.push({ ...current, why });
  };
  const unexplained: MissedSlot[] = [];
  for (const dag of dags) {
    for (const slotMs of dueSlots(scheduleOf(dag), fromMs, toMs, 1_000_000)) {
      due++;
      const k = key(dag.name, slotMs);
      current = { dag: dag.name, slot: new Date(slotMs).toISOString() };
      if (started.has(k)) {
        ran++;
        continue;
      }
      const r = record.get(k);
      const why = logged.get(k);
      if (r?.status === 'aborted' && r.error?.startsWith('skipped:'))
        skip('replay dropped (overlap_policy skip)');
      else if (r?.status === 'failed' && STORAGE_ERROR.test(r.error ?? ''))
        skip('run failed on a storage error at its start');
      else if (r?.status === 'failed' && lostWithWorker(r, workerKills)) skip('run lost with its worker');
      else if (!r && why === 'late tick') skip('late tick');
      else if (!r && why === 'overlap' && dagWasBusy(runs, dag.name, slotMs, endsRecorded)) skip('overlap');
      else
        unexplained.push({
          dag: dag.name,
          slot: new Date(slotMs).toISOString(),
          record: r
            ? `${r.run_id} ${r.status} (${r.trigger_type}) ${r.error ?? ''}`.trim()
            : `no run record${why ? `; logged: ${why}` : ''}`,
        });
    }
  }
  return { due, ran, duplicates, skipped, skippedSlots, unexplained };
}
