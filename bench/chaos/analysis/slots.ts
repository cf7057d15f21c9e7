// Slots due over the soak window, how many ran (by the steps' own markers), how many ran more than once, and
// why each of the others did not run: a reason the design allows, or none.
//
// Allowed by design (counted apart, each with its evidence):
// - overlap: the scheduler logged that it skipped the slot because a previous run of the DAG was active, and
//   the run store confirms a run of that DAG was active around the slot (until its end reached the store,
//   where the store witnesses that: the database's record of it, the status file's write time);
// - a late tick: the scheduler logged that a newer slot of the DAG was due in the same tick (cron semantics);
// - a replayed slot dropped by `overlap_policy: skip` (the run record says so);
// - a run lost with its worker: the slot's run was created and handed over, and failed because the worker
//   executing it stopped (kill -9 mid-run, before the step had begun), as "runs on a failed host are marked
//   failed" says;
// - a run failed by its own process on an injected storage error (EIO on its host's run logs or data) before
//   its step began: the scheduler did its part, the run failed as a run whose step fails does;
// - a run whose process claimed its attempt right before its host's storage failed (a full disk, EIO on the
//   data directory) for longer than the process retries its end: it could write neither its start nor its
//   end, and exited; the dead-run check failed it with the reason (runner/runAttempt.ts, runAttempt). The
//   evidence: that text, the scheduler that started the claimant (its log), and the driver's fault window on
//   that scheduler's host storage, opening at most CLAIM_LEAD_MS after the claim and in force, from the later
//   of the two, for at least the final-status retry budget (a shorter fault lets the run write its end). The
//   claim's time in the text is read just before the claim is made: the claim may be later, never earlier.
// Every other due slot that did not run counts as a slot inside the recovery window that never ran: the soak's
// failovers are all far shorter than scheduler.failover_recovery_window (2m).

import { dueSlots } from '../../../server/core/schedule';
import type { RunStatus } from '../../../server/core/types';
import type { StorageFaultWindow } from '../actions';
import { scheduleOf, type ChaosDag } from '../dags';
import type { Execution, LogLine } from './soakData';

export type SkipReason =
  | 'overlap'
  | 'late tick'
  | 'replay dropped (overlap_policy skip)'
  | 'run lost with its worker'
  | 'run failed on a storage error at its start'
  | 'claimed, then its host storage failed past its retries';

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

/** What the soak knows of the storage faults it dealt, to judge a run its host's storage failed. */
export interface StorageEvidence {
  /** Every storage fault the driver dealt on a scheduler host (actions.ts), with its window. */
  faults: readonly StorageFaultWindow[];
  /** The scheduler (host) each scheduler process ran as, by PID: whose storage its run processes used. */
  hostOfPid: ReadonlyMap<number, string>;
  /**
   * How long a run process retries its final status (runner finalStatusRetryMs: the run heartbeat's stale
   * threshold in the soak): a fault must outlast it for the run to give up writing its end.
   */
  finalStatusRetryMs: number;
}

/**
 * The dead-run check's verdict on a claimed attempt whose process is gone and wrote no status of it
 * (scheduler/claimedAttemptCheck.ts, verdict): the claimant's PID and the time of its claim.
 */
const CLAIMED_UNWRITTEN =
  /^run process (\d+) on \S+ claimed attempt \d+ at (\S+) and (?:exited without writing its status|ended \w+, but could not write its status)/;

/**
 * How long after its claim a run process may first write to its storage: the claim is its first write, and
 * its first status follows within milliseconds (a loaded machine: well within this). A claim is a file
 * created, which a full disk or an EIO burst refuses, so the claim itself always comes before the fault.
 */
const CLAIM_LEAD_MS = 1000;

/** Scheduler log lines naming a run process it started (`pid`) for a run (`run_id`). */
const STARTED_MSGS = new Set(['Started a scheduled run', 'Started a queued run']);

/**
 * Whether `r` failed, per the dead-run check, because its process claimed it right before a storage fault on
 * its host that outlasted the process's retries of its end (see the header). Every link must be on record:
 * the claimant in the check's text, the scheduler that started that very process, and the fault on that
 * scheduler's host storage covering the data directory.
 */
