// Which runs the coordinator counts as a worker's own: active runs a worker took (acknowledged) and has not
// finished. A worker's record is never removed while it owns one: the silent-worker detection settles them
// first, and a run whose worker has no record at all would be failed at once as "not registered".

import type { RunStatus } from '../core/types';
import type { DispatchStore } from '../store/dispatchTypes';
import type { RunStore } from '../store/types';

/** A run a worker took and has not finished. */
export function onWorker(s: RunStatus): boolean {
  return s.worker_id !== null && (s.status === 'queued' || s.status === 'running');
}

/**
 * Run IDs by the worker that owns them, for the workers in `workerIds`. An unreadable run is counted for no
 * one: it cannot be settled by the detection either, and keeping a record for it would keep it for ever.
 */
export async function runsOwnedBy(
  runs: RunStore,
  tasks: DispatchStore,
  workerIds: ReadonlySet<string>,
): Promise<Map<string, string[]>> {
  const owned = new Map<string, string[]>();
  if (workerIds.size === 0) return owned;
  // A run whose task is still pending has no worker yet: no need to read it (thousands may be held).
  const waiting = new Set((await tasks.pendingSummaries()).map((t) => t.run_id));
  for (const a of await runs.listActive()) {
    if (waiting.has(a.run_id)) continue;
    const r = await runs.readStatus(a.run_id);
    if (r.kind !== 'ok' || !onWorker(r.status) || !workerIds.has(r.status.worker_id!)) continue;
    const id = r.status.worker_id!;
    owned.set(id, [...(owned.get(id) ?? []), a.run_id]);
  }
  return owned;
}
