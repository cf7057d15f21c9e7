// Lock acquisitions, from the schedulers' own logs, the event log and (on PostgreSQL) the lock's failover
// history, and the check that every run a scheduler
// created was created inside its lease: after its acquisition and before the next instance's acquisition.
//
// Clock: every process of the soak runs on this one host, so the wall clock that stamps a run's `created_at`
// (read by the creating scheduler right after its fencing check, before the record is written), a log line's
// `time` and an event's `time` is one clock. An acquisition is stamped after the lock write returned, so an
// acquisition's time is never earlier than the moment the new holder could dispatch: the check can only err
// towards seeing a violation, never towards hiding one.

import type { RunStatus } from '../../../server/core/types';
import type { HistoryAcquisition } from '../records';
import type { LogLine, RoleEvent } from './soakData';

export type AcquiredHow = 'fresh' | 'released' | 'stale';
export type AcquisitionSource = 'log' | 'event' | 'history';

/** One acquisition of the scheduler lock (one epoch). */
export interface Acquisition {
  epoch: number;
  timeMs: number;
  pid: number;
  how: AcquiredHow;
  /** Wall clock, previous holder's last renewal -> this acquisition (from the event; display data). */
  gapMs: number | null;
  /** Where it was found: the instance's log, the event log, the store's lock history. */
  sources: Set<AcquisitionSource>;
}

const ACQUIRED_MSGS: Record<string, AcquiredHow> = {
  'Acquired the free scheduler lock': 'fresh',
  'Acquired the released scheduler lock': 'released',
  'Took over the scheduler lock from a failed instance': 'stale',
};

/**
 * Every acquisition, merged by epoch from each source at the earliest time any of them gives. The lock
 * history's time is stamped by the database inside the acquiring transaction, before its commit: the
 * earliest moment the new holder's epoch could exist.
 */
export function acquisitions(
  logs: readonly LogLine[],
  events: readonly RoleEvent[],
  history: readonly HistoryAcquisition[] = [],
): Acquisition[] {
  const byEpoch = new Map<number, Acquisition>();
  const note = (epoch: number, timeMs: number, pid: number, how: AcquiredHow, source: AcquisitionSource) => {
    const a = byEpoch.get(epoch);
    if (!a) {
      byEpoch.set(epoch, { epoch, timeMs, pid, how, gapMs: null, sources: new Set([source]) });
      return;
    }
    a.timeMs = Math.min(a.timeMs, timeMs);
    a.sources.add(source);
    if (a.pid !== pid) throw new Error(`epoch ${epoch} acquired by two processes: ${a.pid} and ${pid}`);
  };
  for (const l of logs) {
    const how = ACQUIRED_MSGS[l.msg];
    if (how && typeof l.fields.epoch === 'number') note(l.fields.epoch, l.timeMs, l.pid, how, 'log');
  }
  for (const e of events) {
    if (e.type !== 'scheduler.lock.acquired') continue;
    const epoch = Number(e.data.epoch);
    note(epoch, e.timeMs, Number(e.data.pid), e.data.how as AcquiredHow, 'event');
    const gap = e.data.gap_ms;
    if (typeof gap === 'number') byEpoch.get(epoch)!.gapMs = gap;
  }
  for (const h of history) {
    const pid = pidOfInstance(h.to);
    if (pid !== null) note(h.epoch, h.timeMs, pid, h.how, 'history');
  }
  return [...byEpoch.values()].sort((a, b) => a.epoch - b.epoch);
}

/**
 * Epochs of claims whose write failed or timed out, as their instances logged them: such a write may land
 * later and leave an epoch that nobody acquired (the next holder takes it over as stale).
 */
export function unsettledEpochs(logs: readonly LogLine[]): Set<number> {
  const out = new Set<number>();
  for (const l of logs)
    if (
      l.msg === 'A claim of the scheduler lock did not settle; it may still land' &&
      typeof l.fields.epoch === 'number'
    )
      out.add(l.fields.epoch);
  return out;
}

/**
 * Epochs between the first and the last acquisition that no source recorded, except those of claims their
 * instance said had not settled (`unsettled`): an epoch missing otherwise is an acquisition that went unlogged.
 */
export function missingEpochs(
  acqs: readonly Acquisition[],
  unsettled: ReadonlySet<number> = new Set(),
): number[] {
  if (acqs.length === 0) return [];
  const have = new Set(acqs.map((a) => a.epoch));
  const out: number[] = [];
  for (let e = acqs[0].epoch; e <= acqs[acqs.length - 1].epoch; e++)
    if (!have.has(e) && !unsettled.has(e)) out.push(e);
  return out;
}

/** Acquisitions whose time goes backwards as the epoch grows: two holders at once, or a broken clock. */
export function epochsOutOfOrder(acqs: readonly Acquisition[]): number[] {
  return acqs.filter((a, i) => i > 0 && a.timeMs < acqs[i - 1].timeMs).map((a) => a.epoch);
}

/** The PID in an instance ID `<host>-<pid>-<hex>`. */
export function pidOfInstance(instance: string): number | null {
  const m = /-(\d+)-[0-9a-f]+$/.exec(instance);
  return m ? Number(m[1]) : null;
}

export interface LeaseViolation {
  runId: string;
  dispatchedBy: string;
  createdAt: string;
  /** The instance holding the latest acquisition at that time, or null when none had acquired yet. */
  holderPid: number | null;
  holderEpoch: number | null;
}

export interface LeaseCheck {
  checked: number;
  violations: LeaseViolation[];
  /** Smallest margin between a run's creation and the next acquisition by another instance (ms). */
  minMarginMs: number | null;
}

export function checkLeases(runs: readonly RunStatus[], acqs: readonly Acquisition[]): LeaseCheck {
  const byTime = [...acqs].sort((a, b) => a.timeMs - b.timeMs);
  const violations: LeaseViolation[] = [];
  let minMarginMs: number | null = null;
  let checked = 0;
  for (const r of runs) {
    if (!r.dispatched_by) continue;
    checked++;
    const created = Date.parse(r.created_at);
    const pid = pidOfInstance(r.dispatched_by);
    let holder: Acquisition | null = null;
    let next: Acquisition | null = null;
    for (const a of byTime) {
      if (a.timeMs <= created) holder = a;
      else if (!next) next = a;
    }
    if (!holder || holder.pid !== pid) {
      violations.push({
        runId: r.run_id,
        dispatchedBy: r.dispatched_by,
        createdAt: r.created_at,
        holderPid: holder?.pid ?? null,
        holderEpoch: holder?.epoch ?? null,
      });
    } else if (next) {
      const margin = next.timeMs - created;
      minMarginMs = minMarginMs === null ? margin : Math.min(minMarginMs, margin);
    }
  }
  return { checked, violations, minMarginMs };
}