function claimantLostItsStorage(
  r: RunStatus,
  startedBy: ReadonlyMap<string, number>,
  ev: StorageEvidence,
): boolean {
  if (r.status !== 'failed') return false;
  const m = CLAIMED_UNWRITTEN.exec(r.error ?? '');
  if (!m) return false;
  const claimMs = Date.parse(m[2]);
  const scheduler = startedBy.get(`${r.run_id} ${m[1]}`);
  const host = scheduler === undefined ? undefined : ev.hostOfPid.get(scheduler);
  if (host === undefined || Number.isNaN(claimMs)) return false;
  return ev.faults.some(
    (f) =>
      f.host === host &&
      (f.mode === 'ENOSPC' || f.mode === 'eio') &&
      (f.filter === null || f.filter.includes('/data')) &&
      claimMs >= f.fromMs - CLAIM_LEAD_MS &&
      // Its writes failed only once the fault was in force, and it retried its end for the budget after that.
      f.toMs - Math.max(claimMs, f.fromMs) >= ev.finalStatusRetryMs,
  );
}

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
  /** When each run's end reached the store (the database's witness, the status file's write), or null. */
  endsRecorded: ReadonlyMap<string, number> | null = null,
  /** The storage faults dealt on the schedulers' hosts (files), or null. */
  storage: StorageEvidence | null = null,
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
  const logged = new Map<string, { why: 'overlap' | 'late tick'; line: LogLine }>();
  // `<run id> <pid>` -> the scheduler process that started that run process; run ID -> the last one to.
  const startedBy = new Map<string, number>();
  const lastStartedBy = new Map<string, number>();
  for (const l of logs) {
    if (STARTED_MSGS.has(l.msg) && typeof l.fields.run_id === 'string' && typeof l.fields.pid === 'number') {
      startedBy.set(`${l.fields.run_id} ${l.fields.pid}`, l.pid);
      lastStartedBy.set(l.fields.run_id, l.pid);
    }
    const slot = typeof l.fields.slot === 'string' ? Date.parse(l.fields.slot) : NaN;
    const k = key(String(l.fields.dag), slot);
    if (Number.isNaN(slot) || logged.has(k)) continue;
    if (l.msg === 'Skipped a slot: the previous run of this DAG is still active')
      logged.set(k, { why: 'overlap', line: l });
    else if (l.msg === 'Skipped a slot: a newer slot of the DAG is due in the same tick')
      logged.set(k, { why: 'late tick', line: l });
  }
  // A scheduler process, by its host where known: what a reader matches against the cycles' lines.
  const who = (pid: number) => {
    const host = storage?.hostOfPid.get(pid);
    return host ? `${host} (pid ${pid})` : `pid ${pid}`;
  };
  const recordText = (r: RunStatus | undefined, skipLog: { why: string; line: LogLine } | undefined) => {
    if (!r) {
      const l = skipLog?.line;
      return `no run record${l ? `; logged: ${skipLog.why} by ${who(l.pid)} at ${new Date(l.timeMs).toISOString()}` : ''}`;
    }
    const by = lastStartedBy.get(r.run_id);
    const text = `${r.run_id} ${r.status} (${r.trigger_type}) ${r.error ?? ''}`.trim();
    return by === undefined ? text : `${text}; started by ${who(by)}`;
  };

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
      const skipLog = logged.get(k);
      const why = skipLog?.why;
      if (r?.status === 'aborted' && r.error?.startsWith('skipped:'))
        skip('replay dropped (overlap_policy skip)');
      else if (r?.status === 'failed' && STORAGE_ERROR.test(r.error ?? ''))
        skip('run failed on a storage error at its start');
      else if (r && storage && claimantLostItsStorage(r, startedBy, storage))
        skip('claimed, then its host storage failed past its retries');
      else if (r?.status === 'failed' && lostWithWorker(r, workerKills)) skip('run lost with its worker');
      else if (!r && why === 'late tick') skip('late tick');
      else if (!r && why === 'overlap' && dagWasBusy(runs, dag.name, slotMs, endsRecorded)) skip('overlap');
      else
        unexplained.push({
          dag: dag.name,
          slot: new Date(slotMs).toISOString(),
          record: recordText(r, skipLog),
        });
    }
  }
  return { due, ran, duplicates, skipped, skippedSlots, unexplained };
}
