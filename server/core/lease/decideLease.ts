// Pure decisions of the lock protocol: what a standby does with a read, and what a holder's read means.
// Time comes in as arguments (local monotonic milliseconds); nothing here reads a clock or a file.

import type { LockRead, LockRecord } from './types';

/**
 * The identity of what a read found: a record is the same record only if holder, epoch, counter and the
 * released flag are all the same; a corrupt record is identified by its raw text.
 */
export function lockIdentity(read: LockRead): string {
  if (read.kind === 'none') return 'none';
  if (read.kind === 'corrupt') return `corrupt:${read.raw}`;
  const r = read.record;
  return `record:${r.holder}:${r.epoch}:${r.counter}:${r.released ? 'released' : 'held'}`;
}

/** What a standby has watched: one identity, since when (local mono), and how many claims of it were lost. */
export interface Observation {
  identity: string;
  read: LockRead;
  /** Completion time of the first read that returned this identity: any write it shows had landed by then. */
  sinceMono: number;
  /** Takeover attempts of this record lost to others; each further attempt needs another full T. */
  attempt: number;
}

/** What a standby should do next. */
export type StandbyDecision =
  { kind: 'create' } | { kind: 'take'; how: 'released' | 'stale' } | { kind: 'wait'; recheckAtMono: number };

/** Folds a fresh read into the observation: a changed identity restarts the watch. */
export function observe(prev: Observation | null, read: LockRead, completedMono: number): Observation {
  const identity = lockIdentity(read);
  if (prev !== null && prev.identity === identity) return prev;
  return { identity, read, sinceMono: completedMono, attempt: 0 };
}

/**
 * Decides on a read. `readStartMono` is when the read began: the record was unchanged at some instant after
 * it, so a stale takeover needs the read to have begun a full T after the identity was first seen.
 */
export function decideStandby(
  obs: Observation,
  readStartMono: number,
  nowMono: number,
  staleMs: number,
  retryMs: number,
): StandbyDecision {
  if (obs.read.kind === 'none') return { kind: 'create' };
  const released = obs.read.kind === 'record' && obs.read.record.released;
  // A released record whose claim another standby won is normally replaced at once; if it is not, the winner
  // died mid-takeover and the next attempt waits a full T like any other.
  if (released && obs.attempt === 0) return { kind: 'take', how: 'released' };
  const staleAtMono = obs.sinceMono + staleMs;
  if (readStartMono >= staleAtMono) return { kind: 'take', how: released ? 'released' : 'stale' };
  // Check again exactly when T will have passed, rather than at the next R tick, to fail over in T + R.
  return { kind: 'wait', recheckAtMono: Math.min(nowMono + retryMs, staleAtMono) };
}

/** The epoch a takeover of `observed` writes: one above it, plus the attempts lost on the same record. */
export function nextEpoch(observed: LockRead, attempt: number, highestEpochSeen: number): number {
  const base = observed.kind === 'record' ? observed.record.epoch : highestEpochSeen;
  return base + 1 + attempt;
}

/** What the holder's read of the lock means for it. */
export type OwnVerdict =
  | { kind: 'mine'; record: LockRecord }
  /** A write by an earlier holder that landed after we took over: ours to overwrite. */
  | { kind: 'late-write'; record: LockRecord }
  /** Not provably ours, but not proof of a new owner either: do not write, let the renewal fail. */
  | { kind: 'unreadable'; error: string }
  | { kind: 'lost'; reason: string };

export function judgeOwnRecord(read: LockRead, mine: { holder: string; epoch: number }): OwnVerdict {
  if (read.kind === 'none') {
    // Someone deleted the lock: a standby may create a fresh one at once, so we must stop now.
    return { kind: 'lost', reason: 'the lock file is gone' };
  }
  if (read.kind === 'corrupt') return { kind: 'unreadable', error: read.error };
  const r = read.record;
  if (r.holder === mine.holder && r.epoch === mine.epoch) return { kind: 'mine', record: r };
  if (r.epoch < mine.epoch) return { kind: 'late-write', record: r };
  if (r.epoch > mine.epoch) {
    return { kind: 'lost', reason: `instance ${r.instance_id} holds the lock with a newer epoch ${r.epoch}` };
  }
  return { kind: 'lost', reason: `instance ${r.instance_id} holds the lock at the same epoch ${r.epoch}` };
}

/** Whether the holder may dispatch: strictly before T - I after its last successful renewal began. */
export function withinDispatchWindow(lastRenewStartMono: number | null, nowMono: number, windowMs: number) {
  return lastRenewStartMono !== null && nowMono < lastRenewStartMono + windowMs;
}
