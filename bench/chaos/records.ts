// What the soak reads back from the control plane's store, behind one interface with an implementation per
// backend: the runs, the lock's role-change events, what each worker reports running, whether a queued run
// has a queue item or a dispatch task. The analysis never knows which backend it reads.

import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { silentLogger } from '../../server/core/ports';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../server/core/types';
import { FileDispatchStore } from '../../server/store/fileDispatchStore';
import { FileQueueStore } from '../../server/store/fileQueueStore';
import { readRoleEvents, readRuns, type RoleEvent } from './analysis/soakData';

/** One acquisition as the store's own history records it (PostgreSQL's failover_events), on its clock. */
export interface HistoryAcquisition {
  epoch: number;
  timeMs: number;
  /** The acquirer's instance ID. */
  to: string;
  how: 'fresh' | 'released' | 'stale';
}

/** A run attempt inserted by a scheduler, stamped by the database itself at the insert. */
export interface InsertedAttempt {
  runId: string;
  attempt: number;
  dispatchedBy: string;
  insertedAtMs: number;
}

export interface SoakRecords {
  /** Every run's latest status. */
  runs(): Promise<RunStatus[]>;
  /** The `scheduler.lock.*` events of the event log. */
  roleEvents(): Promise<RoleEvent[]>;
  /** The runs a worker reported executing in its last heartbeat. */
  workerRuns(workerId: string): Promise<string[]>;
  /** Whether a queued run has a queue item or a dispatch task that will move it on. */
  hasQueueItemOrTask(runId: string): Promise<boolean>;
  /** The lock's history of acquisitions, where the store keeps one apart from the event log. */
  lockHistory(): Promise<HistoryAcquisition[]>;
  /** When each run's end reached the store, by run ID, where the store can witness it. */
  endsRecorded(): Promise<ReadonlyMap<string, number> | null>;
  /** Scheduler-made attempts with the store's own insert time, where the store can witness it. */
  insertedAttempts(): Promise<InsertedAttempt[] | null>;
}

/** The records of the data directory under `home`. */
export function fileRecords(home: string): SoakRecords {
  const dataDir = path.join(home, 'data');
  const queue = new FileQueueStore({ dataDir });
  const tasks = new FileDispatchStore({ dataDir, logger: silentLogger });
  return {
    runs: () => readRuns(home),
    roleEvents: async () => readRoleEvents(dataDir),
    async workerRuns(id) {
      try {
        const file = path.join(dataDir, 'cluster', 'workers', `${id}.json`);
        const rec = JSON.parse(readFileSync(file, 'utf8')) as { running?: Array<{ run_id: string }> };
        return (rec.running ?? []).map((r) => r.run_id);
      } catch {
        return [];
      }
    },
    async hasQueueItemOrTask(runId) {
      return (await queue.find(runId)) !== null || (await tasks.findByRun(runId)) !== null;
    },
    // The file lock's history is its event log, read by roleEvents.
    lockHistory: async () => [],
    endsRecorded: () => fileEndsRecorded(home),
    insertedAttempts: async () => null,
  };
}

/**
 * When each ended run's end reached the data directory: the modification time of its latest attempt's
 * status.json, stamped by the kernel (every process of the soak shares this host's clock) when the status
 * that ended it was written, just before the rename that made it visible. That write is the file's last: a
 * status that has ended is never written again (the coordinator answers a resent end without writing it,
 * and the dead-run checks read a run again and write only one that has not ended). A run's `finished_at`
 * is its writer's clock at the end, which may be well before: a worker whose coordinator was down, a run
 * process retrying its end on a full disk. Until the write the schedulers see the run active.
 */
async function fileEndsRecorded(home: string): Promise<ReadonlyMap<string, number>> {
  const out = new Map<string, number>();
  const dataDir = path.join(home, 'data');
  for (const r of await readRuns(home)) {
    if (!TERMINAL_RUN_STATES.includes(r.status)) continue;
    const file = path.join(dataDir, 'runs', r.run_id, 'attempts', String(r.attempt), 'status.json');
    const st = await stat(file).catch(() => null);
    if (st) out.set(r.run_id, st.mtimeMs);
  }
  return out;
}
