// What waits and what runs, from the stores' listings alone (no run record is read): the items of the local
// queues, the dispatch tasks no worker has claimed, and the runs marked active. The queue listing, the
// overview's counts and /metrics all start from it.

import type { DispatchStore, PendingSummary } from './dispatchTypes';
import type { QueueItem, QueueStore, RunStore } from './types';

export interface WaitingSnapshot {
  /** Local queue items per queue, in queue order (queues with items only). */
  items: Map<string, QueueItem[]>;
  /** Dispatch tasks waiting for a worker, oldest first. */
  pending: PendingSummary[];
  /** Runs marked active (queued or running), with their queue. */
  active: Array<{ run_id: string; dag_name: string; queue: string }>;
}

export interface WaitingSources {
  queue: Pick<QueueStore, 'queues' | 'list'>;
  tasks: Pick<DispatchStore, 'pendingSummaries'>;
  runs: Pick<RunStore, 'listActive'>;
}

export async function waitingSnapshot(s: WaitingSources): Promise<WaitingSnapshot> {
  const [names, pending, active] = await Promise.all([
    s.queue.queues(),
    s.tasks.pendingSummaries(),
    s.runs.listActive(),
  ]);
  const lists = await Promise.all(names.map((name) => s.queue.list(name)));
  const items = new Map<string, QueueItem[]>();
  names.forEach((name, i) => {
    if (lists[i].length > 0) items.set(name, lists[i]);
  });
  return { items, pending, active };
}

/** Counts of a snapshot: `running` is every active run that neither sits in a queue nor waits for a worker. */
export interface WaitingCounts {
  /** Local queue items, all queues (a run that also has a dispatch task counts as that). */
  queued: number;
  queuedByQueue: Map<string, number>;
  /** Dispatch tasks with a hold (no matching worker yet). */
  held: number;
  /** Dispatch tasks a healthy matching worker has not claimed yet. */
  dispatched: number;
  running: number;
  runningByQueue: Map<string, number>;
}

export function countWaiting(snap: WaitingSnapshot): WaitingCounts {
  const waiting = new Set<string>();
  let held = 0;
  for (const t of snap.pending) {
    waiting.add(t.run_id);
    if (t.hold_until_ms !== null) held += 1;
  }
  // A run handed to the workers keeps its queue item for a moment: it counts once, as the task.
  const queuedByQueue = new Map<string, number>();
  let queued = 0;
  for (const [name, items] of snap.items) {
    const mine = items.filter((item) => !waiting.has(item.run_id));
    queuedByQueue.set(name, mine.length);
    queued += mine.length;
    for (const item of mine) waiting.add(item.run_id);
  }
  // A claimed task's run is counted running: a worker has it, even before it reports the start.
  const runningByQueue = new Map<string, number>();
  let running = 0;
  for (const a of snap.active) {
    if (waiting.has(a.run_id)) continue;
    running += 1;
    runningByQueue.set(a.queue, (runningByQueue.get(a.queue) ?? 0) + 1);
  }
  return { queued, queuedByQueue, held, dispatched: snap.pending.length - held, running, runningByQueue };
}
