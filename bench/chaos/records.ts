// What the soak reads back from the control plane's store, behind one interface with an implementation per
// backend: the runs, the lock's role-change events, what each worker reports running, whether a queued run
// has a queue item or a dispatch task. The analysis never knows which backend it reads.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../server/core/ports';
import type { RunStatus } from '../../server/core/types';
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
    // A file system has no witness of its own to a write's time but the writer's clock.
    endsRecorded: async () => null,
    insertedAttempts: async () => null,
  };
}
