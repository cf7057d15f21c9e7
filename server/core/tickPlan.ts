// Slot planning for the scheduler: which (DAG, slot) pairs are due in a tick, and which missed slots a
// catch-up replays under the DAG's overlap policy. Pure: time comes in as arguments.

import { computeSlots, type SlotLookup } from './nextSlotMemo';
import { dueSlots, slotGranularityMs } from './schedule';
import type { DagSpec, OverlapPolicy } from './types';

export interface PlannedSlot {
  dag: string;
  slotMs: number;
}

/**
 * Cron slots of every DAG in (fromExclusiveMs, toInclusiveMs], oldest first, de-duplicated per DAG. With a
 * NextSlotMemo as `slots`, a tick that nextWake (with the same memo) woke for computes no slot at all.
 */
export function planTick(
  dags: readonly DagSpec[],
  fromExclusiveMs: number,
  toInclusiveMs: number,
  slots: SlotLookup = computeSlots,
): PlannedSlot[] {
  const out: PlannedSlot[] = [];
  if (toInclusiveMs <= fromExclusiveMs) return out; // the wall clock went backwards: plan nothing twice
  for (const dag of dags) {
    const due = new Set<number>();
    for (const s of dag.schedule) {
      if (s.at_ms !== undefined) continue; // one-off slots: planOneOffs
      const first = slots.next(s, fromExclusiveMs);
      if (first === null || first > toInclusiveMs) continue;
      const second = slots.next(s, first);
      if (second === null || second > toInclusiveMs) due.add(first);
      else for (const t of dueSlots(s, fromExclusiveMs, toInclusiveMs)) due.add(t); // a late tick
    }
    for (const t of due) out.push({ dag: dag.name, slotMs: t });
  }
  return out.sort((a, b) => a.slotMs - b.slotMs || a.dag.localeCompare(b.dag));
}

/**
 * The earliest slot of any DAG strictly after `afterMs`, or null when nothing is scheduled. With a memo as
 * `slots`, each schedule's slot after that one is worked out now, ahead of the tick at the slot.
 */
export function nextWake(
  dags: readonly DagSpec[],
  afterMs: number,
  slots: SlotLookup = computeSlots,
): number | null {
  let best: number | null = null;
  for (const dag of dags) {
    for (const s of dag.schedule) {
      const t = slots.nextAhead(s, afterMs);
      if (t !== null && (best === null || t < best)) best = t;
    }
  }
  return best;
}

/** The finest slot granularity among the DAGs (1 s if any schedule has a seconds field, else 1 min). */
export function finestGranularityMs(dags: readonly DagSpec[]): number {
  let g = 60_000;
  for (const dag of dags) for (const s of dag.schedule) g = Math.min(g, slotGranularityMs(s));
  return g;
}

/**
 * Missed cron slots to replay for one DAG: those in (max(lastSlot, now - window), beforeMs), reduced by the
 * overlap policy (`latest` keeps only the newest; `skip` and `all` keep every slot, and the queue decides).
 */
export function planCatchup(
  dag: DagSpec,
  opts: {
    lastSlotMs: number | null;
    windowMs: number;
    nowMs: number;
    beforeMs: number;
    policy?: OverlapPolicy;
  },
): number[] {
  if (opts.windowMs <= 0) return [];
  const from = Math.max(opts.lastSlotMs ?? -Infinity, opts.nowMs - opts.windowMs);
  const to = opts.beforeMs - 1;
  if (to <= from) return [];
  const slots = new Set<number>();
  for (const s of dag.schedule) {
    if (s.at_ms !== undefined) continue; // a missed one-off slot stays pending instead (planOneOffs)
    for (const t of dueSlots(s, from, to)) slots.add(t);
  }
  const sorted = [...slots].sort((a, b) => a - b);
  const policy = opts.policy ?? dag.overlap_policy;
  return policy === 'latest' ? sorted.slice(-1) : sorted;
}
