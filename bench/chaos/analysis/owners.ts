// Runs left `running` or `queued` with no live owner, checked on the live cluster once the chaos has stopped:
// a local `running` run needs its process, a run on a worker needs that worker alive and reporting it, and a
// `queued` run needs a queue item, a dispatch task, or a live worker that acknowledged it. A run counts only
// when it is still ownerless, unchanged, in a second look a while later (a run between two steps of its
// hand-over is not an offender).

import { readFileSync } from 'node:fs';
import type { RunStatus } from '../../../server/core/types';
import type { ChaosCluster } from '../chaosCluster';

export interface Ownerless {
  runId: string;
  status: string;
  attempt: number;
  why: string;
}

const SECOND_LOOK_AFTER_MS = 8000;

/** Whether `pid` is a live process of one of the soak's homes (a run inherits its starter's home). */
function localProcessOfHomes(pid: number, homes: readonly string[]): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return homes.some((home) => environ.includes(Buffer.from(`DAGU_HOME=${home}\0`)));
  } catch {
    return false;
  }
}

async function ownerlessNow(c: ChaosCluster): Promise<Map<string, Ownerless>> {
  const out = new Map<string, Ownerless>();
  const workerHas = async (s: RunStatus) =>
    s.worker_id !== null &&
    c.supervisor.current(s.worker_id) !== null &&
    (await c.workerRuns(s.worker_id)).includes(s.run_id);
  for (const s of await c.records.runs()) {
    let why: string | null = null;
    if (s.status === 'running') {
      if (s.worker_id === null && !(s.pid !== null && localProcessOfHomes(s.pid, c.homes)))
        why = `its process ${s.pid ?? '?'} is gone`;
      if (s.worker_id !== null && !(await workerHas(s)))
        why = `worker ${s.worker_id} is down or does not report it`;
    } else if (s.status === 'queued') {
      const owned = (await c.records.hasQueueItemOrTask(s.run_id)) || (await workerHas(s));
      if (!owned) why = 'no queue item, no dispatch task and no worker reporting it';
    }
    if (why) out.set(s.run_id, { runId: s.run_id, status: s.status, attempt: s.attempt, why });
  }
  return out;
}

/** Runs without a live owner in two looks SECOND_LOOK_AFTER_MS apart, in the same status and attempt. */
export async function findOwnerless(c: ChaosCluster): Promise<Ownerless[]> {
  const first = await ownerlessNow(c);
  if (first.size === 0) return [];
  await new Promise((r) => setTimeout(r, SECOND_LOOK_AFTER_MS));
  const second = await ownerlessNow(c);
  return [...second.values()].filter((o) => {
    const before = first.get(o.runId);
    return before !== undefined && before.status === o.status && before.attempt === o.attempt;
  });
}
