// One-off (`at`) slots, as Dagu's scheduler treats them. A one-off time the scheduler sees before it comes
// becomes pending; a pending slot is due from its time on until it is dispatched (it waits while the DAG is
// busy, and after a scheduler restart or failover it is still due, however late). A time first seen after it
// passed never fires. Pending slots are kept in the scheduler's state, so the next active instance knows them.
// Pure: time comes in as an argument. Cron slots are not handled here.

import type { DagSpec } from './types';

/** Pending one-off slot times (ms) by DAG name. */
export type PendingOneOffs = Record<string, number[]>;

export interface OneOffPlan {
  /** Pending slots from now on: the previous ones still in a DAG file, plus the newly seen future ones. */
  pending: PendingOneOffs;
  /** Pending slots whose time has come, oldest first. */
  due: Array<{ dag: string; slotMs: number }>;
  /** Whether `pending` differs from the previous pending slots (and so is worth persisting). */
  changed: boolean;
}

/** Whether a DAG has a one-off entry (so cron-only DAGs cost nothing here). */
export function hasOneOff(dag: Pick<DagSpec, 'schedule'>): boolean {
  return dag.schedule.some((s) => s.at_ms !== undefined);
}

/**
 * Works out the pending and due one-off slots at `nowMs`. A slot stays pending while a DAG file still has it;
 * one that is not pending yet becomes pending only when its time is now or later.
 */
export function planOneOffs(dags: readonly DagSpec[], previous: PendingOneOffs, nowMs: number): OneOffPlan {
  const pending: PendingOneOffs = {};
  const due: OneOffPlan['due'] = [];
  for (const dag of dags) {
    const before = new Set(previous[dag.name] ?? []);
    const times = new Set<number>();
    for (const s of dag.schedule) {
      if (s.at_ms === undefined) continue;
      if (before.has(s.at_ms) || s.at_ms >= nowMs) times.add(s.at_ms);
    }
    if (times.size === 0) continue;
    const sorted = [...times].sort((a, b) => a - b);
    pending[dag.name] = sorted;
    for (const t of sorted) if (t <= nowMs) due.push({ dag: dag.name, slotMs: t });
  }
  due.sort((a, b) => a.slotMs - b.slotMs || a.dag.localeCompare(b.dag));
  return { pending, due, changed: !samePending(previous, pending) };
}

/** `pending` without one slot (it was dispatched, found already run, or skipped for good). */
export function withoutOneOff(pending: PendingOneOffs, dag: string, slotMs: number): PendingOneOffs {
  const rest = (pending[dag] ?? []).filter((t) => t !== slotMs);
  const out = { ...pending };
  if (rest.length > 0) out[dag] = rest;
  else delete out[dag];
  return out;
}

function samePending(a: PendingOneOffs, b: PendingOneOffs): boolean {
  const names = Object.keys(a).filter((n) => (a[n]?.length ?? 0) > 0);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((n) => {
    const x = [...a[n]].sort((p, q) => p - q);
    const y = b[n];
    return y !== undefined && x.length === y.length && x.every((t, i) => t === y[i]);
  });
}
